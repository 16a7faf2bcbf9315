import ActivityPushCore
import ActivityPushAPNs

/// What the queue does after one attempt. Built on Apple's guidance ("Handling notification responses from
/// APNs", spec §4.2; ``APNsDisposition`` is the client's classification of the same table), with the queue's
/// own choices for what Apple leaves open. The table, first match wins (`n` = attempts made so far for this
/// push, including this one; `u` = a uniform random number in [0, 1)):
///
/// | # | Status | Reason | Queue decision |
/// |---|---|---|---|
/// | 1 | 2xx | – | **sent** |
/// | 2 | 410 | any (`Unregistered`, `ExpiredToken`) | **dead**, token marked inactive: later pushes to it are not sent |
/// | 3 | any | `BadDeviceToken`, `DeviceTokenNotForTopic`, `Unregistered`, `ExpiredToken`, `Forbidden`, `PayloadTooLarge` | **dead** — Apple: never retry |
/// | 4 | 403 | `ExpiredProviderToken` | sign a new JWT, **retry at once** |
/// | 5 | 400 | `IdleTimeout` | **retry at once** on a new connection |
/// | 6 | 429 | `TooManyProviderTokenUpdates` | **retry** after `max(tokenUpdatesDelaySeconds, backoff)` (JWT is not re-signed) |
/// | 7 | 429 | `TooManyRequests`, any | **retry** after `Retry-After` when given, else `backoff` |
/// | 8 | 500, 503, any 5xx | any | **retry** after `min(serverErrorDelaySeconds·2^(n−1), serverErrorMaxDelaySeconds)·(1 + 0.1u)`, and not before `Retry-After` — never sooner than 15 min by default |
/// | 9 | 403 | any other (`InvalidProviderToken`, `BadEnvironmentKeyIdInToken`, …) | **retry** after `credentialErrorDelaySeconds`: the push is fine, the worker's key is not; it goes once the key is fixed |
/// | 10 | 4xx | any other (`BadTopic`, `BadPriority`, `ChannelNotRegistered`, …) | **dead** with the reason: the stored bytes would fail again (fix, then `queue dead --retry`) |
/// | 11 | – | no response (transport failure) | **retry** after `backoff` |
/// | 12 | any retry with `n ≥ maxAttempts` | – | **dead** `MaxAttemptsExceeded` (the last reason in the journal note) |
///
/// `backoff = min(backoffBaseSeconds·2^(n−1), backoffMaxSeconds)·(0.5 + 0.5u)` (exponential, "equal jitter").
/// Retries always resend the stored bytes with the same `apns-id`.
public struct QueueRetryPolicy: Sendable, Hashable {
    /// Attempts before a retryable push is dead-lettered. Default 8.
    public var maxAttempts: Int
    /// 500/503: Apple says no sooner than 15 minutes. Default 900 s (configurable, e.g. short in tests).
    public var serverErrorDelaySeconds: Double
    /// Cap of the growing 5xx delay. Default 4 h.
    public var serverErrorMaxDelaySeconds: Double
    /// First step of the exponential backoff (429 without `Retry-After`, transport failures). Default 2 s.
    public var backoffBaseSeconds: Double
    /// Cap of the exponential backoff. Default 1 h.
    public var backoffMaxSeconds: Double
    /// 429 `TooManyProviderTokenUpdates`: minimum wait. Default 60 s.
    public var tokenUpdatesDelaySeconds: Double
    /// 403 credential errors other than `ExpiredProviderToken`. Default 300 s.
    public var credentialErrorDelaySeconds: Double

    public init(maxAttempts: Int = 8, serverErrorDelaySeconds: Double = 900, serverErrorMaxDelaySeconds: Double = 14_400,
                backoffBaseSeconds: Double = 2, backoffMaxSeconds: Double = 3600, tokenUpdatesDelaySeconds: Double = 60,
                credentialErrorDelaySeconds: Double = 300) {
        self.maxAttempts = maxAttempts
        self.serverErrorDelaySeconds = serverErrorDelaySeconds
        self.serverErrorMaxDelaySeconds = serverErrorMaxDelaySeconds
        self.backoffBaseSeconds = backoffBaseSeconds
        self.backoffMaxSeconds = backoffMaxSeconds
        self.tokenUpdatesDelaySeconds = tokenUpdatesDelaySeconds
        self.credentialErrorDelaySeconds = credentialErrorDelaySeconds
    }

