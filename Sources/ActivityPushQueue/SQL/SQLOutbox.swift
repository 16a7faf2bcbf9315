import ActivityPushCore
import Foundation

/// The queue's tables and statements, shared by both back ends; the few dialect differences are marked.
/// Not thread-safe by itself: each store holds one and serialises calls with its lock.
final class SQLOutbox {
    let db: SQLConnection
    var dialect: SQLDialect { db.dialect }

    init(_ db: SQLConnection) throws(QueueError) {
        self.db = db
        try migrate()
    }

    // MARK: Schema

    private func migrate() throws(QueueError) {
        let pk = dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
        let bytes = dialect == .sqlite ? "BLOB" : "BYTEA"
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        let int = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let ddl = """
        CREATE TABLE IF NOT EXISTS ap_pushes (
          id \(pk),
          bundle_id TEXT NOT NULL,
          event TEXT NOT NULL,
          target TEXT NOT NULL,
          target_kind TEXT NOT NULL,
          target_redacted TEXT NOT NULL,
          environment TEXT NOT NULL,
          credential TEXT NOT NULL,
          headers TEXT NOT NULL,
          body \(bytes) NOT NULL,
          apns_id TEXT NOT NULL,
          collapse_id TEXT,
          aps_timestamp \(int) NOT NULL,
          state TEXT NOT NULL,
          attempts \(int) NOT NULL DEFAULT 0,
          not_before_unix \(real) NOT NULL,
          lease_until_unix \(real),
          lease_owner TEXT,
          enqueued_unix \(real) NOT NULL,
          updated_unix \(real) NOT NULL,
          last_status \(int),
          last_reason TEXT,
          apns_unique_id TEXT,
          superseded_by \(int)
        );
        CREATE INDEX IF NOT EXISTS ap_pushes_due ON ap_pushes (state, environment, credential, not_before_unix);
        CREATE INDEX IF NOT EXISTS ap_pushes_target ON ap_pushes (target, state);
        CREATE TABLE IF NOT EXISTS ap_attempts (
          id \(pk),
          push_id \(int) NOT NULL,
          at_unix \(real) NOT NULL,
          token_redacted TEXT NOT NULL,
          outcome TEXT NOT NULL,
          status \(int),
          reason TEXT,
          apns_id TEXT NOT NULL,
          apns_unique_id TEXT,
          latency_ms \(real),
          worker TEXT,
          note TEXT
        );
        CREATE INDEX IF NOT EXISTS ap_attempts_push ON ap_attempts (push_id);
        CREATE TABLE IF NOT EXISTS ap_inactive_tokens (
          token TEXT PRIMARY KEY,
          reason TEXT NOT NULL,
          invalid_since_unix_ms \(int),
          recorded_unix \(real) NOT NULL
        );
        """
        if dialect == .postgres {
            // Two workers starting at once must not race on CREATE TABLE.
            try db.transaction { () throws(QueueError) in
                _ = try db.query("SELECT pg_advisory_xact_lock(7242)", [])
                try db.execute(ddl)
            }
        } else {
            try db.execute(ddl)
        }
    }

    // MARK: Enqueue

    static func encodeHeaders(_ h: APNsHeaders) -> String {
        h.fields.map { "\($0.name): \($0.value)\n" }.joined()
    }

