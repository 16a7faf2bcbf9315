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
    /// The ``due`` pushes per environment and credential (a worker claims only its own `--env` / `--credential`),
    /// largest first.
    public var dueByRoute: [DueRoute] = []

    /// Due pushes for one environment and credential.
    public struct DueRoute: Sendable, Hashable, Codable {
        /// The queue environment label (`sandbox`, `production`).
        public var environment: String
        /// The credential label (`default` unless `--credential` named another).
        public var credential: String
        /// Due pushes (pending and due, or in flight with an expired lease).
        public var count: Int
    }

    /// What a worker that claimed nothing should be told: the due pushes that belong to other environments or
    /// credentials, as one line (`3 pushes due for environment production / credential default; this worker
    /// serves sandbox/default`), nil when none. A pure function of the status, tested without a database.
    public func hintForIdleWorker(environment: String, credential: String) -> String? {
        let others = dueByRoute.filter { $0.count > 0 && ($0.environment != environment || $0.credential != credential) }
        guard !others.isEmpty else { return nil }
        let listed = others.map { "\($0.count) push\($0.count == 1 ? "" : "es") due for environment \($0.environment) / credential \($0.credential)" }
        return listed.joined(separator: ", ") + "; this worker serves \(environment)/\(credential) "
            + "(start one with --env \(others[0].environment) --credential \(others[0].credential) for them)"
    }
}

/// One dead letter, for `queue dead`.
public struct DeadLetter: Sendable, Hashable, Codable {
    /// The ``StoredPush/id``, for `queue dead --retry --id N` (``QueueStore/requeueDead(ids:nowUnixSeconds:)``).
    public var id: Int64
    /// The ActivityKit event: `start`, `update` or `end`.
    public var event: String
    /// The token or channel id by ``DeviceToken/redacted(_:)`` (first and last 4 characters).
    public var tokenRedacted: String
    /// The push's `apns-id`, kept if it is requeued.
    public var apnsID: String
    /// Attempts made before it was dead-lettered.
    public var attempts: Int
    /// HTTP status of the last answer; nil when the last attempt got none (transport failure, or not sent).
    public var lastStatus: Int?
    /// Why it is dead: APNs `reason` as Apple spells it (`BadDeviceToken`, …), or the queue's own
    /// (`MaxAttemptsExceeded`, `MayHaveBeenProcessed`, `StoredPushInvalid`); `unknown` when none was recorded.
    public var reason: String
    /// When it was dead-lettered (its last state change), UNIX seconds.
    public var updatedUnixSeconds: Double
}
