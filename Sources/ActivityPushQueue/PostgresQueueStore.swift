import Foundation

/// The queue in PostgreSQL, for several worker processes (on one or more machines): workers claim with
/// `FOR UPDATE SKIP LOCKED` and a lease, so a push is in flight at one worker at a time and a crashed
/// worker's pushes come back when the lease expires. Tables are created on first use.
public final class PostgresQueueStore: QueueStore, @unchecked Sendable {
    // @unchecked: every use of `outbox` (and its connection) happens under `lock`.
    private let lock = NSLock()
    private let outbox: SQLOutbox
    public let location: String

    /// Connects and creates the tables when missing.
    /// - Parameter url: `postgres://user[:password]@host[:port]/database` (any libpq connection URI).
    /// - Throws: ``QueueError`` naming the server (password masked) when it cannot connect.
    public init(url: String) throws(QueueError) {
        let conn = try PostgresConnection(url: url)
        outbox = try SQLOutbox(conn)
        location = conn.location
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
