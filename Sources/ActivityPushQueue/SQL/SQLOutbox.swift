import ActivityPushCore
import Foundation

/// The queue's tables and statements, shared by both back ends; the few dialect differences are marked.
/// Not thread-safe by itself: each store holds one and serialises calls with its lock.
final class SQLOutbox {
    let db: SQLConnection
    var dialect: SQLDialect { db.dialect }

    /// - Parameter migrating: create missing tables and indexes (false for a store's second connection, opened
    ///   after the first one migrated).
    init(_ db: SQLConnection, migrating: Bool = true) throws(QueueError) {
        self.db = db
        if migrating { try migrate() }
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
        -- The claim's order (not_before_unix, id) in full, so a claim reads the first due rows and stops instead
        -- of sorting every pending row. (ap_pushes_due, its prefix, is gone: one index less to write per claim
        -- and per answer.)
        DROP INDEX IF EXISTS ap_pushes_due;
        CREATE INDEX IF NOT EXISTS ap_pushes_claim ON ap_pushes (state, environment, credential, not_before_unix, id);
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
        \(dialect == .sqlite ? "CREATE TABLE IF NOT EXISTS ap_pushes_done AS SELECT * FROM ap_pushes WHERE 0;"
                             : "CREATE TABLE IF NOT EXISTS ap_pushes_done (LIKE ap_pushes);")
        CREATE INDEX IF NOT EXISTS ap_pushes_done_id ON ap_pushes_done (id);
        CREATE INDEX IF NOT EXISTS ap_pushes_done_target ON ap_pushes_done (target);
        CREATE TABLE IF NOT EXISTS ap_inactive_tokens (
          token TEXT PRIMARY KEY,
          reason TEXT NOT NULL,
          invalid_since_unix_ms \(int),
          recorded_unix \(real) NOT NULL
        );
        \(Self.channelTables(dialect))
        \(ActivityTables.ddl(dialect))
        """
        if dialect == .postgres {
            // Two workers starting at once must not race on CREATE TABLE.
            try db.transaction { () throws(QueueError) in
                _ = try db.query("SELECT pg_advisory_xact_lock(7242)", [])
                try db.execute(ddl)
                // At most one push in flight per token, kept by the database: workers claim at the same time,
                // and a claim that would put a second push to a token in flight fails and is retried (see
                // claim). An expired lease stays `inflight` until it is claimed again.
                do throws(QueueError) {
                    try db.execute("CREATE UNIQUE INDEX IF NOT EXISTS ap_pushes_one_inflight ON ap_pushes (target) WHERE state = 'inflight'")
                } catch where error.kind == .conflict {
                    throw QueueError("PostgreSQL \((db as? PostgresConnection)?.location ?? "queue"): cannot add "
                                     + "the index ap_pushes_one_inflight: some token has two pushes in flight (left by a worker "
                                     + "older than this version). Let the older workers drain (`queue status` shows none in "
                                     + "flight), then start this one.")
                }
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
            .text(broadcast ? "broadcast" : "device"), .text(DeviceToken.redacted(p.target)),
            .text(p.environment.name), .text(p.credential), .text(Self.encodeHeaders(p.headers)), .blob(p.request.body),
            .text(p.apnsID), p.headers.collapseID.sql, .int(p.apsTimestamp), .text(PushState.pending.rawValue),
            .int(0), .double(p.notBeforeUnixSeconds), .double(now), .double(now),
        ]
    }

    func enqueue(_ pushes: [NewPush], now: Double) throws(QueueError) -> [Int64] {
        guard !pushes.isEmpty else { return [] }
        let ids = try insert(pushes, now: now)
        if dialect == .postgres, pushes.count >= 1000 {
            // A large fan-out changes the table's shape at once; fresh statistics keep the claim on its index
            // (autovacuum would get there, but only after the drain has paid for a bad plan).
            if !pushes.contains(where: { $0.request.event == .update || $0.request.event == .end }) {
                try? db.execute("ANALYZE ap_pushes")
            }
            try? db.execute("ANALYZE ap_pushes_done")
        }
        return ids
    }

    private func insert(_ pushes: [NewPush], now: Double) throws(QueueError) -> [Int64] {
        try db.transaction(immediate: true) { () throws(QueueError) -> [Int64] in
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
            case .postgres where Self.isFanOut(pushes):
                // One statement, one round trip, for any number of tokens: the shared columns once, the
                // per-token ones as arrays.
                ids = try fanOut(pushes, now: now)
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
                if dialect == .postgres, pushes.count >= 1000 {
                    // Statistics that include the rows just inserted (ANALYZE sees this transaction's rows): planned
                    // on an empty table's, the supersede step below compared every new row with every other one
                    // (10–12 s for a 20 000-token fan-out into a fresh queue, against ~80 ms).
                    try db.execute("ANALYZE ap_pushes")
                }
                try supersede(firstID: ids.min()!, lastID: ids.max()!, now: now)
            }
            // Wakes idle workers (delivered at COMMIT).
            if dialect == .postgres { try db.execute("NOTIFY \(Self.workChannel)") }
            return ids
        }
    }

    /// The NOTIFY channel idle PostgreSQL workers LISTEN on.
    static let workChannel = "ap_work"

    /// True when every push shares all columns but the token (what ``Outbox/rows(for:to:environment:credential:notBeforeUnixSeconds:)`` makes).
    static func isFanOut(_ pushes: [NewPush]) -> Bool {
        guard pushes.count > 1, let first = pushes.first else { return false }
        return pushes.allSatisfy {
            $0.request.bundleID == first.request.bundleID && $0.request.event == first.request.event
                && $0.request.body == first.request.body && $0.environment.name == first.environment.name
                && $0.credential == first.credential && $0.notBeforeUnixSeconds == first.notBeforeUnixSeconds
                && $0.apsTimestamp == first.apsTimestamp && $0.request.destination == first.request.destination
        }
    }

    /// A PostgreSQL text-array literal: `{"a","b",NULL}` (quotes and backslashes escaped).
    static func textArray(_ values: [String?]) -> String {
        "{" + values.map { $0.map(arrayElement) ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// One quoted element of an array literal.
    private static func arrayElement(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A PostgreSQL array literal of one column's values, passed as one text parameter and cast in the SQL
    /// (`?::bigint[]`, `?::text[]`): numbers as written, texts quoted, nulls as `NULL`. One statement text
    /// serves any number of rows, so it is prepared once.
    static func arrayParameter(_ values: [SQLValue]) -> SQLValue {
        .text("{" + values.map { value in
            switch value {
            case .null: return "NULL"
            case .int(let number): return String(number)
            case .double(let number): return number.isFinite ? "\(number)" : "NULL"
            case .text, .blob: return arrayElement(value.text ?? "")
            }
        }.joined(separator: ",") + "}")
    }

    private func fanOut(_ pushes: [NewPush], now: Double) throws(QueueError) -> [Int64] {
        let first = insertParams(pushes[0], now: now)
        // insertParams order: 0 bundle, 1 event, 2 target, 3 kind, 4 redacted, 5 env, 6 credential, 7 headers,
        // 8 body, 9 apns_id, 10 collapse, 11 aps_timestamp, 12 state, 13 attempts, 14 not_before, 15 enq, 16 upd.
        let sql = """
            INSERT INTO ap_pushes (\(Self.insertColumns))
            SELECT ?::text, ?::text, t.target, ?::text, t.redacted, ?::text, ?::text, t.headers, ?::bytea, t.apns_id,
              t.collapse_id, ?::bigint, 'pending', 0, ?::double precision, ?::double precision, ?::double precision
            FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY
              AS t(target, redacted, headers, apns_id, collapse_id, ord)
            ORDER BY t.ord RETURNING id
            """
        let params: [SQLValue] = [first[0], first[1], first[3], first[5], first[6], first[8], first[11], first[14],
                                  first[15], first[16],
                                  .text(Self.textArray(pushes.map(\.target))),
                                  .text(Self.textArray(pushes.map { DeviceToken.redacted($0.target) })),
                                  .text(Self.textArray(pushes.map { Self.encodeHeaders($0.headers) })),
                                  .text(Self.textArray(pushes.map(\.apnsID))),
                                  .text(Self.textArray(pushes.map { $0.headers.collapseID }))]
        let got = try db.query(sql, params).compactMap { $0.first?.int }
        guard got.count == pushes.count else {
            throw QueueError("enqueue: the database returned \(got.count) ids for \(pushes.count) rows")
        }
        return got.sorted()
    }

    /// Moves finished rows (`sent`, `superseded`) out of the hot table into `ap_pushes_done`, so the claim's
    /// `FOR UPDATE SKIP LOCKED` scans only live rows however long the history grows.
    private func moveFinished(_ ids: [Int64]) throws(QueueError) {
        guard !ids.isEmpty else { return }
        if dialect == .postgres {
            // One statement for the whole batch.
            _ = try db.query("""
                WITH moved AS (DELETE FROM ap_pushes WHERE id = ANY(?::bigint[]) AND state IN ('sent', 'superseded') RETURNING *)
                INSERT INTO ap_pushes_done SELECT * FROM moved
                """, [Self.arrayParameter(ids.map { .int($0) })])
            return
        }
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            start += chunk.count
            let list = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let params = chunk.map { SQLValue.int($0) }
            let which = "id IN (\(list)) AND state IN ('sent', 'superseded')"
            _ = try db.query("INSERT INTO ap_pushes_done SELECT * FROM ap_pushes WHERE \(which)", params)
            _ = try db.query("DELETE FROM ap_pushes WHERE \(which)", params)
        }
    }

    /// Older unsent updates to a token lose their point when a newer update or an end for that token is queued.
    private func supersede(firstID: Int64, lastID: Int64, now: Double) throws(QueueError) {
        // `n.id + 0`: the newer push is found by its token (ap_pushes_target), the id range only filters. With
        // the id range usable too, PostgreSQL ANDed two bitmap scans of every new row for each old one: ~8 s to
        // enqueue a 20 000-token fan-out.
        let match = """
            n.id + 0 BETWEEN ? AND ? AND n.event IN ('update', 'end') AND n.target = o.target
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
        try moveFinished(rows.compactMap { $0.first?.int })
    }

