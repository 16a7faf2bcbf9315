/// How an ``HTTP2Client`` connects: the scheduling policy, the CA to trust, and the HTTPS proxy.
package struct HTTP2ClientConfiguration: Sendable, Hashable {
    package var policy: HTTP2PoolScheduler.Policy
    /// PEM file of CA certificates to trust instead of the system store. nil: system CAs.
    package var caFile: String?
    /// HTTP proxy for `https` origins (an HTTP CONNECT tunnel, RFC 9110 §9.3.6). nil: connect directly.
    package var proxy: HTTP2Origin?
    /// Host names (or `.suffix`es, or `*`) reached without the proxy, as in `NO_PROXY`.
    package var noProxy: [String]
    /// The `Proxy-Authorization` value sent with CONNECT (`Basic base64(user:password)`, RFC 7617), from the
    /// proxy URL's userinfo. Never part of an error message.
    package var proxyAuthorization: String?

    package init(policy: HTTP2PoolScheduler.Policy = .init(), caFile: String? = nil, proxy: HTTP2Origin? = nil,
                 noProxy: [String] = [], proxyAuthorization: String? = nil) {
        self.policy = policy
        self.caFile = caFile
        self.proxy = proxy
        self.noProxy = noProxy
        self.proxyAuthorization = proxyAuthorization
    }

    /// `https_proxy` / `HTTPS_PROXY` (an `http://[user:password@]host[:port]` URL; the lowercase one wins, as in
    /// curl; port 1080 when none is given) and `no_proxy` / `NO_PROXY` from an environment. Userinfo
    /// (percent-decoded) becomes ``proxyAuthorization``; it is never passed to the resolver nor shown in errors.
    /// - Throws: ``HTTP2ClientError`` naming the variable (its password masked) when the proxy URL is not
    ///   `http://[user:password@]host[:port]`.
    package static func proxySettings(from environment: [String: String]) throws(HTTP2ClientError)
        -> (proxy: HTTP2Origin?, noProxy: [String], authorization: String?) {
        let noProxy = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let name = environment["https_proxy"] != nil ? "https_proxy" : "HTTPS_PROXY"
        guard let value = environment[name], !value.isEmpty else { return (nil, noProxy, nil) }
        var url = value.contains("://") ? value : "http://" + value
        // Userinfo: everything between "://" and the last "@" before the first "/" of the authority.
        var authorization: String?
        var shown = url
        if let schemeEnd = url.range(of: "://") {
            let rest = url[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                let userinfo = rest[..<at]
                let colon = userinfo.firstIndex(of: ":")
                let user = colon.map { userinfo[..<$0] } ?? userinfo
                let password = colon.map { userinfo[userinfo.index(after: $0)...] } ?? ""
                guard let decodedUser = percentDecoded(user), let decodedPassword = percentDecoded(password) else {
                    throw HTTP2ClientError(.badProxy, setting: name, "\(name): the proxy URL's user or password has a bad %-escape",
                                           fix: "percent-encode reserved characters of the user and password (e.g. %40 for @)")
                }
                authorization = "Basic " + base64(Array((decodedUser + ":" + decodedPassword).utf8))
                let hostPart = String(rest[rest.index(after: at)...])
                shown = String(url[..<schemeEnd.upperBound]) + (colon == nil ? String(user) : String(user) + ":***") + "@" + hostPart
                url = String(url[..<schemeEnd.upperBound]) + hostPart
            }
        }
        guard let (origin, _) = HTTP2Origin.parse(url), !origin.secure, !origin.host.contains("@") else {
            throw HTTP2ClientError(.badProxy, setting: name, "\(name)=\(shown): not an http:// proxy URL",
                                   fix: "set \(name) to http://[user:password@]host:port")
        }
        var proxy = origin
        let authority = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        if !(authority.split(separator: "]").last ?? "").contains(":") { proxy.port = 1080 }   // curl's default
        return (proxy, noProxy, authorization)
    }

    /// `%XX` escapes decoded (RFC 3986 §2.1); nil when one is malformed or the result is not UTF-8.
    package static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hex), let low = iterator.next().flatMap(hex) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Standard base64 with padding (RFC 4648 §4).
    package static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(position)) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The proxy to use for `origin` (only `https` origins are tunnelled; `NO_PROXY` exempts hosts).
    package func proxy(for origin: HTTP2Origin) -> HTTP2Origin? {
        guard origin.secure, let proxy else { return nil }
        let host = origin.host.lowercased()
        for entry in noProxy {
            if entry == "*" || host == entry || host.hasSuffix(entry.hasPrefix(".") ? entry : "." + entry) { return nil }
        }
        return proxy
    }
}
