/// Why the console's HTTP server could not start: a ``Kind`` to branch on, the address and option concerned, the
/// reason and the fix, kept apart.
///
/// ``description`` joins them as `activity-push serve` prints them: `reason; fix`, e.g.
/// `--host 'localhost6' is not a numeric IP address; use e.g. 127.0.0.1, ::1 or 0.0.0.0`.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public let rawValue: String
        /// A kind by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// `not-numeric-host`: the address to bind is not a numeric IPv4 or IPv6 address.
        public static let notNumericHost = Kind(rawValue: "not-numeric-host")
        /// `needs-api-token`: a non-loopback address without an API token (anyone could send pushes).
        public static let needsAPIToken = Kind(rawValue: "needs-api-token")
        /// `bad-port`: the port is outside 0…65535.
        public static let badPort = Kind(rawValue: "bad-port")
        /// `cannot-listen`: binding failed (the port is in use, or the address is not on this machine).
        public static let cannotListen = Kind(rawValue: "cannot-listen")
    }

    /// What went wrong.
    public var kind: Kind
    /// The command-line option to change (`--host`, `--port`, `--api-token-file`).
    public var option: String
    /// The address that was given.
    public var host: String
    /// The port that was given, for ``Kind/badPort`` and ``Kind/cannotListen``.
    public var port: Int?
    /// What is wrong, without the fix.
    public var reason: String
    /// What to do.
    public var fix: String

    /// An error of `kind`.
    package init(_ kind: Kind, option: String, host: String, port: Int? = nil, _ reason: String, fix: String) {
        self.kind = kind
        self.option = option
        self.host = host
        self.port = port
        self.reason = reason
        self.fix = fix
    }

    /// `host` is not a numeric IP address (the server binds numeric addresses only).
    package static func notNumeric(host: String) -> HTTPServerError {
        HTTPServerError(.notNumericHost, option: "--host", host: host, "--host '\(host)' is not a numeric IP address",
                        fix: "use e.g. 127.0.0.1, ::1 or 0.0.0.0")
    }

    /// `reason; fix`.
    public var description: String { reason + "; " + fix }
}
