import ActivityPushCore
/// Delays used when classifying failures. All values are seconds (durations, not points in time).
///
/// Source of the defaults: Apple, "Handling notification responses from APNs" (spec §4.2): retry 5xx no sooner
/// than 15 minutes. Apple gives no figure for the others (429 says only "retry with a delay"; a connection
/// failure says nothing), so their defaults (60 s, 60 s, 1 s) are this project's.
public struct APNsRetryPolicy: Sendable, Hashable {
    /// 500 / 503: Apple says retry no sooner than 15 minutes. Default 900.
    public var serverErrorDelaySeconds: Double
    /// 429 `TooManyRequests` without `Retry-After`. Default 60.
    public var tooManyRequestsDelaySeconds: Double
    /// 429 `TooManyProviderTokenUpdates`: the token is kept ≥ 20 min from now on; retry after this. Default 60.
    public var tokenUpdatesDelaySeconds: Double
    /// No HTTP response (connection failed or dropped). Default 1.
    public var transportDelaySeconds: Double

    /// Makes a policy; every value is seconds, the defaults as documented on each property.
    public init(serverErrorDelaySeconds: Double = 900, tooManyRequestsDelaySeconds: Double = 60,
                tokenUpdatesDelaySeconds: Double = 60, transportDelaySeconds: Double = 1) {
        self.serverErrorDelaySeconds = serverErrorDelaySeconds
        self.tooManyRequestsDelaySeconds = tooManyRequestsDelaySeconds
        self.tokenUpdatesDelaySeconds = tokenUpdatesDelaySeconds
        self.transportDelaySeconds = transportDelaySeconds
    }
}

/// One row of Apple's response table ("Handling notification responses from APNs", spec §4.2–§4.3), the one
/// place where a status and reason are matched to what to do. ``APNsDisposition/classify(status:reason:retryAfterSeconds:policy:)``
/// (the client, `send`) and the queue's `QueueRetryPolicy` (which adds only backoff, attempt limits and token
/// marking) both read it; `worker --help` prints it. Rows are tried in ``all`` order, first match wins.
public struct APNsResponseRule: Sendable, Hashable, CustomStringConvertible {
    /// Stable name of the row (`success`, `bad-token`, …), used by the queue to attach its delay.
    public var name: String
    /// Statuses the row matches, as printed (`2xx`, `410`, `any`).
    public var statusText: String
    /// Reasons the row matches, as printed (Apple's spelling; `any` for every reason).
    public var reasonText: String
    /// What Apple says to do, in a few words (from spec §4.2).
    public var appleSays: String
    let matches: @Sendable (Int, APNsReason?) -> Bool

    /// `<statusText> <reasonText>`, e.g. `410 (or any) Unregistered, ExpiredToken, any with 410`.
    public var description: String { "\(statusText) \(reasonText)" }

