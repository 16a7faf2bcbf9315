import Foundation
import Synchronization

/// The one SQL store: a ``QueueStore`` on one ``SQLOutbox`` behind a `Mutex`. ``SQLiteQueueStore`` and
/// ``PostgresQueueStore`` only open their connection and say where they are; every queue method is here.
protocol SQLQueueStore: QueueStore {
    var outbox: LockedOutbox { get }
}

/// The outbox (and its connection) with the lock that serialises every call on it.
final class LockedOutbox: Sendable {
    private let mutex: Mutex<SQLOutbox>

    init(_ outbox: consuming sending SQLOutbox) { mutex = Mutex(outbox) }

    func run<T: Sendable>(_ body: (SQLOutbox) throws(QueueError) -> T) throws(QueueError) -> T {
        try mutex.withLock { (outbox: inout SQLOutbox) throws(QueueError) -> T in try body(outbox) }
    }
}

extension SQLQueueStore {
    public func enqueue(_ pushes: [NewPush], nowUnixSeconds: Double) throws(QueueError) -> [Int64] {
        try outbox.run { o throws(QueueError) in try o.enqueue(pushes, now: nowUnixSeconds) }
    }
    public func claim(worker: String, limit: Int, leaseSeconds: Double, environment: String, credential: String,
                      nowUnixSeconds: Double) throws(QueueError) -> [StoredPush] {
        try outbox.run { o throws(QueueError) in
            try o.claim(worker: worker, limit: limit, leaseSeconds: leaseSeconds, environment: environment,
                        credential: credential, now: nowUnixSeconds)
        }
    }
    public func complete(_ results: [AttemptResult]) throws(QueueError) {
        try outbox.run { o throws(QueueError) in try o.complete(results) }
    }
    public func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String] {
        try outbox.run { o throws(QueueError) in try o.inactiveTokens(among: targets) }
    }
    public func isDrained(environment: String, credential: String, nowUnixSeconds: Double) throws(QueueError) -> Bool {
        try outbox.run { o throws(QueueError) in try o.isDrained(environment: environment, credential: credential, now: nowUnixSeconds) }
    }
    public func status(nowUnixSeconds: Double) throws(QueueError) -> QueueStatus {
        try outbox.run { o throws(QueueError) in try o.status(now: nowUnixSeconds) }
    }
    public func deadLetters(limit: Int) throws(QueueError) -> [DeadLetter] {
        try outbox.run { o throws(QueueError) in try o.deadLetters(limit: limit) }
    }
    public func requeueDead(ids: [Int64]?, nowUnixSeconds: Double) throws(QueueError) -> Int {
        try outbox.run { o throws(QueueError) in try o.requeueDead(ids: ids, now: nowUnixSeconds) }
    }
    public func purgeDead() throws(QueueError) -> Int {
        try outbox.run { o throws(QueueError) in try o.purgeDead() }
    }
    public func journal(pushID: Int64?, limit: Int) throws(QueueError) -> [AttemptRecord] {
        try outbox.run { o throws(QueueError) in try o.journal(pushID: pushID, limit: limit) }
    }
    public func push(id: Int64) throws(QueueError) -> StoredPush? {
        try outbox.run { o throws(QueueError) in try o.push(id: id) }
    }
    public func close() {
        try? outbox.run { o throws(QueueError) in o.db.close() }
    }
}
