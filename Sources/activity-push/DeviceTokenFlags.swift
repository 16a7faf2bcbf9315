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
                let line = raw.trimmingCharacters(in: .whitespaces)
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
