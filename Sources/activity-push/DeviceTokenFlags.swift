import ActivityPushCore

/// `--token HEX ...` and `--tokens-file FILE` (one hex token per line; `#` comments and blank lines ignored),
/// shared by `send` and `queue enqueue`. Each token is checked by ``DeviceToken``; errors show it redacted.
enum DeviceTokenFlags {
    /// The tokens given, flags first, then the file's lines, as lowercase hex.
    static func read(_ arguments: inout Arguments) throws -> [String] {
        var tokens: [String] = []
        for text in arguments.values("--token") {
            guard let token = try? DeviceToken(hex: text) else {
                throw UsageError("--token \(DeviceToken.redacted(text)): not hex (the token data printed as hex)")
            }
            tokens.append(token.hex)
        }
        if let file = arguments.value("--tokens-file") {
            let text = String(decoding: try Inputs.bytes(file), as: UTF8.self)
            for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // Trimmed on the UTF-8 view: Foundation's trimmingCharacters was 39 % of `send`'s CPU for 30 000
                // tokens (perf).
                var trimmed = raw
                while let first = trimmed.utf8.first, first == 0x20 || first == 0x09 || first == 0x0D { trimmed = trimmed.dropFirst() }
                while let last = trimmed.utf8.last, last == 0x20 || last == 0x09 || last == 0x0D { trimmed = trimmed.dropLast() }
                let line = String(trimmed)
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard let token = try? DeviceToken(hex: line) else {
                    throw UsageError("\(file):\(index + 1): not a hex token; put one token per line as hex")
                }
                tokens.append(token.hex)
            }
        }
        return tokens
    }
}
