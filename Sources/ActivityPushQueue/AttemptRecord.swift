/// What became of one attempt (or a decision not to send), as the worker reports it to the store.
public struct AttemptOutcome: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored name (`sent`, `retry`, `dead`, `token-inactive`, `superseded`, `refused`, `released`, or another).
    public let rawValue: String
    /// Makes an outcome from its stored name; any string is accepted (an open set).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes an outcome from a literal name, e.g. `"sent"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The ``rawValue``.
    public var description: String { rawValue }
    /// APNs accepted it (200).
    public static let sent: AttemptOutcome = "sent"
    /// Failed; will be tried again no sooner than the push's new not-before time.
    public static let retry: AttemptOutcome = "retry"
    /// Failed for good; dead-lettered with the reason.
    public static let dead: AttemptOutcome = "dead"
    /// Never sent: its token was marked inactive by an earlier 410.
    public static let tokenInactive: AttemptOutcome = "token-inactive"
    /// Never sent: a newer update or an end for the same activity token was queued.
    public static let superseded: AttemptOutcome = "superseded"
    /// The stream was refused (`REFUSED_STREAM`, or above a GOAWAY's last-stream-id): APNs did not process it;
    /// it will be sent again. Counted apart from failures.
    public static let refused: AttemptOutcome = "refused"
    /// Claimed and handed back unsent (another push to the same token was in flight); not journaled.
    public static let released: AttemptOutcome = "released"
    /// Not sent yet because a budget holds it (the note, and for the broadcast budget the `reason`, name the
    /// budget): queued by the activity service with a later not-before time, or claimed and put back by
    /// ``BroadcastBudget`` (not counted as an attempt).
    public static let held: AttemptOutcome = "held"
}

/// The worker's result for one claimed push: the journal entry and the push's next state.
public struct AttemptResult: Sendable, Hashable {
    /// The ``StoredPush/id`` this result is for.
    public var pushID: Int64
    /// When the response arrived (or the decision was made), UNIX seconds.
    public var atUnixSeconds: Double
    /// The push's target as stored (hex device token, or channel id for a broadcast); redacted when journaled.
    public var target: String
    /// What became of the attempt; decides the push's next ``PushState``.
    public var outcome: AttemptOutcome
    /// HTTP status from APNs; nil when nothing was sent or the connection failed.
    public var status: Int?
    /// APNs `reason`, or this queue's own label for decisions not from APNs (e.g. `MaxAttemptsExceeded`).
    public var reason: String?
    /// The push's `apns-id` (fixed at enqueue; the same on every retry).
    public var apnsID: String
    /// `apns-unique-id` response header (development environment only).
    public var apnsUniqueID: String?
    /// Request latency in milliseconds; nil when nothing was sent.
    public var latencyMilliseconds: Double?
    /// For ``AttemptOutcome/retry``: not before this time, UNIX seconds.
    public var retryAtUnixSeconds: Double?
    /// A 410: the token is no longer active; later pushes to it are not sent.
    public var marksTokenInactive: Bool
    /// 410 response `timestamp`: **milliseconds** since 1970 when APNs confirmed the token invalid.
    public var tokenInvalidSinceUnixMilliseconds: Int64?
    /// Free text for the journal (e.g. the transport error, the policy rule applied).
    public var note: String?
    /// Name of the worker that made the attempt (``WorkerOptions/name``); nil when not known.
    public var worker: String?
    /// True when ``target`` is a broadcast channel id: the answer time then feeds ``BroadcastBudget``.
    public var isBroadcast = false

    /// Makes a result; each parameter sets the property of the same name (times in UNIX seconds, the 410
    /// `timestamp` in UNIX milliseconds, latency in milliseconds).
    public init(pushID: Int64, atUnixSeconds: Double, target: String, outcome: AttemptOutcome, status: Int? = nil,
                reason: String? = nil, apnsID: String, apnsUniqueID: String? = nil, latencyMilliseconds: Double? = nil,
                retryAtUnixSeconds: Double? = nil, marksTokenInactive: Bool = false,
                tokenInvalidSinceUnixMilliseconds: Int64? = nil, note: String? = nil, worker: String? = nil) {
        self.pushID = pushID
        self.atUnixSeconds = atUnixSeconds
        self.target = target
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.latencyMilliseconds = latencyMilliseconds
        self.retryAtUnixSeconds = retryAtUnixSeconds
        self.marksTokenInactive = marksTokenInactive
        self.tokenInvalidSinceUnixMilliseconds = tokenInvalidSinceUnixMilliseconds
        self.note = note
        self.worker = worker
    }
}

/// One journal row: an attempt to send a push, or a recorded decision not to (superseded, token inactive).
public struct AttemptRecord: Sendable, Hashable, Codable {
    /// The ``StoredPush/id`` of the push attempted.
    public var pushID: Int64
    /// When the attempt was answered (or the decision made), UNIX seconds.
    public var atUnixSeconds: Double
    /// The token or channel id by ``DeviceToken/redacted(_:)``: first and last 4 characters (`80a1…9f3c`),
    /// 12 characters or fewer masked entirely.
    public var tokenRedacted: String
    /// What became of the attempt.
    public var outcome: AttemptOutcome
    /// HTTP status from APNs; nil when nothing was sent or no response came.
    public var status: Int?
    /// APNs `reason` as Apple spells it, or the queue's own label (`MaxAttemptsExceeded`, …); nil on success.
    public var reason: String?
    /// The push's `apns-id` (the same on every attempt of one push).
    public var apnsID: String
    /// `apns-unique-id` response header (development environment only), to look the push up in Apple's Push
    /// Notifications Console.
    public var apnsUniqueID: String?
    /// Request latency in milliseconds; nil when nothing was sent.
    public var latencyMilliseconds: Double?
    /// Name of the worker that made the attempt; nil when not recorded (e.g. superseded at enqueue).
    public var worker: String?
    /// Free text: the transport error, the policy row applied, why it was not sent.
    public var note: String?
}
