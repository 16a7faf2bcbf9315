/// A client that cannot start (bad CA file, bad proxy variable, no event loop resources) or a request it cannot
/// submit: a ``Kind`` to branch on, the setting concerned, the reason and the fix, kept apart.
package struct HTTP2ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set).
    package struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        package let rawValue: String
        /// A kind by name.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        package var description: String { rawValue }

        /// `bad-ca-file`: the CA file holds no PEM certificate OpenSSL can load; ``setting`` is its path.
        package static let badCAFile = Kind(rawValue: "bad-ca-file")
        /// `bad-proxy`: `https_proxy` / `HTTPS_PROXY` is not an `http://host:port` URL; ``setting`` names it.
        package static let badProxy = Kind(rawValue: "bad-proxy")
        /// `tls`: OpenSSL could not make a TLS context (out of memory).
        package static let tls = Kind(rawValue: "tls")
        /// `event-loop`: the event loop's eventfd could not be made (out of file descriptors).
        package static let eventLoop = Kind(rawValue: "event-loop")
        /// `not-ready`: a request was submitted before the connection finished its HTTP/2 set-up.
        package static let notReady = Kind(rawValue: "not-ready")
        /// `stream-refused`: nghttp2 refused a new stream (ids exhausted, or the session is going away).
        package static let streamRefused = Kind(rawValue: "stream-refused")
        /// `cannot-resolve`: getaddrinfo found no address for the host (``setting`` is the host).
        package static let cannotResolve = Kind(rawValue: "cannot-resolve")
    }

    /// What went wrong.
    package var kind: Kind
    /// The CA file path or the proxy variable's name, when one of them is at fault.
    package var setting: String?
    /// What is wrong, without the fix.
    package var reason: String
    /// What to do, when there is something to do.
    package var fix: String?

    /// An error of `kind`.
    package init(_ kind: Kind, setting: String? = nil, _ reason: String, fix: String? = nil) {
        self.kind = kind
        self.setting = setting
        self.reason = reason
        self.fix = fix
    }

    /// `reason[; fix]`.
    package var message: String { reason + (fix.map { "; \($0)" } ?? "") }
    /// ``message``.
    package var description: String { message }
}
