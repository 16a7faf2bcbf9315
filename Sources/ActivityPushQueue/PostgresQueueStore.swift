import Foundation
import Synchronization

/// The queue in PostgreSQL, for several worker processes (on one or more machines): workers claim with
/// `FOR UPDATE SKIP LOCKED` and a lease, so a push is in flight at one worker at a time and a crashed
/// worker's pushes come back when the lease expires. Tables are created on first use. A lost connection
/// (server restart) is re-opened on the next call; until then calls fail with ``QueueError/Kind/unavailable``.
/// Idle workers wait for `NOTIFY ap_work` (sent by every enqueue) instead of polling.
public final class PostgresQueueStore: SQLQueueStore, RecordsOnItsOwnConnection {
    let outbox: LockedOutbox
    /// A second connection for ``complete(_:)`` (opened on first use), so a worker records answers while it
    /// claims on the first.
    private let recorder = Mutex<RecordConnection>(RecordConnection())
    /// The connection URL as given to ``init(url:)`` with its password masked, for logs and `queue status`.
    public let location: String
    private let url: String
    /// A second connection that only LISTENs, so waiting never holds the outbox's lock.
    private let listener = Mutex<PostgresConnection?>(nil)

    /// Connects and creates the tables when missing.
    /// - Parameter url: `postgres://user[:password]@host[:port]/database` (any libpq connection URI).
    /// - Throws: ``QueueError`` naming the server (password masked) when it cannot connect.
    public init(url: String) throws(QueueError) {
        let conn = try PostgresConnection(url: url)
        location = conn.location
        outbox = LockedOutbox(try SQLOutbox(conn))
        self.url = url
    }

    /// Records results in one transaction (journal rows, new states, inactive tokens) on the store's record
    /// connection, opened on first use.
    /// - Throws: ``QueueError`` when the database fails; nothing is recorded then (the worker keeps the results).
    public func complete(_ results: [AttemptResult]) throws(QueueError) {
        let url = self.url
        try recorder.withLock { (connection: inout RecordConnection) throws(QueueError) in
            guard !connection.closed else { throw QueueError("PostgreSQL \(location): database closed") }
            let recording: SQLOutbox
            if let outbox = connection.outbox {
                recording = outbox
            } else {
                recording = try SQLOutbox(PostgresConnection(url: url), migrating: false)
                connection.outbox = recording
            }
            try recording.complete(results)
        }
    }

    /// Waits until an enqueue NOTIFYs or `timeoutSeconds` pass (on a dispatch thread, not the caller's).
    public func waitForWork(timeoutSeconds: Double) async {
        let url = self.url
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.listener.withLock { connection in
                    if connection == nil {
                        connection = try? PostgresConnection(url: url)
                        try? connection?.listen(SQLOutbox.workChannel)
                    }
                    if let connection {
                        _ = connection.waitForNotification(timeoutSeconds: timeoutSeconds)
                    } else {
                        usleep(UInt32(min(timeoutSeconds, 1) * 1e6))
                    }
                }
                continuation.resume()
            }
        }
    }

    /// Closes the outbox connection and the LISTEN connection. Calls after this fail with a ``QueueError``.
    public func close() {
        try? outbox.run { o throws(QueueError) in o.db.close() }
        recorder.withLock { connection in
            connection.outbox?.db.close()
            connection.outbox = nil
            connection.closed = true
        }
        listener.withLock { connection in
            connection?.close()
            connection = nil
        }
    }
}

/// The record connection of a ``PostgresQueueStore``: opened on first use, never again after `close()`.
private struct RecordConnection {
    var outbox: SQLOutbox?
    var closed = false
}
