import Foundation

/// The queue in one SQLite file (the default back end): WAL journal, `synchronous=FULL`, 10 s busy timeout.
/// A file left behind by a killed process opens cleanly (SQLite rolls back the unfinished transaction), and
/// in-flight pushes of the dead worker come back when their lease expires.
public final class SQLiteQueueStore: QueueStore, @unchecked Sendable {
    // @unchecked: every use of `outbox` (and its connection) happens under `lock`.
    private let lock = NSLock()
    private let outbox: SQLOutbox
    public let location: String

    /// Opens (creating when missing) the queue file and its tables.
    /// - Parameter path: the database file; its directory must exist.
    /// - Throws: ``QueueError`` when the file cannot be opened or is not a queue database.
    public init(path: String) throws(QueueError) {
        outbox = try SQLOutbox(SQLiteConnection(path: path))
        location = "sqlite:" + path
    }

    /// `$ACTIVITY_PUSH_QUEUE` when set, else `$XDG_DATA_HOME/activity-push/queue.sqlite` when `XDG_DATA_HOME`
    /// is set, else `./activity-push-queue.sqlite`.
    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        if let p = env["ACTIVITY_PUSH_QUEUE"], !p.isEmpty { return p }
        if let x = env["XDG_DATA_HOME"], !x.isEmpty { return x + "/activity-push/queue.sqlite" }
        return "./activity-push-queue.sqlite"
    }

    private func locked<T>(_ body: (SQLOutbox) throws(QueueError) -> T) throws(QueueError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(outbox)
    }

    public func enqueue(_ pushes: [NewPush], nowUnixSeconds: Double) throws(QueueError) -> [Int64] {
        try locked { o throws(QueueError) in try o.enqueue(pushes, now: nowUnixSeconds) }
    }
    public func claim(worker: String, limit: Int, leaseSeconds: Double, environment: String, credential: String,
                      nowUnixSeconds: Double) throws(QueueError) -> [StoredPush] {
        try locked { o throws(QueueError) in
            try o.claim(worker: worker, limit: limit, leaseSeconds: leaseSeconds, environment: environment,
                        credential: credential, now: nowUnixSeconds)
        }
    }
    public func complete(_ results: [AttemptResult]) throws(QueueError) {
        try locked { o throws(QueueError) in try o.complete(results) }
    }
    public func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String] {
        try locked { o throws(QueueError) in try o.inactiveTokens(among: targets) }
    }
    public func isDrained(environment: String, credential: String, nowUnixSeconds: Double) throws(QueueError) -> Bool {
        try locked { o throws(QueueError) in try o.isDrained(environment: environment, credential: credential, now: nowUnixSeconds) }
    }
    public func status(nowUnixSeconds: Double) throws(QueueError) -> QueueStatus {
        try locked { o throws(QueueError) in try o.status(now: nowUnixSeconds) }
    }
    public func deadLetters(limit: Int) throws(QueueError) -> [DeadLetter] {
        try locked { o throws(QueueError) in try o.deadLetters(limit: limit) }
    }
    public func requeueDead(ids: [Int64]?, nowUnixSeconds: Double) throws(QueueError) -> Int {
        try locked { o throws(QueueError) in try o.requeueDead(ids: ids, now: nowUnixSeconds) }
    }
    public func purgeDead() throws(QueueError) -> Int {
        try locked { o throws(QueueError) in try o.purgeDead() }
    }
    public func journal(pushID: Int64?, limit: Int) throws(QueueError) -> [AttemptRecord] {
        try locked { o throws(QueueError) in try o.journal(pushID: pushID, limit: limit) }
    }
    public func push(id: Int64) throws(QueueError) -> StoredPush? {
        try locked { o throws(QueueError) in try o.push(id: id) }
    }
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        outbox.db.close()
    }
}
