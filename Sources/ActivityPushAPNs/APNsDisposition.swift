import ActivityPushCore
/// Delays used when classifying failures. All values are seconds.
public struct APNsRetryPolicy: Sendable, Hashable {
    /// 500 / 503: Apple says retry no sooner than 15 minutes. Default 900.
    public var serverErrorDelaySeconds: Double
    /// 429 `TooManyRequests` without `Retry-After`. Default 60.
    public var tooManyRequestsDelaySeconds: Double
    /// 429 `TooManyProviderTokenUpdates`: the token is kept ≥ 20 min from now on; retry after this. Default 60.
    public var tokenUpdatesDelaySeconds: Double
    /// No HTTP response (connection failed or dropped). Default 1.
    public var transportDelaySeconds: Double

    public init(serverErrorDelaySeconds: Double = 900, tooManyRequestsDelaySeconds: Double = 60,
                tokenUpdatesDelaySeconds: Double = 60, transportDelaySeconds: Double = 1) {
        self.serverErrorDelaySeconds = serverErrorDelaySeconds
        self.tooManyRequestsDelaySeconds = tooManyRequestsDelaySeconds
        self.tokenUpdatesDelaySeconds = tokenUpdatesDelaySeconds
        self.transportDelaySeconds = transportDelaySeconds
    }
}

/// What a caller (CLI, queue worker) should do with a result. Source: Apple, "Handling notification responses
/// from APNs" (spec §4.2–§4.3): 5xx may be retried after 15 minutes; most 4xx only after fixing the cause;
/// 410 and `BadDeviceToken` / `DeviceTokenNotForTopic` are never retried.
///
/// The classification table (``classify(status:reason:retryAfterSeconds:policy:)``), first match wins:
///
/// | Status | Reason | Disposition |
/// |---|---|---|
/// | 2xx | – | `accepted` |
/// | 400 | `BadDeviceToken`, `DeviceTokenNotForTopic` | `dropToken` |
/// | 410 | `ExpiredToken`, `Unregistered`, any | `dropToken` |
/// | 400 | `IdleTimeout` | `retry(0)` on a new connection |
/// | 429 | `TooManyProviderTokenUpdates` | `retry(policy.tokenUpdatesDelaySeconds)` |
/// | 429 | `TooManyRequests`, any | `retry(Retry-After ?? policy.tooManyRequestsDelaySeconds)` |
/// | 500, 503, any 5xx | any | `retry(max(Retry-After, policy.serverErrorDelaySeconds))` (≥ 15 min by default) |
/// | 403 | any (`ExpiredProviderToken` only after the client's one re-sign-and-retry also failed) | `fixCredentials` |
/// | 400, 404, 405, 413, other 4xx | any other (`BadTopic`, `PayloadTooLarge`, `ChannelNotRegistered`…) | `fixRequest` |
/// | other | – | `fixRequest` |
/// | no response | transport failure | `retry(policy.transportDelaySeconds)` (see ``APNsTransportError/mayHaveBeenProcessed``) |
public enum APNsDisposition: Sendable, Hashable, CustomStringConvertible {
    /// APNs accepted the request (this says nothing about the device accepting the payload).
    case accepted
    /// Send the same request again, no sooner than this many seconds from now.
    case retry(afterSeconds: Double)
    /// The request is wrong (header, path, size, channel); resending it unchanged fails again.
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

    public var description: String {
        if case .retry(let s) = self { return "retry after \(Int(s.rounded(.up))) s" }
        return name
    }

    /// Classifies one APNs answer by the table above. `retryAfterSeconds` is the response's `Retry-After`.
    public static func classify(status: Int, reason: APNsReason?, retryAfterSeconds: Double? = nil,
                                policy: APNsRetryPolicy = .init()) -> APNsDisposition {
        if (200..<300).contains(status) { return .accepted }
        switch reason {
        case APNsReason.badDeviceToken?, APNsReason.deviceTokenNotForTopic?: return .dropToken
        case APNsReason.idleTimeout?: return .retry(afterSeconds: 0)
        case APNsReason.tooManyProviderTokenUpdates?: return .retry(afterSeconds: policy.tokenUpdatesDelaySeconds)
        default: break
        }
        switch status {
        case 410: return .dropToken
        case 429: return .retry(afterSeconds: retryAfterSeconds ?? policy.tooManyRequestsDelaySeconds)
        case 500...599: return .retry(afterSeconds: max(retryAfterSeconds ?? 0, policy.serverErrorDelaySeconds))
        case 403: return .fixCredentials
        default: return .fixRequest
        }
    }
}