    // MARK: Claim and complete

    private static let pushColumns = """
        id, bundle_id, event, headers, body, target, target_kind, environment, credential, apns_id, state, attempts,
        not_before_unix, enqueued_unix, last_status, last_reason
        """

    private func storedPush(_ r: [SQLValue]) -> StoredPush {
        StoredPush(id: r[0].int ?? 0, bundleID: r[1].text ?? "", event: LiveActivityEvent(rawValue: r[2].text ?? ""),
                   headers: Self.decodeHeaders(r[3].text ?? ""), body: r[4].blob ?? [], target: r[5].text ?? "",
                   isBroadcast: r[6].text == "broadcast", environment: .stored(r[7].text ?? ""), credential: r[8].text ?? "",
                   apnsID: r[9].text ?? "", state: PushState(rawValue: r[10].text ?? ""), attempts: Int(r[11].int ?? 0),
                   notBeforeUnixSeconds: r[12].double ?? 0, enqueuedUnixSeconds: r[13].double ?? 0,
                   lastStatus: r[14].int.map { Int($0) }, lastReason: r[15].text)
    }

    func claim(worker: String, limit: Int, leaseSeconds: Double, environment: APNsEnvironment, credential: String,
               now: Double) throws(QueueError) -> [StoredPush] {
        guard dialect == .postgres else {
            return try db.transaction(immediate: true) { () throws(QueueError) -> [StoredPush] in
                try claimOnce(worker: worker, limit: limit, leaseSeconds: leaseSeconds, environment: environment,
                              credential: credential, now: now)
            }
        }
        // PostgreSQL: workers claim at the same time (no lock between them). Two claims that picked different
        // pushes to one token race on `ap_pushes_one_inflight`: the later one fails with unique_violation
        // (or, when each waits for the other's token, deadlock_detected) and is retried at once; it then sees
        // the other's committed claim and skips that token.
        // After 8 collisions in a row this claim gives up empty-handed; the worker claims again shortly.
        for _ in 0..<8 {
            do throws(QueueError) {
                return try db.transaction { () throws(QueueError) -> [StoredPush] in
                    try claimOnce(worker: worker, limit: limit, leaseSeconds: leaseSeconds, environment: environment,
                                  credential: credential, now: now)
                }
            } catch where error.kind == .conflict {
                continue
            }
        }
        return []
    }

