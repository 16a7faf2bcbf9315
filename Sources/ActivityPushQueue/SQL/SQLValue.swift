/// One SQL parameter or result cell, the same for SQLite and PostgreSQL.
package enum SQLValue: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    package var int: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d): return Int64(d)
        case .text(let s): return Int64(s)
        default: return nil
        }
    }
    package var double: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .text(let s): return Double(s)
        default: return nil
        }
    }
    package var text: String? {
        switch self {
        case .text(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .blob(let b): return String(decoding: b, as: UTF8.self)
        case .null: return nil
        }
    }
    package var blob: [UInt8]? {
        switch self {
        case .blob(let b): return b
        case .text(let s): return Array(s.utf8)
        default: return nil
        }
    }
}

extension Optional where Wrapped == String {
    package var sql: SQLValue { map { .text($0) } ?? .null }
}
extension Optional where Wrapped == Int {
    package var sql: SQLValue { map { .int(Int64($0)) } ?? .null }
}
extension Optional where Wrapped == Int64 {
    package var sql: SQLValue { map { .int($0) } ?? .null }
}
extension Optional where Wrapped == Double {
    package var sql: SQLValue { map { .double($0) } ?? .null }
}

/// The two SQL dialects the queue speaks.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres
}

/// A database connection used by one store at a time (the store serialises access with a lock).
/// SQL is written with `?` placeholders; the PostgreSQL connection numbers them `$1…`.
package protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement (prepared once and cached per SQL text) and returns every result row.
    func query(_ sql: String, _ params: [SQLValue]) throws(QueueError) -> [[SQLValue]]
    /// Runs statements without parameters (DDL, BEGIN/COMMIT).
    func execute(_ sql: String) throws(QueueError)
    func close()
    /// True while a transaction is open on this connection (then ``transaction(immediate:_:)`` nests a savepoint).
    var isInTransaction: Bool { get }
}

extension SQLConnection {
    /// Runs `body` inside one transaction; rolls back when it throws.
    /// Inside an open transaction it runs in a savepoint instead, so a caller can put an enqueue and its own rows
    /// in one transaction (the activity store).
    package func transaction<T>(immediate: Bool = false, _ body: () throws(QueueError) -> T) throws(QueueError) -> T {
        if isInTransaction {
            try execute("SAVEPOINT ap_nested")
            do {
                let value = try body()
                try execute("RELEASE SAVEPOINT ap_nested")
                return value
            } catch {
                try? execute("ROLLBACK TO SAVEPOINT ap_nested")
                try? execute("RELEASE SAVEPOINT ap_nested")
                throw error
            }
        }
        try execute(immediate && dialect == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
