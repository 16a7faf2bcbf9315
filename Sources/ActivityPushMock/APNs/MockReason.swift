/// An APNs error `reason`, spelled exactly as Apple spells it ("Handling notification responses from APNs",
/// "Handling error responses from Apple Push Notification service"). An open set: the mock only answers with
/// the ones below, but an unknown value (e.g. read back from a journal) still round-trips.
///
/// Internal to the mock on purpose: the APNs client has its own `APNsReason` in ActivityPushAPNs, and this
/// module may depend only on ActivityPushCore.
struct MockReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    let rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }
    var description: String { rawValue }

    // 400
    static let badCollapseId = MockReason(rawValue: "BadCollapseId")
    static let badDeviceToken = MockReason(rawValue: "BadDeviceToken")
    static let badExpirationDate = MockReason(rawValue: "BadExpirationDate")
    static let badMessageId = MockReason(rawValue: "BadMessageId")
    static let badPriority = MockReason(rawValue: "BadPriority")
    static let badTopic = MockReason(rawValue: "BadTopic")
    static let deviceTokenNotForTopic = MockReason(rawValue: "DeviceTokenNotForTopic")
    static let duplicateHeaders = MockReason(rawValue: "DuplicateHeaders")
    static let invalidPushType = MockReason(rawValue: "InvalidPushType")
    static let missingDeviceToken = MockReason(rawValue: "MissingDeviceToken")
    static let missingTopic = MockReason(rawValue: "MissingTopic")
    static let payloadEmpty = MockReason(rawValue: "PayloadEmpty")
    static let topicDisallowed = MockReason(rawValue: "TopicDisallowed")
    // 400, broadcast and channel management
    static let missingChannelId = MockReason(rawValue: "MissingChannelId")
    static let badChannelId = MockReason(rawValue: "BadChannelId")
    static let channelNotRegistered = MockReason(rawValue: "ChannelNotRegistered")
    static let badRequestParams = MockReason(rawValue: "BadRequestParams")
    static let badRequestPayload = MockReason(rawValue: "BadRequestPayload")
    static let missingPushType = MockReason(rawValue: "MissingPushType")
    static let cannotCreateChannelConfig = MockReason(rawValue: "CannotCreateChannelConfig")
    // 403
    static let expiredProviderToken = MockReason(rawValue: "ExpiredProviderToken")
    static let invalidProviderToken = MockReason(rawValue: "InvalidProviderToken")
    static let missingProviderToken = MockReason(rawValue: "MissingProviderToken")
    // 404, 405, 410, 413
    static let badPath = MockReason(rawValue: "BadPath")
    static let methodNotAllowed = MockReason(rawValue: "MethodNotAllowed")
    static let unregistered = MockReason(rawValue: "Unregistered")
    static let payloadTooLarge = MockReason(rawValue: "PayloadTooLarge")
    // 429
    static let tooManyProviderTokenUpdates = MockReason(rawValue: "TooManyProviderTokenUpdates")
    static let tooManyRequests = MockReason(rawValue: "TooManyRequests")
    // 5xx
    static let internalServerError = MockReason(rawValue: "InternalServerError")
    static let serviceUnavailable = MockReason(rawValue: "ServiceUnavailable")
    /// Broadcast/channel endpoints spell 503 with a space (Apple's error table, sic).
    static let serviceUnavailableBroadcast = MockReason(rawValue: "Service Unavailable")
    static let shutdown = MockReason(rawValue: "Shutdown")
}