    /// One claim transaction's statements: expired leases first (a crashed worker's pushes), then due pending
    /// pushes, at most one per token and none for a token that has a push in flight (live or expired lease:
    /// an expired one comes back through the first statement, and its token waits for its answer).
    private func claimOnce(worker: String, limit: Int, leaseSeconds: Double, environment: APNsEnvironment, credential: String,
                           now: Double) throws(QueueError) -> [StoredPush] {
        let lock = dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        // PostgreSQL: OFFSET 0 keeps the NOT EXISTS a per-row lookup on ap_pushes_one_inflight. As an anti-join
        // the planner, trusting statistics taken when nothing was in flight, compared every candidate with every
        // in-flight row (465 ms per claim of 1 500 with 3 000 in flight, against 31 ms).
        let perRow = dialect == .postgres ? " OFFSET 0" : ""
        let set = """
            UPDATE ap_pushes SET state = 'inflight', lease_owner = ?, lease_until_unix = ?, attempts = attempts + 1,
              updated_unix = ?
            """
        let expired = set + """
             WHERE id IN (SELECT id FROM ap_pushes WHERE state = 'inflight' AND environment = ? AND credential = ?
              AND lease_until_unix < ? ORDER BY id LIMIT ?\(lock)) RETURNING \(Self.pushColumns)
            """
        // The first due rows in claim order (locked, skipping rows another claim holds), then one per token
        // among them: the first in claim order, except that an update with a newer update or end of its token
        // among them goes last (newest wins: it is claimed after the newer one and found overtaken then).
        // A push waits while an earlier push of its token is pending (unless that one is an update it makes
        // stale): another claim may hold the earlier one locked, and SKIP LOCKED would otherwise hand this
        // one out first — an end before its start.
        let due = set + """
             WHERE id IN (SELECT ranked.id FROM (
              SELECT candidate.id, ROW_NUMBER() OVER (PARTITION BY candidate.target
                ORDER BY CASE WHEN candidate.event = 'update' AND candidate.id < candidate.newest THEN 1 ELSE 0 END,
                  candidate.not_before_unix, candidate.id) AS place
              FROM (SELECT locked.*, MAX(CASE WHEN locked.event IN ('update', 'end') THEN locked.id END)
                      OVER (PARTITION BY locked.target) AS newest
                FROM (SELECT p.id, p.target, p.event, p.not_before_unix FROM ap_pushes p WHERE p.state = 'pending'
                  AND p.environment = ? AND p.credential = ? AND p.not_before_unix <= ?
                  AND NOT EXISTS (SELECT 1 FROM ap_pushes f WHERE f.target = p.target AND f.state = 'inflight'\(perRow))
                  AND NOT EXISTS (SELECT 1 FROM ap_pushes e WHERE e.target = p.target AND e.state = 'pending'
                    AND (e.not_before_unix, e.id) < (p.not_before_unix, p.id)
                    AND NOT (e.event = 'update' AND p.event IN ('update', 'end'))\(perRow))
                  ORDER BY p.not_before_unix, p.id LIMIT ?\(lock)) AS locked) AS candidate) AS ranked
              WHERE ranked.place = 1) RETURNING \(Self.pushColumns)
            """
        let head: [SQLValue] = [.text(worker), .double(now + leaseSeconds), .double(now), .text(environment.name), .text(credential), .double(now)]
        var pushes = try db.query(expired, head + [.int(Int64(limit))]).map { row -> StoredPush in
            var push = storedPush(row)
            push.reclaimedAfterExpiredLease = true
            return push
        }
        if pushes.count < limit {
            pushes += try db.query(due, head + [.int(Int64(limit - pushes.count))]).map(storedPush)
        }
        try markOvertaken(&pushes)
        try applyBroadcastBudget(&pushes, now: now)
        return pushes.sorted { ($0.notBeforeUnixSeconds, $0.id) < ($1.notBeforeUnixSeconds, $1.id) }
    }

