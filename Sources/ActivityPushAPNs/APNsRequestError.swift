import ActivityPushCore

/// A request the client refuses before sending: the push and the destination do not fit together, or the device
/// token is not hex.
///
/// Thrown by ``APNsClient/send(_:deviceToken:)`` and ``APNsClient/broadcast(_:)`` before anything is written to
/// a connection, so nothing was sent and resending the same call fails the same way. ``description`` is
/// `reason; fix`, e.g. `this push was built for a broadcast channel; send it with broadcast(_:)`.
public struct APNsRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public let rawValue: String
        /// A kind by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// `broadcast-push-to-device`: a push built for a broadcast channel was given to `send(_:deviceToken:)`.
        public static let broadcastPushToDevice = Kind(rawValue: "broadcast-push-to-device")
        /// `device-push-to-channel`: a push built for a device token was given to `broadcast(_:)`.
        public static let devicePushToChannel = Kind(rawValue: "device-push-to-channel")
        /// `bad-device-token`: the device token is not hex (``DeviceToken``); ``redactedToken`` is set.
        public static let badDeviceToken = Kind(rawValue: "bad-device-token")
    }

    /// What went wrong.
    public var kind: Kind
    /// The device token at fault, redacted (``DeviceToken/redacted(_:)``); nil for the other kinds.
    public var redactedToken: String?
    /// What is wrong, without the fix.
    public var reason: String
    /// What to do.
    public var fix: String

    /// An error of `kind`.
    package init(_ kind: Kind, redactedToken: String? = nil, _ reason: String, fix: String) {
        self.kind = kind
        self.redactedToken = redactedToken
        self.reason = reason
        self.fix = fix
    }

    /// A token that ``DeviceToken`` refused.
    package init(_ tokenError: DeviceTokenError) {
        self.init(.badDeviceToken, redactedToken: tokenError.redactedToken,
                  "device token '\(tokenError.redactedToken)' is not hex", fix: DeviceTokenError.fix)
    }

    /// `reason; fix`.
    public var description: String { reason + "; " + fix }
}
