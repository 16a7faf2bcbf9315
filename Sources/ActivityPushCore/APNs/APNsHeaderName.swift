/// An APNs request or response header name, lowercase (HTTP/2 requires lowercase names). The one place each
/// name is spelled: use `APNsHeaderName.pushType` (or ``APNsHeaders``' typed accessors), never the literal.
///
/// Source: Apple, "Sending notification requests to APNs" (request: `apns-push-type`, `apns-topic`,
/// `apns-priority`, `apns-expiration`, `apns-id`, `apns-collapse-id`, `authorization`; response: `apns-id`,
/// `apns-unique-id` in the sandbox); "Sending broadcast push notification requests to APNs" and "Sending channel
/// management requests to APNs" (`apns-channel-id`, `apns-request-id`, `apns-message-storage-policy`).
public struct APNsHeaderName: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The lowercase name as sent on the wire.
    public let rawValue: String
    /// A header name; stored lowercase.
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }
    /// A header name from a literal; stored lowercase.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The name as sent.
    public var description: String { rawValue }

    /// `apns-push-type`: `liveactivity` for every Live Activity push (``APNsPushType``).
    public static let pushType: APNsHeaderName = "apns-push-type"
    /// `apns-topic`: `<bundle id>.push-type.liveactivity` for device pushes; not allowed on a broadcast.
    public static let topic: APNsHeaderName = "apns-topic"
    /// `apns-priority`: 10, 5, or (broadcast) 1 (``APNsPriority``).
    public static let priority: APNsHeaderName = "apns-priority"
    /// `apns-expiration`: UNIX seconds; `0` means deliver once or drop. Required on a broadcast.
    public static let expiration: APNsHeaderName = "apns-expiration"
    /// `apns-id`: a canonical UUID identifying the notification (request and response).
    public static let id: APNsHeaderName = "apns-id"
    /// `apns-unique-id`: a UUID in sandbox responses, for the Push Notifications Console's delivery log.
    public static let uniqueID: APNsHeaderName = "apns-unique-id"
    /// `apns-collapse-id`: at most ``APNsLimits/collapseIDBytes`` bytes.
    public static let collapseID: APNsHeaderName = "apns-collapse-id"
    /// `apns-channel-id`: the base64 broadcast channel id (broadcast and channel management).
    public static let channelID: APNsHeaderName = "apns-channel-id"
    /// `apns-request-id`: a UUID identifying a broadcast or channel-management request (request and response).
    public static let requestID: APNsHeaderName = "apns-request-id"
    /// `apns-message-storage-policy`: 0 or 1 on channel creation (``MessageStoragePolicy``).
    public static let messageStoragePolicy: APNsHeaderName = "apns-message-storage-policy"
    /// `authorization`: `bearer <provider token JWT>`.
    public static let authorization: APNsHeaderName = "authorization"

    /// The `apns-*` request headers APNs defines for device, broadcast and channel-management requests (the
    /// sources above); any other `apns-*` request header is ignored by APNs (finding `unknown-header`).
    public static let requestHeaders: [APNsHeaderName] = [
        .pushType, .topic, .priority, .expiration, .id, .collapseID, .channelID, .requestID, .messageStoragePolicy,
    ]

    /// True for the `apns-` headers (the ones a journal may record; `authorization` never is).
    public var isAPNsHeader: Bool { rawValue.hasPrefix("apns-") }
}