    /// Newest wins at claim time too: a claimed update with a newer update or end for its token (same bundle id
    /// and environment, `aps.timestamp` not older) that is queued, in flight, claimed in this batch, or sent is
    /// not worth sending. One indexed lookup by token per 500 claimed updates; compared here.
    private func markOvertaken(_ pushes: inout [StoredPush]) throws(QueueError) {
        // Only a push claimed before can have been overtaken: a newer push queued while this one was pending
        // superseded it at enqueue already; one queued while it was in flight did not, and it comes back here.
        let targets = Array(Set(pushes.filter { $0.event == .update && !$0.isBroadcast && $0.attempts > 1 }.map(\.target)))
        guard !targets.isEmpty else { return }
        struct Candidate { var id: Int64; var bundleID: String; var environment: String; var timestamp: Int64 }
        var byTarget: [String: [Candidate]] = [:]
        var start = 0
        while start < targets.count {
            let chunk = Array(targets[start..<min(start + 500, targets.count)])
            start += chunk.count
            let (among, params) = among(chunk)
            let columns = "id, target, bundle_id, environment, aps_timestamp"
            let rows = try db.query("""
                SELECT \(columns) FROM ap_pushes WHERE target \(among) AND event IN ('update', 'end')
                  AND state IN ('pending', 'inflight', 'sent')
                UNION ALL
                SELECT \(columns) FROM ap_pushes_done WHERE target \(among) AND event IN ('update', 'end') AND state = 'sent'
                """, params + params)
            for row in rows {
                byTarget[row[1].text ?? "", default: []].append(
                    Candidate(id: row[0].int ?? 0, bundleID: row[2].text ?? "", environment: row[3].text ?? "", timestamp: row[4].int ?? 0))
            }
        }
        for index in pushes.indices where pushes[index].event == .update && pushes[index].attempts > 1 {
            let push = pushes[index]
            guard let candidates = byTarget[push.target],
                  let own = candidates.first(where: { $0.id == push.id }) else { continue }
            pushes[index].supersededBy = candidates.filter {
                $0.id > push.id && $0.bundleID == own.bundleID && $0.environment == own.environment && $0.timestamp >= own.timestamp
            }.map(\.id).max()
        }
    }

