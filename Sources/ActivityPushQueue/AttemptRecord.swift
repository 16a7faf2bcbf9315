/// What became of one attempt (or a decision not to send), as the worker reports it to the store.
public struct AttemptOutcome: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
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
}

/// The worker's result for one claimed push: the journal entry and the push's next state.
public struct AttemptResult: Sendable, Hashable {
    public var pushID: Int64
    /// When the response arrived (or the decision was made), UNIX seconds.
    public var atUnixSeconds: Double
    public var target: String
    public var outcome: AttemptOutcome
    /// HTTP status from APNs; nil when nothing was sent or the connection failed.
    public var status: Int?
    /// APNs `reason`, or this queue's own label for decisions not from APNs (e.g. `MaxAttemptsExceeded`).
    public var reason: String?
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
    public var worker: String?

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
    public var pushID: Int64
    /// UNIX seconds.
    public var atUnixSeconds: Double
    /// First 6 and last 4 characters of the token or channel id.
    public var tokenRedacted: String
    public var outcome: AttemptOutcome
    public var status: Int?
    public var reason: String?
    public var apnsID: String
    public var apnsUniqueID: String?
    public var latencyMilliseconds: Double?
    public var worker: String?
    public var note: String?
}
