import ActivityPushCore

/// Durable storage of the push outbox, its attempt journal and the tokens APNs said are inactive.
///
/// Two implementations with the same behaviour and the same tests: ``SQLiteQueueStore`` (one file, the
/// default) and ``PostgresQueueStore`` (several worker processes share one queue). Every method is one
/// transaction; times are UNIX seconds. Implementations are safe to call from several threads.
public protocol QueueStore: AnyObject, Sendable {
    /// Where the queue lives, without secrets (`sqlite:<path>` or the PostgreSQL URL with the password masked).
    var location: String { get }

    /// Stores the pushes in one transaction (all or none) and returns their ids in order. An update or end
    /// supersedes older unsent updates to the same token (same bundle id and environment) whose
    /// `aps.timestamp` is not newer; the journal records each superseded push.
    func enqueue(_ pushes: [NewPush], nowUnixSeconds: Double) throws(QueueError) -> [Int64]

    /// Claims up to `limit` due pushes for `worker` until `nowUnixSeconds + leaseSeconds`: pending pushes whose
    /// not-before time has passed and in-flight pushes whose lease expired (a crashed worker's). Each claim
    /// counts one attempt. PostgreSQL claims with `FOR UPDATE SKIP LOCKED`, so concurrent workers never claim
    /// the same push while its lease holds.
    func claim(worker: String, limit: Int, leaseSeconds: Double, environment: APNsEnvironment, credential: String,
               nowUnixSeconds: Double) throws(QueueError) -> [StoredPush]

    /// Records results in one transaction: journal rows, the pushes' new states, inactive tokens (410).
    func complete(_ results: [AttemptResult]) throws(QueueError)

    /// The subset of `targets` marked inactive by a 410, with the reason recorded.
    func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String]

    /// True when nothing for this environment/credential is in flight or due at `nowUnixSeconds` (what
    /// `worker --drain` waits for; it passes a later time to also wait for retries due soon).
    func isDrained(environment: APNsEnvironment, credential: String, nowUnixSeconds: Double) throws(QueueError) -> Bool

    /// True when a Live Activity device is still `starting` with a held update or end whose start was sent at or
    /// after `startsSentSinceUnixSeconds` (UNIX seconds): its update token may yet come back and release it
    /// (`worker --drain` waits for that within `--drain-wait`). Stores without the lifecycle tables: false.
    func awaitsUpdateTokens(environment: APNsEnvironment, startsSentSinceUnixSeconds: Double) throws(QueueError) -> Bool

    /// Counts for `queue status` as of `nowUnixSeconds` (UNIX seconds; it decides which pushes are due).
    func status(nowUnixSeconds: Double) throws(QueueError) -> QueueStatus

    /// Dead letters, newest first.
    func deadLetters(limit: Int) throws(QueueError) -> [DeadLetter]

    /// Puts dead letters (all when `ids` is nil) back to pending, due now, attempt count reset, bytes and
    /// apns-id unchanged. Returns how many.
    func requeueDead(ids: [Int64]?, nowUnixSeconds: Double) throws(QueueError) -> Int

    /// Deletes dead letters and their journal rows. Returns how many pushes.
    func purgeDead() throws(QueueError) -> Int

    /// The latest `limit` journal rows, given oldest first (newest last); one push's when `pushID` is given.
    func journal(pushID: Int64?, limit: Int) throws(QueueError) -> [AttemptRecord]

    /// One stored push by id.
    func push(id: Int64) throws(QueueError) -> StoredPush?

    /// Closes the connection(s). Calls after this fail with a ``QueueError``.
    func close()

    /// Returns when new work may be due: at once after an enqueue where the back end can say so (PostgreSQL
    /// LISTEN/NOTIFY), else after `timeoutSeconds`. The default sleeps.
    func waitForWork(timeoutSeconds: Double) async

    /// Gives back space the store no longer needs (SQLite: checkpoint and truncate the WAL). Default: nothing.
    func checkpoint()

    /// Pushes of this environment and credential that are pending (due or not) or in flight: what a drain
    /// leaves undelivered. The default counts the whole queue from ``status(nowUnixSeconds:)``.
    func queuedCount(environment: APNsEnvironment, credential: String) throws(QueueError) -> Int
}

extension QueueStore {
    /// Sleeps `timeoutSeconds` (negative: not at all); for stores that cannot be told of new work.
    public func waitForWork(timeoutSeconds: Double) async {
        try? await Task.sleep(nanoseconds: UInt64(max(0, timeoutSeconds) * 1e9))
    }
    /// Does nothing: the store has no space to give back.
    public func checkpoint() {}
    /// Pending and in-flight pushes of the whole queue (every environment and credential), from ``status(nowUnixSeconds:)``;
    /// stores that can count one environment and credential do.
    /// - Throws: ``QueueError`` when the database fails.
    public func queuedCount(environment: APNsEnvironment, credential: String) throws(QueueError) -> Int {
        let counts = try status(nowUnixSeconds: 0).counts
        return (counts[PushState.pending.rawValue] ?? 0) + (counts[PushState.inflight.rawValue] ?? 0)
    }
}

/// A store whose ``QueueStore/complete(_:)`` runs on a connection of its own, so a worker may record while it
/// claims (``PostgresQueueStore``).
protocol RecordsOnItsOwnConnection {}

extension QueueStore {
    /// No lifecycle tables: nothing waits for an update token.
    public func awaitsUpdateTokens(environment: APNsEnvironment, startsSentSinceUnixSeconds: Double) throws(QueueError) -> Bool { false }
}
