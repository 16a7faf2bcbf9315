import Foundation

/// The queue in one SQLite file (the default back end): WAL journal, `synchronous=FULL`, 10 s busy timeout,
/// the WAL truncated after checkpoints. A file left behind by a killed process opens cleanly (SQLite rolls back
/// the unfinished transaction), and in-flight pushes of the dead worker come back when their lease expires.
/// A full disk is reported as ``QueueError/Kind/diskFull``.
public final class SQLiteQueueStore: SQLQueueStore {
    let outbox: LockedOutbox
    /// `sqlite:<path>`, the path as given to ``init(path:)``.
    public let location: String

    /// Opens (creating when missing) the queue file and its tables.
    /// - Parameter path: the database file; its directory must exist.
    /// - Throws: ``QueueError`` when the file cannot be opened or is not a queue database.
    public init(path: String) throws(QueueError) {
        outbox = LockedOutbox(try SQLOutbox(SQLiteConnection(path: path)))
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

    /// Checkpoints the WAL into the database file and truncates it (after a disk-full error, and from time to
    /// time while a worker runs), so the WAL never keeps space the database no longer needs.
    public func checkpoint() {
        _ = try? outbox.run { o throws(QueueError) in (o.db as? SQLiteConnection)?.checkpoint() ?? false }
    }
}
