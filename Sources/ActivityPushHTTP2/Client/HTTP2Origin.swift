/// Where a request goes: scheme, host and port of an absolute URL, and the path. `https` speaks TLS with ALPN
/// `h2`; `http` speaks cleartext HTTP/2 with prior knowledge (h2c, RFC 9113 §3.3).
package struct HTTP2Origin: Sendable, Hashable, CustomStringConvertible {
    package var secure: Bool
    /// Host name or address; IPv6 without brackets.
    package var host: String
    package var port: Int

    /// `host:port` as the `:authority` pseudo-header and CONNECT want it (IPv6 in brackets).
    package var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
    package var scheme: String { secure ? "https" : "http" }
    package var description: String { "\(scheme)://\(authority)" }

    package init(secure: Bool, host: String, port: Int) {
        self.secure = secure
        self.host = host
        self.port = port
    }

    /// Splits `https://host[:port]/path?query` (or `http://`). nil when the URL is not absolute http(s) or the
    /// port is not a number 1–65535.
    package static func parse(_ url: String) -> (origin: HTTP2Origin, path: String)? {
        let secure: Bool
        var rest: Substring
        if url.hasPrefix("https://") { secure = true; rest = url.dropFirst(8) }
        else if url.hasPrefix("http://") { secure = false; rest = url.dropFirst(7) }
        else { return nil }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        rest = authority
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return nil }
        var port = secure ? 443 : 80
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { return nil }
            port = p
        }
        return (HTTP2Origin(secure: secure, host: String(host), port: port), path)
    }
}
