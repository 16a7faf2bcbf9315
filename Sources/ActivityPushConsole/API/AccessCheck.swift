import Foundation

/// The `--api-token` gate: `Authorization: Bearer <token>`, or HTTP Basic with the token as password (so a
/// browser can open the page after its login prompt). Compared in constant time.
enum AccessCheck {
    static func allows(_ request: HTTPRequest, token: String) -> Bool {
        guard let auth = request.header("authorization") else { return false }
        let parts = auth.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return false }
        switch parts[0].lowercased() {
        case "bearer":
            return equal(parts[1].trimmingCharacters(in: .whitespaces), token)
        case "basic":
            guard let data = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
                  let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return false }
            return equal(String(text[text.index(after: colon)...]), token)
        default:
            return false
        }
    }

    /// Constant-time for equal lengths.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}