    /// Reasons Apple says never to retry (rule 3).
    public static let neverRetry: Set<APNsReason> = [
        .badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken, .forbidden, .payloadTooLarge,
    ]

    /// The decision for one attempt.
    public enum Decision: Sendable, Hashable {
        case sent
        /// Try again no sooner than `afterSeconds` from now; `refreshCredentials`: sign a new JWT first.
        case retry(afterSeconds: Double, refreshCredentials: Bool, rule: Int)
        /// Dead-letter with `reason`; `tokenInactive`: also mark the token so later pushes to it are not sent.
        case dead(reason: String, tokenInactive: Bool, rule: Int)

        /// The table row that decided.
        public var rule: Int {
            switch self {
            case .sent: return 1
            case .retry(_, _, let r), .dead(_, _, let r): return r
            }
        }
    }

    /// Queue-side dead-letter reason after the last allowed attempt.
    public static let maxAttemptsReason = "MaxAttemptsExceeded"

    /// `min(base·2^(n−1), max)·(0.5 + 0.5u)`.
    public func backoff(attempts n: Int, unitRandom u: Double) -> Double {
        let exp = min(backoffBaseSeconds * pow2(n - 1), backoffMaxSeconds)
        return exp * (0.5 + 0.5 * clamp(u))
    }

    /// Decides what to do after attempt number `attempts` (1-based) got `result`.
    /// - Parameter unitRandom: a uniform random number in [0, 1) for jitter (pass a fixed value in tests).
    public func decide(_ result: APNsResult, attempts: Int, unitRandom: Double) -> Decision {
        let d = classify(result, attempts: attempts, unitRandom: unitRandom)
        if case .retry = d, attempts >= maxAttempts {
            return .dead(reason: Self.maxAttemptsReason, tokenInactive: false, rule: 12)
        }
        return d
    }

    private func classify(_ result: APNsResult, attempts n: Int, unitRandom u: Double) -> Decision {
        guard case .response(let r) = result else {
            return .retry(afterSeconds: backoff(attempts: n, unitRandom: u), refreshCredentials: false, rule: 11)
        }
        let reason = r.reason
        if (200..<300).contains(r.status) { return .sent }
        if r.status == 410 { return .dead(reason: reason?.rawValue ?? "Unregistered", tokenInactive: true, rule: 2) }
        if let reason, Self.neverRetry.contains(reason) {
            let inactive = reason == .unregistered || reason == .expiredToken
            return .dead(reason: reason.rawValue, tokenInactive: inactive, rule: 3)
        }
        if reason == .expiredProviderToken { return .retry(afterSeconds: 0, refreshCredentials: true, rule: 4) }
        if reason == .idleTimeout { return .retry(afterSeconds: 0, refreshCredentials: false, rule: 5) }
        if reason == .tooManyProviderTokenUpdates {
            return .retry(afterSeconds: max(tokenUpdatesDelaySeconds, backoff(attempts: n, unitRandom: u)),
                          refreshCredentials: false, rule: 6)
        }
        switch r.status {
        case 429:
            if let ra = r.retryAfterSeconds, ra >= 0 { return .retry(afterSeconds: ra, refreshCredentials: false, rule: 7) }
            return .retry(afterSeconds: backoff(attempts: n, unitRandom: u), refreshCredentials: false, rule: 7)
        case 500...599:
            let grown = min(serverErrorDelaySeconds * pow2(n - 1), max(serverErrorMaxDelaySeconds, serverErrorDelaySeconds))
            let delay = max(grown * (1 + 0.1 * clamp(u)), r.retryAfterSeconds ?? 0)
            return .retry(afterSeconds: delay, refreshCredentials: false, rule: 8)
        case 403:
            return .retry(afterSeconds: credentialErrorDelaySeconds, refreshCredentials: false, rule: 9)
        default:
            return .dead(reason: reason?.rawValue ?? "HTTP\(r.status)", tokenInactive: false, rule: 10)
        }
    }

    private func pow2(_ k: Int) -> Double {
        var v = 1.0
        for _ in 0..<min(max(k, 0), 62) { v *= 2 }
        return v
    }

    private func clamp(_ u: Double) -> Double { u.isFinite ? min(max(u, 0), 1) : 0 }
}
