import CPQ
import Glibc

/// A libpq connection to the PostgreSQL queue. Statements are prepared once per SQL text; parameters go as
/// text except byte strings (binary `bytea`); results come back as text and are typed by column OID.
package final class PostgresConnection: SQLConnection {
    package let dialect = SQLDialect.postgres
    /// The URL without its password, for messages.
    package let location: String
    private var conn: OpaquePointer?
    private var statements: [String: String] = [:]

    /// - Parameter url: `postgres://user[:password]@host[:port]/database[?sslmode=…]` (any libpq connection string).
    package init(url: String) throws(QueueError) {
        location = Self.redact(url)
        // A server that accepts TCP but never answers would otherwise hang every command: bound the handshake
        // unless the URL sets its own connect_timeout.
        var target = url
        if !url.contains("connect_timeout") {
            target += url.hasPrefix("postgres") ? (url.contains("?") ? "&" : "?") + "connect_timeout=10" : " connect_timeout=10"
        }
        guard let c = PQconnectdb(target) else { throw QueueError("PostgreSQL \(location): out of memory", location: location) }
        conn = c
        guard PQstatus(c) == CONNECTION_OK else {
            let msg = Self.trim(String(cString: PQerrorMessage(c)))
            PQfinish(c)
            conn = nil
            throw QueueError("cannot connect to PostgreSQL \(location): \(msg)", kind: .unavailable, location: location,
                             fix: "check that the server is running and the URL is right")
        }
        try configureSession()
    }

    /// Session settings (again after a reconnect). `plan_cache_mode = force_custom_plan`: the queue's prepared
    /// statements are planned for their actual parameters every time — a generic plan for the claim (which
    /// cannot see its LIMIT) sorted every pending row, so claims slowed as the queue grew (184 ms per claim at
    /// 20 000 pending pushes, against 9 ms planned for the values).
    private func configureSession() throws(QueueError) {
        try execute("SET client_min_messages = warning")
        try execute("SET plan_cache_mode = force_custom_plan")
    }

    /// When the server closed the connection (restart, network), opens it again with the same parameters
    /// (`PQreset`): prepared statements and LISTENs are per session, so they are dropped and re-made on use.
    /// - Throws: ``QueueError/Kind/unavailable`` when the server is still unreachable.
    private func ensureConnected() throws(QueueError) -> OpaquePointer {
        guard let conn else { throw QueueError("PostgreSQL \(location): connection closed", location: location) }
        if PQstatus(conn) == CONNECTION_OK { return conn }
        PQreset(conn)
        guard PQstatus(conn) == CONNECTION_OK else {
            throw QueueError("PostgreSQL \(location) unreachable: \(Self.trim(String(cString: PQerrorMessage(conn))))",
                             kind: .unavailable, location: location)
        }
        statements = [:]
        reconnects += 1
        try configureSession()
        for channel in listening { try execute("LISTEN \(channel)") }
        return conn
    }

    /// How many times the connection was re-established.
    private(set) var reconnects = 0
    private var listening: [String] = []

    /// `LISTEN channel` on this connection (kept across reconnects).
    func listen(_ channel: String) throws(QueueError) {
        try execute("LISTEN \(channel)")
        if !listening.contains(channel) { listening.append(channel) }
    }

    /// Waits up to `timeoutSeconds` for a NOTIFY on a channel this connection listens to; returns true when one
    /// came. Blocks the calling thread (poll on the connection's socket), so call it off the cooperative pool.
    func waitForNotification(timeoutSeconds: Double) -> Bool {
        guard let conn = try? ensureConnected() else { return false }
        if drainNotifications(conn) { return true }
        var descriptor = pollfd(fd: PQsocket(conn), events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeoutSeconds) * 1000))
        guard ready > 0 else { return false }
        _ = PQconsumeInput(conn)
        return drainNotifications(conn)
    }

    private func drainNotifications(_ conn: OpaquePointer) -> Bool {
        _ = PQconsumeInput(conn)
        var any = false
        while let note = PQnotifies(conn) {
            any = true
            PQfreemem(note)
        }
        return any
    }

    deinit { close() }

    package var isInTransaction: Bool {
        guard let conn else { return false }
        let status = PQtransactionStatus(conn)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    package func close() {
        if let conn { PQfinish(conn) }
        conn = nil
    }

    /// `postgres://user:secret@host/db` → `postgres://user:***@host/db`, `?password=secret` → `?password=***`
    /// (``CredentialRedaction``).
    package static func redact(_ url: String) -> String { CredentialRedaction.redact(url) }

    private static func trim(_ s: String) -> String {
        s.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private func failure(_ what: String, _ result: OpaquePointer?) -> QueueError {
        var kind = QueueError.Kind.failed
        if let conn, PQstatus(conn) != CONNECTION_OK { kind = .unavailable }
        if let result, let state = PQresultErrorField(result, 67 /* PG_DIAG_SQLSTATE */) {
            let code = String(cString: state)
            if code == "53100" { kind = .diskFull }                                // disk_full
            if code == "23505" || code == "40P01" || code == "40001" { kind = .conflict }  // unique_violation, deadlock, serialization
            if code.hasPrefix("08") || code == "57P01" || code == "57P02" || code == "57P03" { kind = .unavailable }
        }
        let msg: String
        if let result, let m = PQresultErrorMessage(result), m.pointee != 0 {
            msg = String(cString: m)
        } else if let conn {
            msg = String(cString: PQerrorMessage(conn))
        } else {
            msg = "connection closed"
        }
        return QueueError("PostgreSQL \(location): \(what): \(Self.trim(msg))", kind: kind, location: location)
    }

    /// `?` placeholders → `$1`, `$2`… (outside single-quoted literals).
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        var inQuote = false
        for ch in sql {
            if ch == "'" { inQuote.toggle() }
            if ch == "?" && !inQuote {
                n += 1
                out += "$\(n)"
            } else {
                out.append(ch)
            }
        }
        return out
    }

    package func execute(_ sql: String) throws(QueueError) {
        let conn = try ensureConnected()
        let r = PQexec(conn, sql)
        defer { PQclear(r) }
        let st = PQresultStatus(r)
        guard st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK else { throw failure(String(sql.prefix(60)), r) }
    }

    package func query(_ sql: String, _ params: [SQLValue]) throws(QueueError) -> [[SQLValue]] {
        let conn = try ensureConnected()
        let name: String
        if let n = statements[sql] {
            name = n
        } else {
            name = "ap\(statements.count + 1)"
            let r = PQprepare(conn, name, Self.numbered(sql), 0, nil)
            defer { PQclear(r) }
            guard PQresultStatus(r) == PGRES_COMMAND_OK else { throw failure("prepare \(sql.prefix(60))", r) }
            statements[sql] = name
        }
        // Parameter buffers: text as NUL-terminated UTF-8, blobs binary with a length.
        var buffers: [[UInt8]] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var isNull: [Bool] = []
        for p in params {
            switch p {
            case .null: buffers.append([]); lengths.append(0); formats.append(0); isNull.append(true)
            case .blob(let b): buffers.append(b); lengths.append(Int32(b.count)); formats.append(1); isNull.append(false)
            default:
                buffers.append(Array((p.text ?? "").utf8) + [0]); lengths.append(0); formats.append(0); isNull.append(false)
            }
        }
        let result: OpaquePointer? = withPointers(buffers, isNull) { ptrs in
            PQexecPrepared(conn, name, Int32(params.count), ptrs, lengths, formats, 0)
        }
        defer { PQclear(result) }
        let st = PQresultStatus(result)
        guard st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK else { throw failure(String(sql.prefix(60)), result) }
        let nrows = PQntuples(result), ncols = PQnfields(result)
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(Int(nrows))
        for r in 0..<nrows {
            var row: [SQLValue] = []
            row.reserveCapacity(Int(ncols))
            for c in 0..<ncols {
                if PQgetisnull(result, r, c) != 0 { row.append(.null); continue }
                let text = String(cString: PQgetvalue(result, r, c))
                switch PQftype(result, c) {
                case 20, 21, 23: row.append(Int64(text).map { .int($0) } ?? .null)          // int8, int2, int4
                case 700, 701, 1700: row.append(Double(text).map { .double($0) } ?? .null)  // float4, float8, numeric
                case 17: row.append(.blob(Self.decodeByteaHex(text)))                       // bytea (hex output)
                default: row.append(.text(text))
                }
            }
            rows.append(row)
        }
        return rows
    }

    private func withPointers<R>(_ buffers: [[UInt8]], _ isNull: [Bool],
                                 _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        // Pin every buffer for the duration of the call.
        var pinned: [UnsafeMutableRawPointer?] = []
        pinned.reserveCapacity(buffers.count)
        for (i, b) in buffers.enumerated() {
            if isNull[i] { pinned.append(nil); continue }
            let p = UnsafeMutableRawPointer.allocate(byteCount: max(b.count, 1), alignment: 1)
            b.withUnsafeBytes { if let base = $0.baseAddress { p.copyMemory(from: base, byteCount: b.count) } }
            pinned.append(p)
        }
        defer { for p in pinned { p?.deallocate() } }
        return body(pinned.map { $0.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) } })
    }

    /// `\x48656c6c6f` → bytes.
    static func decodeByteaHex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        let u = Array(s.utf8)
        guard u.count >= 2, u[0] == UInt8(ascii: "\\"), u[1] == UInt8(ascii: "x") else { return u }
        out.reserveCapacity((u.count - 2) / 2)
        func nib(_ c: UInt8) -> UInt8 {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return 0
            }
        }
        var i = 2
        while i + 1 < u.count {
            out.append(nib(u[i]) << 4 | nib(u[i + 1]))
            i += 2
        }
        return out
    }
}