    func complete(_ results: [AttemptResult]) throws(QueueError) {
        guard !results.isEmpty else { return }
        try db.transaction(immediate: true) { () throws(QueueError) in
            var finished: [Int64] = []
            var decided: [AttemptResult] = []
            var released: [AttemptResult] = []
            for r in results {
                if r.outcome == .released {
                    released.append(r)
                    continue
                }
                let state = Self.state(after: r.outcome)
                if state == .sent || state == .superseded { finished.append(r.pushID) }
                decided.append(r)
                if r.marksTokenInactive {
                    _ = try db.query("""
                        INSERT INTO ap_inactive_tokens (token, reason, invalid_since_unix_ms, recorded_unix)
                        VALUES (?, ?, ?, ?) ON CONFLICT (token) DO UPDATE SET reason = excluded.reason,
                          invalid_since_unix_ms = excluded.invalid_since_unix_ms, recorded_unix = excluded.recorded_unix
                        """, [.text(r.target), .text(r.reason ?? "Unregistered"), r.tokenInvalidSinceUnixMilliseconds.sql,
                              .double(r.atUnixSeconds)])
                }
            }
            switch dialect {
            case .sqlite:
                // Local calls: one statement per row is cheapest.
                for r in released { _ = try db.query(Self.releaseOne, [.int(r.pushID), r.worker.sql]) }
                for r in decided {
                    _ = try db.query(Self.updateOne, Self.updateParams(r, state: Self.state(after: r.outcome)))
                    _ = try db.query(Self.insertAttempt(rows: 1), Self.attemptParams(r))
                }
            case .postgres:
                // A round trip per statement: the whole batch in one statement each (columns as arrays), one
                // statement text for any batch size, so each is prepared once per connection.
                if !released.isEmpty {
                    _ = try db.query("""
                        UPDATE ap_pushes AS p SET state = 'pending', attempts = p.attempts - 1, lease_owner = NULL,
                          lease_until_unix = NULL
                        FROM unnest(?::bigint[], ?::text[]) AS v(id, worker)
                        WHERE p.id = v.id AND p.state = 'inflight' AND p.lease_owner = v.worker
                        """, [Self.arrayParameter(released.map { .int($0.pushID) }), Self.arrayParameter(released.map { $0.worker.sql })])
                }
                if !decided.isEmpty {
                    let rows = decided.map { Self.valuesParams($0, state: Self.state(after: $0.outcome)) }
                    _ = try db.query("""
                        UPDATE ap_pushes AS p SET state = v.state, not_before_unix = COALESCE(v.retry_at, p.not_before_unix),
                          lease_owner = NULL, lease_until_unix = NULL, updated_unix = v.at, last_status = v.status,
                          last_reason = v.reason, apns_unique_id = COALESCE(v.unique_id, p.apns_unique_id)
                        FROM unnest(?::bigint[], ?::text[], ?::double precision[], ?::double precision[], ?::bigint[],
                                    ?::text[], ?::text[], ?::text[]) AS v(id, state, retry_at, at, status, reason, unique_id, worker)
                        WHERE p.id = v.id AND p.state = 'inflight' AND p.lease_owner = v.worker
                        """, Self.columns(rows, count: 8))
                    _ = try db.query("""
                        INSERT INTO ap_attempts (push_id, at_unix, token_redacted, outcome, status, reason, apns_id,
                          apns_unique_id, latency_ms, worker, note)
                        SELECT * FROM unnest(?::bigint[], ?::double precision[], ?::text[], ?::text[], ?::bigint[], ?::text[],
                                             ?::text[], ?::text[], ?::double precision[], ?::text[], ?::text[])
                        """, Self.columns(decided.map(Self.attemptParams), count: 11))
                }
            }
            try recordBroadcastAnswers(results)
            try ActivityStore.retireTokens(self, after: results)
            try ActivityStore.recordDeliveredStarts(self, after: results)
            try moveFinished(finished)
        }
    }