    /// Two rules are equal when their ``name``s are (the match closure is not compared).
    public static func == (lhs: APNsResponseRule, rhs: APNsResponseRule) -> Bool { lhs.name == rhs.name }
    /// Hashes the ``name`` only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Apple: the request was accepted (any 2xx; `200` for a push, `201`/`204` for channel management).
    public static let success = APNsResponseRule(name: "success", statusText: "2xx", reasonText: "–",
                                                 appleSays: "accepted") { status, _ in (200..<300).contains(status) }
    /// Apple: never retry; the token is wrong for this app or environment (it may be fine in the other one).
    public static let badToken = APNsResponseRule(
        name: "bad-token", statusText: "400", reasonText: "BadDeviceToken, DeviceTokenNotForTopic",
        appleSays: "never retry (wrong token, topic or environment)") { _, reason in
        reason == .badDeviceToken || reason == .deviceTokenNotForTopic
    }
    /// Apple: never retry; the token is no longer active. The 410 body's `timestamp` says since when (ms).
    public static let tokenGone = APNsResponseRule(
        name: "token-gone", statusText: "410 (or any)", reasonText: "Unregistered, ExpiredToken, any with 410",
        appleSays: "never retry; drop the token") { status, reason in
        status == 410 || reason == .unregistered || reason == .expiredToken
    }
    /// Apple: the connection was idle too long; open a new one and send again.
    public static let idleTimeout = APNsResponseRule(
        name: "idle-timeout", statusText: "400", reasonText: "IdleTimeout",
        appleSays: "reconnect and send again") { _, reason in reason == .idleTimeout }
    /// Apple: the provider token is older than 60 minutes; sign a new one and retry.
    public static let expiredProviderToken = APNsResponseRule(
        name: "expired-provider-token", statusText: "403", reasonText: "ExpiredProviderToken",
        appleSays: "sign a new provider token, retry") { _, reason in reason == .expiredProviderToken }
    /// Apple lists 403 `Forbidden` ("The specified action is not allowed") among the reasons never to retry
    /// (spec §4.2, §8 rule 8): resending the same request fails again, unlike the credential 403s below
    /// which a fixed key cures.
    public static let forbidden = APNsResponseRule(
        name: "forbidden", statusText: "403", reasonText: "Forbidden",
        appleSays: "never retry (action not allowed)") { _, reason in reason == .forbidden }
    /// Apple: slow down provider-token refreshes (keep one token ≥ 20 minutes).
    public static let tokenUpdates = APNsResponseRule(
        name: "token-updates", statusText: "429", reasonText: "TooManyProviderTokenUpdates",
        appleSays: "refresh the JWT less often (≥ 20 min)") { _, reason in reason == .tooManyProviderTokenUpdates }
    /// Apple: too many requests to one token; retry with a delay (`Retry-After` when given).
    public static let tooManyRequests = APNsResponseRule(
        name: "too-many-requests", statusText: "429", reasonText: "TooManyRequests, any",
        appleSays: "retry with a delay") { status, _ in status == 429 }
    /// Apple: 5xx may be retried, no sooner than 15 minutes, with back-off.
    public static let serverError = APNsResponseRule(
        name: "server-error", statusText: "5xx", reasonText: "any",
        appleSays: "retry after ≥ 15 min with back-off") { status, _ in (500...599).contains(status) }
    /// Apple: fix the key, team, environment or signature; every request with these credentials fails.
    public static let credentials = APNsResponseRule(
        name: "credentials", statusText: "403", reasonText: "any other (InvalidProviderToken, …)",
        appleSays: "fix credentials") { status, _ in status == 403 }
    /// Apple: fix the request (header, path, size, channel) before sending it again.
    public static let badRequest = APNsResponseRule(
        name: "bad-request", statusText: "4xx", reasonText: "any other (BadTopic, PayloadTooLarge, …)",
        appleSays: "fix the request") { _, _ in true }

    /// Every response row, in match order.
    public static let all: [APNsResponseRule] = [
        .success, .badToken, .tokenGone, .idleTimeout, .expiredProviderToken, .forbidden, .tokenUpdates,
        .tooManyRequests, .serverError, .credentials, .badRequest,
    ]

    /// The first row that matches a response.
    public static func matching(status: Int, reason: APNsReason?) -> APNsResponseRule {
        all.first { $0.matches(status, reason) } ?? .badRequest
    }

    /// The rows after which a token registered by the app is retired for good: `410` `Unregistered` /
    /// `ExpiredToken` (the token is no longer active) and `400` `BadDeviceToken` / `DeviceTokenNotForTopic`
    /// (the token was registered for this app and environment, so it will not work there). Apple: never retry
    /// these (spec §4.2). The activity service reads it; the queue's own inactive-token marking stays on 410 only.
    public static let retiringToken: [APNsResponseRule] = [.badToken, .tokenGone]

    /// True when this answer retires the token it was sent to (see ``retiringToken``).
    public var retiresToken: Bool { Self.retiringToken.contains(self) }
}

