import ActivityPushQueue
import Foundation

/// Database-level helpers for `activity-push bench queue` (bench code lives in the CLI, not the queue library):
/// the bare insert rate of the same database (the ceiling the queue's durable enqueue is compared with).
enum BenchQueueBareInsert {
    /// Inserts `rows` rows of `bodyBytes` bytes (plus a 64-character text key) into a table with no index,
    /// `batch` rows per committed transaction, in the database named like `--database`; returns rows/second.
    /// SQLite: prepared statement per row in WAL, `synchronous=FULL`; PostgreSQL: multi-row INSERTs of 100.
    /// The table is dropped afterwards.
    static func rate(database: String, rows: Int, batch: Int, bodyBytes: Int) throws(QueueError) -> Double {
        let db: SQLConnection = database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
            ? try PostgresConnection(url: database)
            : try SQLiteConnection(path: database.hasPrefix("sqlite:") ? String(database.dropFirst(7)) : database)
        defer { db.close() }
        let blob = db.dialect == .sqlite ? "BLOB" : "BYTEA"
        try db.execute("DROP TABLE IF EXISTS ap_bench_bare")
        try db.execute("CREATE TABLE ap_bench_bare (k TEXT NOT NULL, body \(blob) NOT NULL)")
        let body = [UInt8](repeating: 0x61, count: bodyBytes)
        let t0 = DispatchTime.now().uptimeNanoseconds
        var done = 0
        while done < rows {
            let n = min(batch, rows - done)
            try db.transaction(immediate: true) { () throws(QueueError) in
                switch db.dialect {
                case .sqlite:
                    for i in 0..<n {
                        _ = try db.query("INSERT INTO ap_bench_bare (k, body) VALUES (?, ?)", [.text(key(done + i)), .blob(body)])
                    }
                case .postgres:
                    var i = 0
                    while i < n {
                        let m = min(100, n - i)
                        let sql = "INSERT INTO ap_bench_bare (k, body) VALUES " + Array(repeating: "(?, ?)", count: m).joined(separator: ",")
                        var params: [SQLValue] = []
                        for j in 0..<m { params += [.text(key(done + i + j)), .blob(body)] }
                        _ = try db.query(sql, params)
                        i += m
                    }
                }
            }
            done += n
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        try db.execute("DROP TABLE ap_bench_bare")
        return Double(rows) / seconds
    }

    private static func key(_ i: Int) -> String { String(format: "%08x", i) + String(repeating: "ab", count: 28) }
}

/// Scratch PostgreSQL databases for one benchmark run.
extension BenchQueuePostgres {
    /// Creates an empty database next to the one in `url` and returns its URL (for a clean benchmark run).
    static func createDatabase(serverURL url: String, name: String) throws(QueueError) -> String {
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        try admin.execute("DROP DATABASE IF EXISTS \(name)")
        try admin.execute("CREATE DATABASE \(name)")
        guard let slash = url.range(of: "/", options: .backwards), url[..<slash.lowerBound].contains("@") || url[..<slash.lowerBound].contains(":") else {
            throw QueueError("cannot derive a database URL from \(PostgresConnection.redact(url))")
        }
        let query = url[slash.upperBound...].firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        return String(url[..<slash.lowerBound]) + "/" + name + query
    }

    /// Drops a database made by ``createDatabase(serverURL:name:)``.
    static func dropDatabase(serverURL url: String, name: String) throws(QueueError) {
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        try admin.execute("DROP DATABASE IF EXISTS \(name)")
    }
}