    static func decodeHeaders(_ s: String) -> APNsHeaders {
        var h = APNsHeaders()
        for line in s.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
            h[String(line[..<colon])] = String(value)
        }
        return h
    }

    private static let insertColumns = """
        bundle_id, event, target, target_kind, target_redacted, environment, credential, headers, body, apns_id,
        collapse_id, aps_timestamp, state, attempts, not_before_unix, enqueued_unix, updated_unix
        """
    private static let insertColumnCount = 17

    private func insertParams(_ p: NewPush, now: Double) -> [SQLValue] {
        let broadcast: Bool
        if case .broadcast = p.request.destination { broadcast = true } else { broadcast = false }
        return [
            .text(p.request.bundleID), .text(p.request.event.rawValue), .text(p.target),
            .text(broadcast ? "broadcast" : "device"), .text(TokenRedaction.redact(p.target)),
            .text(p.environment), .text(p.credential), .text(Self.encodeHeaders(p.headers)), .blob(p.request.body),
            .text(p.apnsID), p.headers.collapseID.sql, .int(p.apsTimestamp), .text(PushState.pending.rawValue),
            .int(0), .double(p.notBeforeUnixSeconds), .double(now), .double(now),
        ]
    }

    func enqueue(_ pushes: [NewPush], now: Double) throws(QueueError) -> [Int64] {
        guard !pushes.isEmpty else { return [] }
        return try db.transaction(immediate: true) { () throws(QueueError) -> [Int64] in
            var ids: [Int64] = []
            ids.reserveCapacity(pushes.count)
            switch dialect {
            case .sqlite:
                let sql = "INSERT INTO ap_pushes (\(Self.insertColumns)) VALUES (" +
                    Array(repeating: "?", count: Self.insertColumnCount).joined(separator: ",") + ") RETURNING id"
                for p in pushes {
                    guard let id = try db.query(sql, insertParams(p, now: now)).first?.first?.int else {
                        throw QueueError("enqueue: the database returned no id")
                    }
                    ids.append(id)
                }
            case .postgres:
                // Multi-row INSERTs: one round trip per 100 pushes.
                var start = 0
                while start < pushes.count {
                    let chunk = pushes[start..<min(start + 100, pushes.count)]
                    let row = "(" + Array(repeating: "?", count: Self.insertColumnCount).joined(separator: ",") + ")"
                    let sql = "INSERT INTO ap_pushes (\(Self.insertColumns)) VALUES " +
                        Array(repeating: row, count: chunk.count).joined(separator: ",") + " RETURNING id"
                    var params: [SQLValue] = []
                    params.reserveCapacity(chunk.count * Self.insertColumnCount)
                    for p in chunk { params += insertParams(p, now: now) }
                    let got = try db.query(sql, params).compactMap { $0.first?.int }
                    guard got.count == chunk.count else { throw QueueError("enqueue: the database returned \(got.count) ids for \(chunk.count) rows") }
                    ids += got.sorted()
                    start += chunk.count
                }
            }
            if pushes.contains(where: { $0.request.event == .update || $0.request.event == .end }) {
                try supersede(firstID: ids.min()!, lastID: ids.max()!, now: now)
            }
            return ids
        }
    }

    /// Older unsent updates to a token lose their point when a newer update or an end for that token is queued.
    private func supersede(firstID: Int64, lastID: Int64, now: Double) throws(QueueError) {
        let match = """
            n.id BETWEEN ? AND ? AND n.event IN ('update', 'end') AND n.target = o.target
            AND n.bundle_id = o.bundle_id AND n.environment = o.environment
            AND n.id > o.id AND n.aps_timestamp >= o.aps_timestamp
            """
        let sql = """
            UPDATE ap_pushes AS o SET state = 'superseded', updated_unix = ?,
              superseded_by = (SELECT MAX(n.id) FROM ap_pushes n WHERE \(match))
            WHERE o.state = 'pending' AND o.event = 'update'
              AND o.target IN (SELECT t.target FROM ap_pushes t WHERE t.id BETWEEN ? AND ? AND t.event IN ('update', 'end'))
              AND EXISTS (SELECT 1 FROM ap_pushes n WHERE \(match))
            RETURNING id, target_redacted, apns_id, superseded_by
            """
        let rows = try db.query(sql, [.double(now), .int(firstID), .int(lastID), .int(firstID), .int(lastID),
                                      .int(firstID), .int(lastID)])
        for r in rows {
            try db.query("""
                INSERT INTO ap_attempts (push_id, at_unix, token_redacted, outcome, apns_id, note)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [r[0], .double(now), r[1], .text(AttemptOutcome.superseded.rawValue), r[2],
                      .text("superseded by push \(r[3].int ?? 0) (newer update or end for the same token); not sent")])
            .forEach { _ in }
        }
    }

    // MARK: Claim and complete

    private static let pushColumns = """
        id, bundle_id, event, headers, body, target, target_kind, environment, credential, apns_id, state, attempts,
        not_before_unix, enqueued_unix, last_status, last_reason
        """

    private func storedPush(_ r: [SQLValue]) -> StoredPush {
        StoredPush(id: r[0].int ?? 0, bundleID: r[1].text ?? "", event: LiveActivityEvent(rawValue: r[2].text ?? ""),
                   headers: Self.decodeHeaders(r[3].text ?? ""), body: r[4].blob ?? [], target: r[5].text ?? "",
                   isBroadcast: r[6].text == "broadcast", environment: r[7].text ?? "", credential: r[8].text ?? "",
                   apnsID: r[9].text ?? "", state: PushState(rawValue: r[10].text ?? ""), attempts: Int(r[11].int ?? 0),
                   notBeforeUnixSeconds: r[12].double ?? 0, enqueuedUnixSeconds: r[13].double ?? 0,
                   lastStatus: r[14].int.map { Int($0) }, lastReason: r[15].text)
    }

    func claim(worker: String, limit: Int, leaseSeconds: Double, environment: String, credential: String,
               now: Double) throws(QueueError) -> [StoredPush] {
        let lock = dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        let set = """
            UPDATE ap_pushes SET state = 'inflight', lease_owner = ?, lease_until_unix = ?, attempts = attempts + 1,
              updated_unix = ?
            """
        let expired = set + """
             WHERE id IN (SELECT id FROM ap_pushes WHERE state = 'inflight' AND environment = ? AND credential = ?
              AND lease_until_unix < ? ORDER BY id LIMIT ?\(lock)) RETURNING \(Self.pushColumns)
            """
        let due = set + """
             WHERE id IN (SELECT id FROM ap_pushes WHERE state = 'pending' AND environment = ? AND credential = ?
              AND not_before_unix <= ? ORDER BY not_before_unix, id LIMIT ?\(lock)) RETURNING \(Self.pushColumns)
            """
        return try db.transaction(immediate: true) { () throws(QueueError) -> [StoredPush] in
            let head: [SQLValue] = [.text(worker), .double(now + leaseSeconds), .double(now), .text(environment), .text(credential), .double(now)]
            var rows = try db.query(expired, head + [.int(Int64(limit))])
            if rows.count < limit {
                rows += try db.query(due, head + [.int(Int64(limit - rows.count))])
            }
            return rows.map(storedPush).sorted { ($0.notBeforeUnixSeconds, $0.id) < ($1.notBeforeUnixSeconds, $1.id) }
        }
    }

    func complete(_ results: [AttemptResult]) throws(QueueError) {
        guard !results.isEmpty else { return }
        try db.transaction(immediate: true) { () throws(QueueError) in
            for r in results {
                let state: PushState
                switch r.outcome {
                case .sent: state = .sent
                case .retry: state = .pending
                case .superseded: state = .superseded
                default: state = .dead
                }
                // Only the worker holding the lease decides the push's state; a late answer from a worker whose
                // lease expired is still journaled.
                _ = try db.query("""
                    UPDATE ap_pushes SET state = ?, not_before_unix = COALESCE(?, not_before_unix), lease_owner = NULL,
                      lease_until_unix = NULL, updated_unix = ?, last_status = ?, last_reason = ?,
                      apns_unique_id = COALESCE(?, apns_unique_id)
                    WHERE id = ? AND state = 'inflight' AND lease_owner = ?
                    """, [.text(state.rawValue), r.retryAtUnixSeconds.sql, .double(r.atUnixSeconds), r.status.sql,
                          r.reason.sql, r.apnsUniqueID.sql, .int(r.pushID), r.worker.sql])
                _ = try db.query("""
                    INSERT INTO ap_attempts (push_id, at_unix, token_redacted, outcome, status, reason, apns_id,
                      apns_unique_id, latency_ms, worker, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.int(r.pushID), .double(r.atUnixSeconds), .text(TokenRedaction.redact(r.target)),
                          .text(r.outcome.rawValue), r.status.sql, r.reason.sql, .text(r.apnsID), r.apnsUniqueID.sql,
                          r.latencyMilliseconds.sql, r.worker.sql, r.note.sql])
                if r.marksTokenInactive {
                    _ = try db.query("""
                        INSERT INTO ap_inactive_tokens (token, reason, invalid_since_unix_ms, recorded_unix)
                        VALUES (?, ?, ?, ?) ON CONFLICT (token) DO UPDATE SET reason = excluded.reason,
                          invalid_since_unix_ms = excluded.invalid_since_unix_ms, recorded_unix = excluded.recorded_unix
                        """, [.text(r.target), .text(r.reason ?? "Unregistered"), r.tokenInvalidSinceUnixMilliseconds.sql,
                              .double(r.atUnixSeconds)])
                }
            }
        }
    }

    func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String] {
        var out: [String: String] = [:]
        for t in Set(targets) {
            if let reason = try db.query("SELECT reason FROM ap_inactive_tokens WHERE token = ?", [.text(t)]).first?.first?.text {
                out[t] = reason
            }
        }
        return out
    }

    func isDrained(environment: String, credential: String, now: Double) throws(QueueError) -> Bool {
        let n = try db.query("""
            SELECT COUNT(*) FROM ap_pushes WHERE environment = ? AND credential = ?
              AND (state = 'inflight' OR (state = 'pending' AND not_before_unix <= ?))
            """, [.text(environment), .text(credential), .double(now)]).first?.first?.int ?? 0
        return n == 0
    }

    // MARK: Status and dead letters

    func status(now: Double) throws(QueueError) -> QueueStatus {
        var counts: [String: Int] = [:]
        for s in PushState.all { counts[s.rawValue] = 0 }
        for r in try db.query("SELECT state, COUNT(*) FROM ap_pushes GROUP BY state", []) {
            counts[r[0].text ?? "?"] = Int(r[1].int ?? 0)
        }
        let due = try db.query("""
            SELECT COUNT(*), MIN(not_before_unix) FROM ap_pushes
            WHERE (state = 'pending' AND not_before_unix <= ?) OR (state = 'inflight' AND lease_until_unix < ?)
            """, [.double(now), .double(now)]).first ?? [.int(0), .null]
        let next = try db.query("SELECT MIN(not_before_unix) FROM ap_pushes WHERE state = 'pending' AND not_before_unix > ?",
                                [.double(now)]).first?.first?.double
        var dead: [String: Int] = [:]
        for r in try db.query("SELECT COALESCE(last_reason, 'unknown'), COUNT(*) FROM ap_pushes WHERE state = 'dead' GROUP BY 1", []) {
            dead[r[0].text ?? "unknown"] = Int(r[1].int ?? 0)
        }
        let inactive = try db.query("SELECT COUNT(*) FROM ap_inactive_tokens", []).first?.first?.int ?? 0
        let attempts = try db.query("SELECT COUNT(*) FROM ap_attempts", []).first?.first?.int ?? 0
        return QueueStatus(counts: counts, due: Int(due[0].int ?? 0), oldestDueUnixSeconds: due[1].double,
                           nextRetryUnixSeconds: next, deadByReason: dead, inactiveTokens: Int(inactive),
                           attempts: Int(attempts))
    }

    func deadLetters(limit: Int) throws(QueueError) -> [DeadLetter] {
        try db.query("""
            SELECT id, event, target_redacted, apns_id, attempts, last_status, COALESCE(last_reason, 'unknown'), updated_unix
            FROM ap_pushes WHERE state = 'dead' ORDER BY updated_unix DESC, id DESC LIMIT ?
            """, [.int(Int64(limit))]).map {
            DeadLetter(id: $0[0].int ?? 0, event: $0[1].text ?? "", tokenRedacted: $0[2].text ?? "", apnsID: $0[3].text ?? "",
                       attempts: Int($0[4].int ?? 0), lastStatus: $0[5].int.map { Int($0) }, reason: $0[6].text ?? "",
                       updatedUnixSeconds: $0[7].double ?? 0)
        }
    }

    func requeueDead(ids: [Int64]?, now: Double) throws(QueueError) -> Int {
        try db.transaction(immediate: true) { () throws(QueueError) -> Int in
            let sql = """
                UPDATE ap_pushes SET state = 'pending', not_before_unix = ?, attempts = 0, updated_unix = ?,
                  lease_owner = NULL, lease_until_unix = NULL
                WHERE state = 'dead'
                """
            var rows: [[SQLValue]] = []
            if let ids {
                for id in ids { rows += try db.query(sql + " AND id = ? RETURNING target", [.double(now), .double(now), .int(id)]) }
            } else {
                rows = try db.query(sql + " RETURNING target", [.double(now), .double(now)])
            }
            // Retrying by hand says the operator knows the token is live again (the app registered it anew).
            for t in Set(rows.compactMap { $0.first?.text }) {
                _ = try db.query("DELETE FROM ap_inactive_tokens WHERE token = ?", [.text(t)])
            }
            return rows.count
        }
    }

    func purgeDead() throws(QueueError) -> Int {
        try db.transaction(immediate: true) { () throws(QueueError) -> Int in
            _ = try db.query("DELETE FROM ap_attempts WHERE push_id IN (SELECT id FROM ap_pushes WHERE state = 'dead')", [])
            return try db.query("DELETE FROM ap_pushes WHERE state = 'dead' RETURNING id", []).count
        }
    }

    func journal(pushID: Int64?, limit: Int) throws(QueueError) -> [AttemptRecord] {
        let cols = "push_id, at_unix, token_redacted, outcome, status, reason, apns_id, apns_unique_id, latency_ms, worker, note"
        let rows: [[SQLValue]]
        if let pushID {
            rows = try db.query("SELECT \(cols) FROM ap_attempts WHERE push_id = ? ORDER BY id LIMIT ?", [.int(pushID), .int(Int64(limit))])
        } else {
            rows = try db.query("SELECT \(cols) FROM ap_attempts ORDER BY id LIMIT ?", [.int(Int64(limit))])
        }
        return rows.map {
            AttemptRecord(pushID: $0[0].int ?? 0, atUnixSeconds: $0[1].double ?? 0, tokenRedacted: $0[2].text ?? "",
                          outcome: AttemptOutcome(rawValue: $0[3].text ?? ""), status: $0[4].int.map { Int($0) },
                          reason: $0[5].text, apnsID: $0[6].text ?? "", apnsUniqueID: $0[7].text,
                          latencyMilliseconds: $0[8].double, worker: $0[9].text, note: $0[10].text)
        }
    }

    func push(id: Int64) throws(QueueError) -> StoredPush? {
        try db.query("SELECT \(Self.pushColumns) FROM ap_pushes WHERE id = ?", [.int(id)]).first.map(storedPush)
    }
}
