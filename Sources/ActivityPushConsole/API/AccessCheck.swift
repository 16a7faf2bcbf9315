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

    /// Other web pages must not drive the API through the visitor's browser (the API can send with the server's
    /// key): a request whose `Origin` is not this server's own origin is refused, and on a loopback console
    /// without a token the `Host` must name the loopback (so a DNS-rebound name cannot reach it).
    /// Requests without `Origin` (curl, scripts) and same-origin page requests pass.
    static func crossSiteRefusal(_ request: HTTPRequest, tokenRequired: Bool) -> APIError? {
        let host = request.header("host")
        if let origin = request.header("origin"), origin != "http://" + (host ?? "") {
            return APIError(403, "forbidden", "cross-origin request from \(origin) refused",
                            fix: "call the API from the console's own page, or without an Origin header (curl, scripts)")
        }
        if !tokenRequired, let host, !isLoopbackHost(host) {
            return APIError(403, "forbidden", "Host '\(host)' is not this loopback console",
                            fix: "use http://127.0.0.1:<port> (or start serve with --host and --api-token)")
        }
        return nil
    }

    /// `127.x.x.x`, `localhost` or `[::1]`, with or without `:port`.
    static func isLoopbackHost(_ hostHeader: String) -> Bool {
        var host = hostHeader.lowercased()
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return false }
            return host[host.index(after: host.startIndex)..<end] == "::1"
        }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        return host == "localhost" || HTTPServer.isLoopback(host) && !host.contains(":")
    }

    /// Constant-time for equal lengths.
    static func equal(_ given: String, _ expected: String) -> Bool {
        let givenBytes = Array(given.utf8), expectedBytes = Array(expected.utf8)
        guard givenBytes.count == expectedBytes.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<givenBytes.count { difference |= givenBytes[index] ^ expectedBytes[index] }
        return difference == 0
    }
}
