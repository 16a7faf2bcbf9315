import ActivityPushCore
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

// The ``QueueStore`` requirements for both SQL stores; each forwards to ``SQLOutbox`` under the lock. The
// requirements' own doc comments (on ``QueueStore``) say what each does; the notes here add the SQL side.
extension SQLQueueStore {
    /// Stores the pushes in one transaction (all or none), superseding older unsent updates to the same token,
    /// and returns their ids in order (see ``QueueStore/enqueue(_:nowUnixSeconds:)``). Times are UNIX seconds.
    /// - Throws: ``QueueError`` when the statement fails; nothing is stored then.
    public func enqueue(_ pushes: [NewPush], nowUnixSeconds: Double) throws(QueueError) -> [Int64] {
        try outbox.run { o throws(QueueError) in try o.enqueue(pushes, now: nowUnixSeconds) }
    }
    /// Claims up to `limit` due pushes for `worker`, leased until `nowUnixSeconds + leaseSeconds` (UNIX seconds);
    /// see ``QueueStore/claim(worker:limit:leaseSeconds:environment:credential:nowUnixSeconds:)``.
    /// - Throws: ``QueueError`` when the database fails; nothing is claimed then.
    public func claim(worker: String, limit: Int, leaseSeconds: Double, environment: APNsEnvironment, credential: String,
                      nowUnixSeconds: Double) throws(QueueError) -> [StoredPush] {
        try outbox.run { o throws(QueueError) in
            try o.claim(worker: worker, limit: limit, leaseSeconds: leaseSeconds, environment: environment,
                        credential: credential, now: nowUnixSeconds)
        }
    }
    /// Records results in one transaction: journal rows, new states, inactive tokens (410).
    /// - Throws: ``QueueError`` when the database fails; nothing is recorded then (the worker keeps the results).
    public func complete(_ results: [AttemptResult]) throws(QueueError) {
        try outbox.run { o throws(QueueError) in try o.complete(results) }
    }
    /// The subset of `targets` marked inactive by a 410, each with the recorded reason.
    /// - Throws: ``QueueError`` when the database fails.
    public func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String] {
        try outbox.run { o throws(QueueError) in try o.inactiveTokens(among: targets) }
    }
    /// True when nothing for this environment and credential is in flight or due at `nowUnixSeconds` (UNIX seconds).
    /// - Throws: ``QueueError`` when the database fails.
    public func isDrained(environment: APNsEnvironment, credential: String, nowUnixSeconds: Double) throws(QueueError) -> Bool {
        try outbox.run { o throws(QueueError) in try o.isDrained(environment: environment, credential: credential, now: nowUnixSeconds) }
    }
    /// Pending and in-flight pushes of this environment and credential.
    /// - Throws: ``QueueError`` when the database fails.
    public func queuedCount(environment: APNsEnvironment, credential: String) throws(QueueError) -> Int {
        try outbox.run { o throws(QueueError) in try o.queuedCount(environment: environment, credential: credential) }
    }
    /// True when an activity device is `starting` with a held push and its start was sent since
    /// `startsSentSinceUnixSeconds` (UNIX seconds); see ``QueueStore/awaitsUpdateTokens(environment:startsSentSinceUnixSeconds:)``.
    /// - Throws: ``QueueError`` when the database fails.
    public func awaitsUpdateTokens(environment: APNsEnvironment, startsSentSinceUnixSeconds: Double) throws(QueueError) -> Bool {
        try outbox.run { o throws(QueueError) in
            try ActivityStore.awaitsUpdateTokens(o, environment: environment.name, startsSentSince: startsSentSinceUnixSeconds)
        }
    }
    /// Counts for `queue status` as of `nowUnixSeconds` (UNIX seconds).
    /// - Throws: ``QueueError`` when the database fails.
    public func status(nowUnixSeconds: Double) throws(QueueError) -> QueueStatus {
        try outbox.run { o throws(QueueError) in try o.status(now: nowUnixSeconds) }
    }
    /// Up to `limit` dead letters, newest first.
    /// - Throws: ``QueueError`` when the database fails.
    public func deadLetters(limit: Int) throws(QueueError) -> [DeadLetter] {
        try outbox.run { o throws(QueueError) in try o.deadLetters(limit: limit) }
    }
    /// Puts dead letters (all when `ids` is nil) back to pending, due at `nowUnixSeconds` (UNIX seconds), attempt
    /// count reset, bytes and `apns-id` unchanged; returns how many.
    /// - Throws: ``QueueError`` when the database fails; nothing is requeued then.
    public func requeueDead(ids: [Int64]?, nowUnixSeconds: Double) throws(QueueError) -> Int {
        try outbox.run { o throws(QueueError) in try o.requeueDead(ids: ids, now: nowUnixSeconds) }
    }
    /// Deletes every dead letter and its journal rows; returns how many pushes.
    /// - Throws: ``QueueError`` when the database fails; nothing is deleted then.
    public func purgeDead() throws(QueueError) -> Int {
        try outbox.run { o throws(QueueError) in try o.purgeDead() }
    }
    /// The latest `limit` journal rows (by attempt id), given oldest first (newest last); only push `pushID`'s when given.
    /// - Throws: ``QueueError`` when the database fails.
    public func journal(pushID: Int64?, limit: Int) throws(QueueError) -> [AttemptRecord] {
        try outbox.run { o throws(QueueError) in try o.journal(pushID: pushID, limit: limit) }
    }
    /// The stored push with this id, nil when there is none.
    /// - Throws: ``QueueError`` when the database fails.
    public func push(id: Int64) throws(QueueError) -> StoredPush? {
        try outbox.run { o throws(QueueError) in try o.push(id: id) }
    }
    /// Closes the connection; later calls fail with a ``QueueError`` (`database closed`).
    public func close() {
        try? outbox.run { o throws(QueueError) in o.db.close() }
    }
}
