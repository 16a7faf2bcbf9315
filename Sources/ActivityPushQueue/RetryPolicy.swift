import ActivityPushCore
import ActivityPushAPNs

/// What the queue does after one attempt. It builds on Apple's table as ``APNsResponseRule`` states it (the
/// same rows the client's ``APNsDisposition`` reads) and adds only three things: **backoff** (how long a retry
/// waits), **attempt limits**, and **token marking** (a 410 marks the token inactive). `n` = attempts made so
/// far for this push, including this one; `u` = a uniform random number in [0, 1).
///
/// | Row | Status | Reason | Queue decision |
/// |---|---|---|---|
/// | success | 2xx | – | **sent** |
/// | bad-token | 400 | `BadDeviceToken`, `DeviceTokenNotForTopic` | **dead** (the token is not marked: it may be valid in the other environment) |
/// | token-gone | 410 | `Unregistered`, `ExpiredToken`, any | **dead**, token marked inactive: later pushes to it are not sent |
/// | idle-timeout | 400 | `IdleTimeout` | **retry at once** on a new connection |
/// | expired-provider-token | 403 | `ExpiredProviderToken` | sign a new JWT, **retry at once** |
/// | forbidden | 403 | `Forbidden` | **dead** — Apple: never retry |
/// | token-updates | 429 | `TooManyProviderTokenUpdates` | **retry** after `max(tokenUpdatesDelaySeconds, backoff)` (JWT is not re-signed) |
/// | too-many-requests | 429 | `TooManyRequests`, any | **retry** after `Retry-After` when given, else `backoff` |
/// | server-error | 5xx | any | **retry** after `min(serverErrorDelaySeconds·2^(n−1), serverErrorMaxDelaySeconds)·(1 + 0.1u)`, and not before `Retry-After` — never sooner than 15 min by default |
/// | credentials | 403 | any other | **retry** after `credentialErrorDelaySeconds`: the push is fine, the worker's key is not |
/// | bad-request | 4xx, other | any other | **dead** with the reason: the stored bytes would fail again (fix, then `queue dead --retry`) |
/// | not-sent | – | transport: the request never left | **retry** after `backoff` |
/// | refused | – | transport: `REFUSED_STREAM` or above GOAWAY's last-stream-id, after the client's own resends | **retry** after `backoff`, journaled and counted as `refused`, not as a failure |
/// | may-have-been-processed | – | transport: written, never answered (drop, reset, deadline) — update or end | **retry** after `backoff` (a delayed retry, never resent in line) |
/// | may-have-been-processed-start | – | the same for a start | **dead** `MayHaveBeenProcessed`: not resent |
/// | max-attempts | any retry with `n ≥ maxAttempts` | – | **dead** `MaxAttemptsExceeded` (the last reason in the journal note) |
///
/// **Why updates and ends are resent but a start is not.** An update or an end carries `aps.timestamp`; the
/// device applies a content state only when its timestamp is newer than the one it shows, so a second copy of
/// an update it already applied is dropped, and a second end ends nothing new. A start has nothing to compare
/// with: each push-to-start that arrives starts a new activity, so a start APNs may already have delivered,
/// resent blindly, can put two activities on the lock screen — which the server cannot take back (it does not
/// know the second activity's update token until the app reports it). A lost start costs less: the app reports
/// the update token of every activity it starts, so a start whose token never arrives can be re-queued by hand
/// (`queue dead --retry --id N`) once you know it did not start. So the queue never resends a start whose
/// outcome is unknown — nor one claimed again after a worker crashed while holding it (see ``QueueWorker``).
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
    /// 403 credential errors other than `ExpiredProviderToken` and `Forbidden`. Default 300 s.
    public var credentialErrorDelaySeconds: Double

    /// Makes a policy; each parameter sets the property of the same name (seconds), defaults as documented
    /// on each property (the 900 s 5xx default is Apple's 15-minute minimum, spec §4.2).
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

    /// The queue's rows for results without an HTTP response, and for its own limit (names as in the table).
    public enum QueueRow {
        /// No response, and the request never left this process (``APNsTransportError/Kind/notSent``).
        public static let notSent = "not-sent"
        /// No response: the server refused the stream (``APNsTransportError/Kind/refused``), so it was not processed.
        public static let refused = "refused"
        /// No response to an update or end that was written (``APNsTransportError/Kind/mayHaveBeenProcessed``).
        public static let mayHaveBeenProcessed = "may-have-been-processed"
        /// No response to a start that was written: dead-lettered, not resent (see the type's notes).
        public static let mayHaveBeenProcessedStart = "may-have-been-processed-start"
        /// A retry after the last allowed attempt (``QueueRetryPolicy/maxAttempts``): dead-lettered.
        public static let maxAttempts = "max-attempts"
    }

    /// The decision for one attempt. `rule` is the table row's name.
    public enum Decision: Sendable, Hashable {
        /// APNs accepted it; the push is done.
        case sent
        /// Try again no sooner than `afterSeconds` from now; `refreshCredentials`: sign a new JWT first.
        case retry(afterSeconds: Double, refreshCredentials: Bool, rule: String)
        /// Dead-letter with `reason`; `tokenInactive`: also mark the token so later pushes to it are not sent.
        case dead(reason: String, tokenInactive: Bool, rule: String)

        /// The table row that decided.
        public var rule: String {
            switch self {
            case .sent: return APNsResponseRule.success.name
            case .retry(_, _, let row), .dead(_, _, let row): return row
            }
        }
    }

    /// Queue-side dead-letter reason after the last allowed attempt.
    public static let maxAttemptsReason = "MaxAttemptsExceeded"
    /// Queue-side dead-letter reason of a start whose outcome is unknown (not resent, see the type's notes).
    public static let mayHaveBeenProcessedReason = "MayHaveBeenProcessed"

    /// The backoff delay in seconds after `attempts` attempts: `min(backoffBaseSeconds·2^(n−1), backoffMaxSeconds)·(0.5 + 0.5u)`
    /// with `u = unitRandom` clamped to [0, 1] (a non-finite value counts as 0).
    public func backoff(attempts: Int, unitRandom: Double) -> Double {
        let grown = min(backoffBaseSeconds * Self.powerOfTwo(attempts - 1), backoffMaxSeconds)
        return grown * (0.5 + 0.5 * Self.clamp(unitRandom))
    }

    /// Decides what to do after attempt number `attempts` (1-based) of a push of `event` got `result`, by the
    /// table on the type; a retry at `attempts ≥ maxAttempts` becomes `dead MaxAttemptsExceeded`.
    /// - Parameter unitRandom: a uniform random number in [0, 1) for jitter (pass a fixed value in tests;
    ///   values outside [0, 1] are clamped).
    public func decide(_ result: APNsResult, attempts: Int, event: LiveActivityEvent, unitRandom: Double) -> Decision {
        let decision = classify(result, attempts: attempts, event: event, unitRandom: unitRandom)
        if case .retry = decision, attempts >= maxAttempts {
            return .dead(reason: Self.maxAttemptsReason, tokenInactive: false, rule: QueueRow.maxAttempts)
        }
        return decision
    }

    private func classify(_ result: APNsResult, attempts: Int, event: LiveActivityEvent, unitRandom: Double) -> Decision {
        let backoff = backoff(attempts: attempts, unitRandom: unitRandom)
        let response: APNsResponse
        switch result {
        case .response(let answer): response = answer
        case .failure(let failure):
            switch failure.kind {
            case .refused: return .retry(afterSeconds: backoff, refreshCredentials: false, rule: QueueRow.refused)
            case .mayHaveBeenProcessed:
                if event == .start {
                    return .dead(reason: Self.mayHaveBeenProcessedReason, tokenInactive: false,
                                 rule: QueueRow.mayHaveBeenProcessedStart)
                }
                return .retry(afterSeconds: backoff, refreshCredentials: false, rule: QueueRow.mayHaveBeenProcessed)
            default: return .retry(afterSeconds: backoff, refreshCredentials: false, rule: QueueRow.notSent)
            }
        }
        let row = APNsResponseRule.matching(status: response.status, reason: response.reason)
        let reasonText = response.reason?.rawValue
        switch row {
        case .success: return .sent
        case .badToken, .forbidden, .badRequest:
            return .dead(reason: reasonText ?? "HTTP\(response.status)", tokenInactive: false, rule: row.name)
        case .tokenGone:
            return .dead(reason: reasonText ?? APNsReason.unregistered.rawValue, tokenInactive: true, rule: row.name)
        case .idleTimeout: return .retry(afterSeconds: 0, refreshCredentials: false, rule: row.name)
        case .expiredProviderToken: return .retry(afterSeconds: 0, refreshCredentials: true, rule: row.name)
        case .tokenUpdates:
            return .retry(afterSeconds: max(tokenUpdatesDelaySeconds, backoff), refreshCredentials: false, rule: row.name)
        case .tooManyRequests:
            if let retryAfter = response.retryAfterSeconds, retryAfter >= 0 {
                return .retry(afterSeconds: retryAfter, refreshCredentials: false, rule: row.name)
            }
            return .retry(afterSeconds: backoff, refreshCredentials: false, rule: row.name)
        case .serverError:
            let grown = min(serverErrorDelaySeconds * Self.powerOfTwo(attempts - 1),
                            max(serverErrorMaxDelaySeconds, serverErrorDelaySeconds))
            let delay = max(grown * (1 + 0.1 * Self.clamp(unitRandom)), response.retryAfterSeconds ?? 0)
            return .retry(afterSeconds: delay, refreshCredentials: false, rule: row.name)
        case .credentials:
            return .retry(afterSeconds: credentialErrorDelaySeconds, refreshCredentials: false, rule: row.name)
        default:
            return .dead(reason: reasonText ?? "HTTP\(response.status)", tokenInactive: false, rule: row.name)
        }
    }

    /// What the queue does for each row, in words (for `worker --help`; the delays are this policy's).
    public func queueAction(forRow name: String) -> String {
        switch name {
        case APNsResponseRule.success.name: return "sent"
        case APNsResponseRule.badToken.name: return "dead"
        case APNsResponseRule.tokenGone.name: return "dead, token marked inactive (later pushes to it not sent)"
        case APNsResponseRule.idleTimeout.name: return "retry at once on a new connection"
        case APNsResponseRule.expiredProviderToken.name: return "new JWT, retry at once"
        case APNsResponseRule.forbidden.name: return "dead (never retried)"
        case APNsResponseRule.tokenUpdates.name: return "retry after ≥ \(Self.seconds(tokenUpdatesDelaySeconds))"
        case APNsResponseRule.tooManyRequests.name: return "retry after Retry-After, else backoff"
        case APNsResponseRule.serverError.name:
            return "retry after ≥ \(Self.seconds(serverErrorDelaySeconds)), doubling up to \(Self.seconds(serverErrorMaxDelaySeconds))"
        case APNsResponseRule.credentials.name: return "held \(Self.seconds(credentialErrorDelaySeconds)) (fix the key)"
        case APNsResponseRule.badRequest.name: return "dead with the reason"
        case QueueRow.notSent: return "retry after backoff"
        case QueueRow.refused: return "retry after backoff; counted as refused, not failed"
        case QueueRow.mayHaveBeenProcessed: return "update/end: retry after backoff (the device drops a timestamp it applied)"
        case QueueRow.mayHaveBeenProcessedStart: return "start: dead MayHaveBeenProcessed, not resent (a second start = a second activity)"
        case QueueRow.maxAttempts: return "dead MaxAttemptsExceeded after \(maxAttempts) attempts"
        default: return "?"
        }
    }

    /// The whole table as text lines, generated from ``APNsResponseRule/all`` and the queue rows: what
    /// `worker --help` prints.
    public func tableLines() -> [String] {
        var rows: [(String, String)] = APNsResponseRule.all.map { ("\($0.statusText) \($0.reasonText)", queueAction(forRow: $0.name)) }
        rows += [
            ("no response, request not sent", queueAction(forRow: QueueRow.notSent)),
            ("no response, stream refused / above GOAWAY", queueAction(forRow: QueueRow.refused)),
            ("no response, may have been processed", queueAction(forRow: QueueRow.mayHaveBeenProcessed)),
            ("", queueAction(forRow: QueueRow.mayHaveBeenProcessedStart)),
            ("any retry, attempts used up", queueAction(forRow: QueueRow.maxAttempts)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        let backoffLine = "backoff = min(\(Self.seconds(backoffBaseSeconds))·2^(n−1), \(Self.seconds(backoffMaxSeconds)))·(0.5 + 0.5·random)"
        return rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 } + ["  " + backoffLine]
    }

    private static func seconds(_ value: Double) -> String {
        if value >= 3600, value.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(value / 3600)) h" }
        if value >= 60, value.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(value / 60)) min" }
        return "\(Int(value.rounded(.up))) s"
    }

    private static func powerOfTwo(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<min(max(exponent, 0), 62) { value *= 2 }
        return value
    }

    private static func clamp(_ unit: Double) -> Double { unit.isFinite ? min(max(unit, 0), 1) : 0 }
}
