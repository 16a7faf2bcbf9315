import ActivityPushCore

/// `--token HEX ...` and `--tokens-file FILE` (one hex token per line; `#` comments and blank lines ignored),
/// shared by `send` and `queue enqueue`. Each token is checked by ``DeviceToken``; errors show it redacted.
enum DeviceTokenFlags {
    static let token = Option<String>(
        "--token", valueName: "HEX",
        help: "a push-to-start token (start) or an activity update token; one push each", repeatable: true)
    static let tokensFile = Option<String>(
        "--tokens-file", valueName: "FILE", help: "one hex token per line (# comments and blank lines ignored)")

    static let group = OptionGroup("device tokens", [token, tokensFile])

    /// The tokens given, flags first, then the file's lines, as lowercase hex.
    static func read(_ arguments: ParsedArguments) throws -> [String] {
        var tokens: [String] = []
        for text in try arguments.values(token) {
            guard let token = try? DeviceToken(hex: text) else {
                throw UsageError(.badValue, option: "--token", "--token \(DeviceToken.redacted(text)): not hex (the token data printed as hex)")
            }
            tokens.append(token.hex)
        }
        if let file = try arguments.value(tokensFile) {
            var bytes = try Inputs.bytes(file)[...]
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }   // a UTF-8 byte-order mark
            // Lines split on the byte 0x0A and trimmed of spaces, tabs and CR on bytes: Swift's Character view
            // treats "\r\n" as one Character, so a CRLF file never split on "\n"; Foundation's
            // trimmingCharacters was 39 % of `send`'s CPU for 30 000 tokens (perf).
            for (index, raw) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                var trimmed = raw
                while let first = trimmed.first, first == 0x20 || first == 0x09 || first == 0x0D { trimmed = trimmed.dropFirst() }
                while let last = trimmed.last, last == 0x20 || last == 0x09 || last == 0x0D { trimmed = trimmed.dropLast() }
                let line = String(decoding: trimmed, as: UTF8.self)
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard let token = try? DeviceToken(hex: line) else {
                    throw UsageError(.badInput, file: file, "\(file):\(index + 1): not a hex token", fix: "put one token per line as hex")
                }
                tokens.append(token.hex)
            }
        }
        return tokens
    }
}