/// What a caller (CLI, queue worker) should do with a result. Source: Apple, "Handling notification responses
/// from APNs" (spec §4.2–§4.3): 5xx may be retried after 15 minutes; most 4xx only after fixing the cause;
/// 410, `BadDeviceToken`, `DeviceTokenNotForTopic` and `Forbidden` are never retried.
///
/// The classification (``classify(status:reason:retryAfterSeconds:policy:)``) reads ``APNsResponseRule/all``,
/// first match wins:
///
/// | Row | Status | Reason | Disposition |
/// |---|---|---|---|
/// | success | 2xx | – | `accepted` |
/// | bad-token | 400 | `BadDeviceToken`, `DeviceTokenNotForTopic` | `dropToken` |
/// | token-gone | 410 | `ExpiredToken`, `Unregistered`, any | `dropToken` |
/// | idle-timeout | 400 | `IdleTimeout` | `retry(0)` on a new connection |
/// | expired-provider-token | 403 | `ExpiredProviderToken` (after the client's one re-sign-and-retry also failed) | `fixCredentials` |
/// | forbidden | 403 | `Forbidden` | `fixRequest` — Apple: never retry |
/// | token-updates | 429 | `TooManyProviderTokenUpdates` | `retry(policy.tokenUpdatesDelaySeconds)` |
/// | too-many-requests | 429 | `TooManyRequests`, any | `retry(Retry-After ?? policy.tooManyRequestsDelaySeconds)` |
/// | server-error | 500, 503, any 5xx | any | `retry(max(Retry-After, policy.serverErrorDelaySeconds))` (≥ 15 min by default) |
/// | credentials | 403 | any other | `fixCredentials` |
/// | bad-request | 400, 404, 405, 413, other | any other (`BadTopic`, `PayloadTooLarge`, `ChannelNotRegistered`…) | `fixRequest` |
/// | – | no response | transport failure | `retry(policy.transportDelaySeconds)` (see ``APNsTransportError/kind``) |
public enum APNsDisposition: Sendable, Hashable, CustomStringConvertible {
    /// APNs accepted the request (this says nothing about the device accepting the payload).
    case accepted
    /// Send the same request again, no sooner than this many seconds from now.
    case retry(afterSeconds: Double)
    /// The request is wrong (header, path, size, channel) or not allowed; resending it unchanged fails again.
    case fixRequest
    /// The key, team, environment or token signing is wrong; every request with these credentials fails.
    case fixCredentials
    /// The device token (or push-to-start token) is dead or not for this app/environment: delete it.
    case dropToken

    /// Stable kebab-case name: `accepted`, `retry`, `fix-request`, `fix-credentials`, `drop-token`.
    public var name: String {
        switch self {
        case .accepted: return "accepted"
        case .retry: return "retry"
        case .fixRequest: return "fix-request"
        case .fixCredentials: return "fix-credentials"
        case .dropToken: return "drop-token"
        }
    }

    /// ``name``, except a retry, which reads `retry after N s` (the delay rounded up to whole seconds).
    public var description: String {
        if case .retry(let seconds) = self { return "retry after \(Int(seconds.rounded(.up))) s" }
        return name
    }

    /// The disposition of one row of ``APNsResponseRule/all`` (the table above).
    /// - Parameters:
    ///   - retryAfterSeconds: the response's `Retry-After` as a delay in seconds, when it had one; used by the
    ///     `too-many-requests` and `server-error` rows only.
    ///   - policy: the delays (seconds) for rows where APNs gives none.
    public static func of(_ rule: APNsResponseRule, retryAfterSeconds: Double? = nil,
                          policy: APNsRetryPolicy = .init()) -> APNsDisposition {
        switch rule {
        case .success: return .accepted
        case .badToken, .tokenGone: return .dropToken
        case .idleTimeout: return .retry(afterSeconds: 0)
        case .expiredProviderToken, .credentials: return .fixCredentials
        case .tokenUpdates: return .retry(afterSeconds: policy.tokenUpdatesDelaySeconds)
        case .tooManyRequests: return .retry(afterSeconds: retryAfterSeconds ?? policy.tooManyRequestsDelaySeconds)
        case .serverError: return .retry(afterSeconds: max(retryAfterSeconds ?? 0, policy.serverErrorDelaySeconds))
        default: return .fixRequest
        }
    }

    /// Classifies one APNs answer by the table above: ``APNsResponseRule/matching(status:reason:)``, then
    /// ``of(_:retryAfterSeconds:policy:)``. `retryAfterSeconds` is the response's `Retry-After` as a delay in
    /// seconds (see ``APNsResponse/retryAfterSeconds``).
    public static func classify(status: Int, reason: APNsReason?, retryAfterSeconds: Double? = nil,
                                policy: APNsRetryPolicy = .init()) -> APNsDisposition {
        of(APNsResponseRule.matching(status: status, reason: reason), retryAfterSeconds: retryAfterSeconds, policy: policy)
    }
}
