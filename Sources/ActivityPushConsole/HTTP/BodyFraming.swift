import Foundation

/// Judges a request's declared body length from its head alone, so an impossible, ambiguous or oversized
/// body is refused before any of it is read (RFC 9112 §6.3: a message with both `Transfer-Encoding` and
/// `Content-Length`, or with differing `Content-Length` values, is a framing error — the request-smuggling
/// shape; RFC 9110 §8.6: `Content-Length` is a non-negative decimal number).
enum BodyFraming {
    /// The answer to send at once, or nil when the body may be read.
    /// - Parameters:
    ///   - contentLengths: every `Content-Length` field value as sent (a field may itself be a list `10, 10`).
    ///   - transferEncoding: the `Transfer-Encoding` field, when present.
    ///   - maxBodyBytes: the largest body the server keeps.
    static func refusal(contentLengths: [String], transferEncoding: String?, maxBodyBytes: Int) -> HTTPResponse? {
        guard !contentLengths.isEmpty else { return nil }
        let values = contentLengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if transferEncoding != nil {
            return APIError(400, "bad-request", "the request has both Content-Length and Transfer-Encoding",
                            fix: "send one of them (Content-Length for a body of known size)").response
        }
        guard values.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else {
            return APIError(400, "bad-request", "Content-Length '\(contentLengths.joined(separator: ", ").prefix(40))' is not a number of bytes",
                            fix: "send the body's length in bytes as a decimal number").response
        }
        guard Set(values.map { $0.drop(while: { $0 == "0" }) }).count == 1 else {
            return APIError(400, "bad-request", "the request has conflicting Content-Length values (\(values.joined(separator: ", ").prefix(60)))",
                            fix: "send one Content-Length header with the body's length").response
        }
        // More digits than any limit has: refused without converting (no overflow).
        let digits = values[0].drop(while: { $0 == "0" })
        if digits.count > 18 || (Int(digits) ?? 0) > maxBodyBytes {
            return APIError.payloadTooLarge(maxBytes: maxBodyBytes).response
        }
        return nil
    }
}
