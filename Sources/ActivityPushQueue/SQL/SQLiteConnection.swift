import CSQLite

/// A SQLite database file opened for the queue: WAL journal, `synchronous=FULL` (a committed enqueue survives
/// a crash or power loss), a busy timeout so several processes can share the file, prepared statements cached.
package final class SQLiteConnection: SQLConnection {
    package let dialect = SQLDialect.sqlite
    let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// `SQLITE_TRANSIENT`: SQLite copies bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// - Parameters:
    ///   - path: the database file; created when missing (its directory must exist).
    ///   - busyTimeoutMilliseconds: how long a statement waits for another process's write lock.
    package init(path: String, busyTimeoutMilliseconds: Int32 = 10_000) throws(QueueError) {
        self.path = path
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let msg = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw QueueError("cannot open SQLite database \(path): \(msg)", location: path,
                             fix: "check that the directory exists and is writable")
        }
        db = handle
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        // After a checkpoint the WAL file is cut back to this size instead of keeping every page it ever grew
        // to (a WAL that grew on a full disk would otherwise eat every byte freed later).
        try execute("PRAGMA journal_size_limit=16777216")
    }

    /// Copies the WAL into the database and truncates it to zero bytes (`PRAGMA wal_checkpoint(TRUNCATE)`).
    /// Returns false when a reader kept part of it (the WAL is then reset by a later checkpoint).
    @discardableResult
    func checkpoint() -> Bool {
        guard let db else { return false }
        var logFrames: Int32 = 0, checkpointed: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, &logFrames, &checkpointed)
        return rc == SQLITE_OK
    }

    /// `SQLITE_FULL` (disk or quota full) becomes ``QueueError/Kind/diskFull``; `SQLITE_BUSY` and `SQLITE_LOCKED`
    /// (the busy timeout ran out while another process wrote) become ``QueueError/Kind/busy``.
    private static func kind(_ code: Int32) -> QueueError.Kind {
        switch code & 0xff {
        case SQLITE_FULL: return .diskFull
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        default: return .failed
        }
    }

    private func lastKind() -> QueueError.Kind { db.map { Self.kind(sqlite3_extended_errcode($0)) } ?? .failed }

    deinit { close() }

    package var isInTransaction: Bool { db.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    package func close() {
        for (_, s) in statements { sqlite3_finalize(s) }
        statements = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    private func error(_ what: String) -> QueueError {
        let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "database closed"
        let kind = lastKind()
        if kind == .diskFull {
            return QueueError("SQLite \(path): disk full (\(what): \(msg))", kind: .diskFull, location: path,
                              fix: "free space on that filesystem")
        }
        return QueueError("SQLite \(path): \(what): \(msg)", kind: kind, location: path)
    }

    package func execute(_ sql: String) throws(QueueError) {
        guard let db else { throw QueueError("SQLite \(path): database closed", location: path) }
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(err)
            if Self.kind(rc) == .diskFull {
                throw QueueError("SQLite \(path): disk full (\(msg) in: \(sql.prefix(40)))", kind: .diskFull, location: path,
                                 fix: "free space on that filesystem")
            }
            throw QueueError("SQLite \(path): \(msg) (in: \(sql.prefix(60)))", location: path)
        }
    }

    private func prepared(_ sql: String) throws(QueueError) -> OpaquePointer {
        if let s = statements[sql] { return s }
        guard let db else { throw QueueError("SQLite \(path): database closed", location: path) }
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw error("prepare \(sql.prefix(60))")
        }
        statements[sql] = stmt
        return stmt
    }

    package func query(_ sql: String, _ params: [SQLValue]) throws(QueueError) -> [[SQLValue]] {
        let stmt = try prepared(sql)
        defer { sqlite3_reset(stmt); sqlite3_clear_bindings(stmt) }
        for (i, p) in params.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch p {
            case .null: rc = sqlite3_bind_null(stmt, idx)
            case .int(let v): rc = sqlite3_bind_int64(stmt, idx, v)
            case .double(let v): rc = sqlite3_bind_double(stmt, idx, v)
            case .text(let v): rc = sqlite3_bind_text(stmt, idx, v, -1, Self.transient)
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(stmt, idx, $0.baseAddress, Int32($0.count), Self.transient) }
            }
            guard rc == SQLITE_OK else { throw error("bind parameter \(idx)") }
        }
        var rows: [[SQLValue]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error("step \(sql.prefix(60))") }
            let n = sqlite3_column_count(stmt)
            var row: [SQLValue] = []
            row.reserveCapacity(Int(n))
            for c in 0..<n {
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(stmt, c)))
                case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(stmt, c)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(stmt, c))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(stmt, c))
                    if count == 0 { row.append(.blob([])); break }
                    let p = sqlite3_column_blob(stmt, c)!.assumingMemoryBound(to: UInt8.self)
                    row.append(.blob(Array(UnsafeBufferPointer(start: p, count: count))))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }
}
