/// The `reason` string of an APNs error response (`{"reason": "..."}`), spelled exactly as Apple does.
///
/// An open set: a reason APNs adds later still round-trips as its raw string, and
/// ``APNsDisposition/classify(status:reason:retryAfterSeconds:policy:)`` then falls back to the HTTP status.
/// Sources: Apple, "Handling notification responses from APNs" (device-token endpoint, spec §4.2) and
/// "Handling error responses from broadcast and channel management" (spec §4.3).
public struct APNsReason: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    // MARK: 400 — device-token endpoint (§4.2)

    /// 400: `apns-collapse-id` is longer than 64 bytes. Fix the header.
    public static let badCollapseId: APNsReason = "BadCollapseId"
    /// 400: the device token is invalid, or was issued for the other environment (sandbox vs production). Never retry; drop the token.
    public static let badDeviceToken: APNsReason = "BadDeviceToken"
    /// 400: `apns-expiration` is not a valid UNIX-seconds value. Fix the header.
    public static let badExpirationDate: APNsReason = "BadExpirationDate"
    /// 400: `apns-id` is not a canonical UUID (8-4-4-4-12). Fix the header.
    public static let badMessageId: APNsReason = "BadMessageId"
    /// 400: `apns-priority` is not an allowed value (5 or 10 for Live Activities; 1 also for broadcast). Fix the header.
    public static let badPriority: APNsReason = "BadPriority"
    /// 400: `apns-topic` is invalid. Fix the header (`<bundle id>.push-type.liveactivity`).
    public static let badTopic: APNsReason = "BadTopic"
    /// 400: the token does not match `apns-topic` — typically the `.push-type.liveactivity` suffix is missing. Never retry as is; drop the token if the topic is right.
    public static let deviceTokenNotForTopic: APNsReason = "DeviceTokenNotForTopic"
    /// 400: one header was sent twice. Fix the request.
    public static let duplicateHeaders: APNsReason = "DuplicateHeaders"
    /// 400: the connection was idle too long; open a new connection and retry.
    public static let idleTimeout: APNsReason = "IdleTimeout"
    /// 400: `apns-push-type` is not valid (must be `liveactivity`). Fix the header.
    public static let invalidPushType: APNsReason = "InvalidPushType"
    /// 400: the `:path` has no device token. Fix the request.
    public static let missingDeviceToken: APNsReason = "MissingDeviceToken"
    /// 400: `apns-topic` is missing (mandatory with token auth). Fix the request.
    public static let missingTopic: APNsReason = "MissingTopic"
    /// 400: the body is empty. Fix the request.
    public static let payloadEmpty: APNsReason = "PayloadEmpty"
    /// 400: the topic may not be sent to (device), or a push-type suffix was added to the bundle id (broadcast). Fix the request.
    public static let topicDisallowed: APNsReason = "TopicDisallowed"

    // MARK: 400 — broadcast and channel endpoints (§4.3)

    /// 400: the app's Broadcast capability is off (enable it on developer.apple.com). Fix the setup.
    public static let featureNotEnabled: APNsReason = "FeatureNotEnabled"
    /// 400: `apns-channel-id` is missing. Fix the request.
    public static let missingChannelId: APNsReason = "MissingChannelId"
    /// 400: `apns-channel-id` is badly encoded or too long. Fix the request.
    public static let badChannelId: APNsReason = "BadChannelId"
    /// 400: the channel does not exist (never created, deleted, or other environment). Fix the request.
    public static let channelNotRegistered: APNsReason = "ChannelNotRegistered"
    /// 400: the JSON request has an attribute APNs does not recognise. Fix the request.
    public static let badRequestParams: APNsReason = "BadRequestParams"
    /// 400: the JSON request cannot be parsed. Fix the request.
    public static let badRequestPayload: APNsReason = "BadRequestPayload"
    /// 400: `apns-push-type` is missing. Fix the request.
    public static let missingPushType: APNsReason = "MissingPushType"
    /// 400: the app already has the maximum number of channels (10 000 per environment). Delete channels first.
    public static let cannotCreateChannelConfig: APNsReason = "CannotCreateChannelConfig"

    // MARK: 403 — credentials

    /// 403: the certificate is bad. Fix credentials.
    public static let badCertificate: APNsReason = "BadCertificate"
    /// 403: the certificate is for the other environment. Fix credentials.
    public static let badCertificateEnvironment: APNsReason = "BadCertificateEnvironment"
    /// 403: the provider token (JWT) `iat` is older than one hour. The client re-signs once and retries.
    public static let expiredProviderToken: APNsReason = "ExpiredProviderToken"
    /// 403: the action is not allowed. Never retry.
    public static let forbidden: APNsReason = "Forbidden"
    /// 403: the JWT does not verify (wrong key id, team id or signature). Fix credentials.
    public static let invalidProviderToken: APNsReason = "InvalidProviderToken"
    /// 403: no `authorization` header. Fix credentials.
    public static let missingProviderToken: APNsReason = "MissingProviderToken"
    /// 403: the key id is unrelated to the keys already used on this connection. Use one connection per key.
    public static let unrelatedKeyIdInToken: APNsReason = "UnrelatedKeyIdInToken"
    /// 403: the key is restricted to the other environment. Use the key for this environment.
    public static let badEnvironmentKeyIdInToken: APNsReason = "BadEnvironmentKeyIdInToken"
    /// 403 (broadcast): the token's bundle ids do not include the bundle id in the path. Fix credentials.
    public static let topicMismatch: APNsReason = "TopicMismatch"

    // MARK: 404, 405, 410, 413

    /// 404: the `:path` is wrong. Fix the request.
    public static let badPath: APNsReason = "BadPath"
    /// 405: the method is not allowed (pushes are POST). Fix the request.
    public static let methodNotAllowed: APNsReason = "MethodNotAllowed"
    /// 410: the token expired. Never retry; drop it.
    public static let expiredToken: APNsReason = "ExpiredToken"
    /// 410: the token is no longer active for the topic (app removed, activity gone). Never retry; drop it unless the app registers it again after the response `timestamp`.
    public static let unregistered: APNsReason = "Unregistered"
    /// 413: the body is over 4096 bytes (5120 broadcast). Never retry as is.
    public static let payloadTooLarge: APNsReason = "PayloadTooLarge"

    // MARK: 429, 500, 503

    /// 429: the provider token was replaced more often than once per 20 minutes on a connection. Slow the refresh, then retry.
    public static let tooManyProviderTokenUpdates: APNsReason = "TooManyProviderTokenUpdates"
    /// 429: too many requests to the same device token (or channel). Retry after a delay.
    public static let tooManyRequests: APNsReason = "TooManyRequests"
    /// 500: APNs internal error. Retry no sooner than 15 minutes, with back-off.
    public static let internalServerError: APNsReason = "InternalServerError"
    /// 503: the service is unavailable. Retry no sooner than 15 minutes, with back-off.
    public static let serviceUnavailable: APNsReason = "ServiceUnavailable"
    /// 503 (broadcast endpoints): Apple's spelling with a space. Retry no sooner than 15 minutes.
    public static let serviceUnavailableSpaced: APNsReason = "Service Unavailable"
    /// 503: the server is shutting down. Retry no sooner than 15 minutes (on a new connection).
    public static let shutdown: APNsReason = "Shutdown"

    /// Every reason Apple documents for the device-token, broadcast and channel endpoints.
    public static let documented: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed,
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
        .badRequestPayload, .missingPushType, .cannotCreateChannelConfig,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
        .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch,
        .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable,
        .serviceUnavailableSpaced, .shutdown,
    ]
}
