import ActivityPushAPNs

/// A channel operation that did not happen, with what to do about it.
///
/// ``kind`` sorts it for callers (the console maps it to an HTTP status, the CLI to an exit status);
/// ``description`` is one line naming the channel or app, and ``fix`` the next step.
public struct ChannelError: Error, Sendable, CustomStringConvertible {
    /// The class of the failure. An open set of names.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public var rawValue: String
        /// Makes a kind from its name; any string is accepted (an open set).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The ``rawValue``.
        public var description: String { rawValue }
        /// The app already has ``ActivityPushCore/APNsLimits/channelsPerAppPerEnvironment`` live channels in the
        /// environment; Apple was not called.
        public static let limitReached = Kind(rawValue: "channel-limit")
        /// The channel serves another activity that has not ended; a second activity on it is refused.
        public static let inUse = Kind(rawValue: "channel-in-use")
        /// APNs answered with an error status (its `reason` is in the message).
        public static let rejected = Kind(rawValue: "apns-rejected")
        /// No answer from APNs (connection, TLS, timeout); the create may or may not have happened at Apple.
        public static let unreachable = Kind(rawValue: "apns-unreachable")
        /// The channel is not known (not in the registry, or Apple answered `ChannelNotRegistered`).
        public static let notFound = Kind(rawValue: "not-found")
        /// The request itself is wrong (bad storage policy, environment, id).
        public static let badRequest = Kind(rawValue: "bad-request")
        /// The service cannot call Apple: no APNs credentials were given.
        public static let notConfigured = Kind(rawValue: "not-configured")
        /// The registry's database failed.
        public static let store = Kind(rawValue: "store")
    }

    /// The class of the failure.
    public var kind: Kind
    /// What failed, naming the channel or app.
    public var description: String
    /// What to do next, when there is something to do.
    public var fix: String?
    /// The APNs status when APNs answered (``Kind/rejected``), else nil.
    public var status: Int?

    /// Makes an error; each parameter sets the property of the same name.
    public init(_ kind: Kind, _ description: String, fix: String? = nil, status: Int? = nil) {
        self.kind = kind
        self.description = description
        self.fix = fix
        self.status = status
    }
}