    /// Rows of parameters → one array parameter per column.
    private static func columns(_ rows: [[SQLValue]], count: Int) -> [SQLValue] {
        (0..<count).map { column in arrayParameter(rows.map { $0[column] }) }
    }

    /// Claimed but held back by the worker (another push to the token went first): back to the queue as it was,
    /// the claim not counted as an attempt, nothing journaled.
    private static let releaseOne = """
        UPDATE ap_pushes SET state = 'pending', attempts = attempts - 1, lease_owner = NULL,
          lease_until_unix = NULL WHERE id = ? AND state = 'inflight' AND lease_owner = ?
        """

    private static func state(after outcome: AttemptOutcome) -> PushState {
        switch outcome {
        case .sent: return .sent
        case .retry, .refused: return .pending
        case .superseded: return .superseded
        default: return .dead
        }
    }

    // Only the worker holding the lease decides the push's state; a late answer from a worker whose lease
    // expired is still journaled.
    private static let updateOne = """
        UPDATE ap_pushes SET state = ?, not_before_unix = COALESCE(?, not_before_unix), lease_owner = NULL,
          lease_until_unix = NULL, updated_unix = ?, last_status = ?, last_reason = ?,
          apns_unique_id = COALESCE(?, apns_unique_id)
        WHERE id = ? AND state = 'inflight' AND lease_owner = ?
        """

    private static func updateParams(_ r: AttemptResult, state: PushState) -> [SQLValue] {
        [.text(state.rawValue), r.retryAtUnixSeconds.sql, .double(r.atUnixSeconds), r.status.sql, r.reason.sql,
         r.apnsUniqueID.sql, .int(r.pushID), r.worker.sql]
    }

    private static func valuesParams(_ r: AttemptResult, state: PushState) -> [SQLValue] {
        [.int(r.pushID), .text(state.rawValue), r.retryAtUnixSeconds.sql, .double(r.atUnixSeconds), r.status.sql,
         r.reason.sql, r.apnsUniqueID.sql, r.worker.sql]
    }

    private static func insertAttempt(rows: Int) -> String {
        """
        INSERT INTO ap_attempts (push_id, at_unix, token_redacted, outcome, status, reason, apns_id, apns_unique_id,
          latency_ms, worker, note) VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ","))
        """
    }

    private static func attemptParams(_ r: AttemptResult) -> [SQLValue] {
        [.int(r.pushID), .double(r.atUnixSeconds), .text(DeviceToken.redacted(r.target)), .text(r.outcome.rawValue),
         r.status.sql, r.reason.sql, .text(r.apnsID), r.apnsUniqueID.sql, r.latencyMilliseconds.sql, r.worker.sql, r.note.sql]
    }

    /// `IN (?, ?, …)` (SQLite) or `= ANY(?::text[])` (PostgreSQL: one statement text for any count, prepared
    /// once) for a list of texts, with its parameters.
    private func among(_ values: [String]) -> (sql: String, params: [SQLValue]) {
        let params = values.map { SQLValue.text($0) }
        if dialect == .postgres { return ("= ANY(?::text[])", [Self.arrayParameter(params)]) }
        return ("IN (" + Array(repeating: "?", count: values.count).joined(separator: ",") + ")", params)
    }

