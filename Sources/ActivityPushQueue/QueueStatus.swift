/// `queue status`: counts by state, the oldest due push, and dead letters by reason.
public struct QueueStatus: Sendable, Hashable, Codable {
    /// Pushes per state (every state in ``PushState/all`` is present, zero included).
    public var counts: [String: Int]
    /// Pending pushes whose not-before time has passed, plus in-flight pushes whose lease expired.
    public var due: Int
    /// Not-before time of the oldest due push, UNIX seconds; nil when none is due.
    public var oldestDueUnixSeconds: Double?
    /// Earliest not-before time among pending pushes not yet due, UNIX seconds.
    public var nextRetryUnixSeconds: Double?
    /// Dead letters per reason (APNs reason, or `MaxAttemptsExceeded`, `StoredPushInvalid`, …).
    public var deadByReason: [String: Int]
    /// Tokens marked inactive by a 410 (later pushes to them are not sent).
    public var inactiveTokens: Int
    /// Journal rows.
    public var attempts: Int
}

/// One dead letter, for `queue dead`.
public struct DeadLetter: Sendable, Hashable, Codable {
    public var id: Int64
    public var event: String
    public var tokenRedacted: String
    public var apnsID: String
    public var attempts: Int
    public var lastStatus: Int?
    public var reason: String
    public var updatedUnixSeconds: Double
}
