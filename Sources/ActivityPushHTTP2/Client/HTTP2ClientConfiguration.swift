/// How an ``HTTP2Client`` connects: the scheduling policy, the CA to trust, and the HTTPS proxy.
package struct HTTP2ClientConfiguration: Sendable, Hashable {
    package var policy: HTTP2PoolScheduler.Policy
    /// PEM file of CA certificates to trust instead of the system store. nil: system CAs.
    package var caFile: String?
    /// HTTP proxy for `https` origins (an HTTP CONNECT tunnel, RFC 9110 §9.3.6). nil: connect directly.
    package var proxy: HTTP2Origin?
    /// Host names (or `.suffix`es, or `*`) reached without the proxy, as in `NO_PROXY`.
    package var noProxy: [String]

    package init(policy: HTTP2PoolScheduler.Policy = .init(), caFile: String? = nil, proxy: HTTP2Origin? = nil,
                 noProxy: [String] = []) {
        self.policy = policy
        self.caFile = caFile
        self.proxy = proxy
        self.noProxy = noProxy
    }

    /// `https_proxy` / `HTTPS_PROXY` (an `http://host:port` URL; the lowercase one wins, as in curl) and
    /// `no_proxy` / `NO_PROXY` from an environment.
    /// - Throws: ``HTTP2ClientError`` naming the variable when the proxy URL is not `http://host[:port]`.
    package static func proxySettings(from environment: [String: String]) throws(HTTP2ClientError) -> (HTTP2Origin?, [String]) {
        let noProxy = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        let name = environment["https_proxy"] != nil ? "https_proxy" : "HTTPS_PROXY"
        guard let value = environment[name], !value.isEmpty else { return (nil, noProxy) }
        let url = value.contains("://") ? value : "http://" + value
        guard let (origin, _) = HTTP2Origin.parse(url), !origin.secure else {
            throw HTTP2ClientError(.badProxy, setting: name, "\(name)=\(value): not an http:// proxy URL",
                                   fix: "set \(name) to http://host:port")
        }
        var proxy = origin
        let authority = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        if !(authority.split(separator: "]").last ?? "").contains(":") { proxy.port = 1080 }   // curl's default
        return (proxy, noProxy)
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