    func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String] {
        // One statement per 500 tokens (a claim asks for its whole batch).
        let unique = Array(Set(targets))
        var out: [String: String] = [:]
        var start = 0
        while start < unique.count {
            let chunk = Array(unique[start..<min(start + 500, unique.count)])
            start += chunk.count
            let (among, params) = among(chunk)
            for row in try db.query("SELECT token, reason FROM ap_inactive_tokens WHERE token \(among)", params) {
                if let token = row[0].text, let reason = row[1].text { out[token] = reason }
            }
        }
        return out
    }

    func queuedCount(environment: APNsEnvironment, credential: String) throws(QueueError) -> Int {
        Int(try db.query("""
            SELECT COUNT(*) FROM ap_pushes WHERE environment = ? AND credential = ? AND state IN ('pending', 'inflight')
            """, [.text(environment.name), .text(credential)]).first?.first?.int ?? 0)
    }

    func isDrained(environment: APNsEnvironment, credential: String, now: Double) throws(QueueError) -> Bool {
        let n = try db.query("""
            SELECT COUNT(*) FROM ap_pushes WHERE environment = ? AND credential = ?
              AND (state = 'inflight' OR (state = 'pending' AND not_before_unix <= ?)
                   OR (state = 'pending' AND target_kind = 'broadcast' AND not_before_unix <= ?))
            """, [.text(environment.name), .text(credential), .double(now), .double(now + BroadcastBudget.drainWaitSeconds)]).first?.first?.int ?? 0
        return n == 0
    }

    // MARK: Status and dead letters

    func status(now: Double) throws(QueueError) -> QueueStatus {
        var counts: [String: Int] = [:]
        for s in PushState.all { counts[s.rawValue] = 0 }
        for r in try db.query("""
            SELECT state, COUNT(*) FROM (SELECT state FROM ap_pushes UNION ALL SELECT state FROM ap_pushes_done) AS every_push
            GROUP BY state
            """, []) {
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
        let routes = try db.query("""
            SELECT environment, credential, COUNT(*) FROM ap_pushes
            WHERE (state = 'pending' AND not_before_unix <= ?) OR (state = 'inflight' AND lease_until_unix < ?)
            GROUP BY environment, credential ORDER BY 3 DESC, 1, 2
            """, [.double(now), .double(now)]).map {
            QueueStatus.DueRoute(environment: $0[0].text ?? "", credential: $0[1].text ?? "", count: Int($0[2].int ?? 0))
        }
        return QueueStatus(counts: counts, due: Int(due[0].int ?? 0), oldestDueUnixSeconds: due[1].double,
                           nextRetryUnixSeconds: next, deadByReason: dead, inactiveTokens: Int(inactive),
                           attempts: Int(attempts), dueByRoute: routes)
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
        // The latest `limit` rows (newest id first in the inner query), given back oldest first.
        if let pushID {
            rows = try db.query("SELECT \(cols) FROM (SELECT id, \(cols) FROM ap_attempts WHERE push_id = ? ORDER BY id DESC LIMIT ?) latest ORDER BY id",
                                [.int(pushID), .int(Int64(limit))])
        } else {
            rows = try db.query("SELECT \(cols) FROM (SELECT id, \(cols) FROM ap_attempts ORDER BY id DESC LIMIT ?) latest ORDER BY id",
                                [.int(Int64(limit))])
        }
        return rows.map {
            AttemptRecord(pushID: $0[0].int ?? 0, atUnixSeconds: $0[1].double ?? 0, tokenRedacted: $0[2].text ?? "",
                          outcome: AttemptOutcome(rawValue: $0[3].text ?? ""), status: $0[4].int.map { Int($0) },
                          reason: $0[5].text, apnsID: $0[6].text ?? "", apnsUniqueID: $0[7].text,
                          latencyMilliseconds: $0[8].double, worker: $0[9].text, note: $0[10].text)
        }
    }

    func push(id: Int64) throws(QueueError) -> StoredPush? {
        if let live = try db.query("SELECT \(Self.pushColumns) FROM ap_pushes WHERE id = ?", [.int(id)]).first {
            return storedPush(live)
        }
        return try db.query("SELECT \(Self.pushColumns) FROM ap_pushes_done WHERE id = ?", [.int(id)]).first.map(storedPush)
    }
}
