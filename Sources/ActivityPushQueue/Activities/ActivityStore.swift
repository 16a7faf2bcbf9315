import ActivityPushAPNs
import ActivityPushCore
import Foundation

/// The lifecycle's SQL side: reads what ``ActivityLifecycle`` needs, applies its decision — the activity and
/// device rows, the built push, the queue rows (``SQLOutbox``'s own enqueue), the journal — in **one
/// transaction** with the queue, so nothing is half-written. Lifecycle transactions take turns (SQLite
/// `BEGIN IMMEDIATE`; PostgreSQL an advisory lock), so budgets counted here hold across every process.
struct ActivityStore: Sendable {
    let locked: LockedOutbox

    /// The store of an SQL queue; nil for another ``QueueStore`` implementation.
    init?(_ store: any QueueStore) {
        guard let sql = store as? any SQLQueueStore else { return nil }
        locked = sql.outbox
    }

    /// Runs `body` in one transaction; an ``ActivityError`` thrown by it rolls everything back.
    func transaction<T: Sendable>(_ body: (SQLOutbox) throws(ActivityError) -> T) throws(ActivityError) -> T {
        var refusal: ActivityError?
        do throws(QueueError) {
            return try locked.run { (outbox: SQLOutbox) throws(QueueError) -> T in
                try outbox.db.transaction(immediate: true) { () throws(QueueError) -> T in
                    if outbox.dialect == .postgres { _ = try outbox.db.query("SELECT pg_advisory_xact_lock(7250)", []) }
                    do throws(ActivityError) {
                        return try body(outbox)
                    } catch {
                        refusal = error
                        throw QueueError("refused: \(error.message)")
                    }
                }
            }
        } catch {
            if let refusal { throw refusal }
            throw .store(error)
        }
    }

    // MARK: Reading

    static func activity(_ o: SQLOutbox, id: String) throws(QueueError) -> ActivityRecord? {
        guard let row = try o.db.query("""
            SELECT activity_id, attributes_type, environment, channel_id, state, end_reason, fingerprint, last_timestamp,
              created_unix, ended_unix FROM ap_la_activities WHERE activity_id = ?
            """, [.text(id)]).first else { return nil }
        var record = ActivityRecord(activityID: row[0].text ?? id, attributesType: row[1].text ?? "", environment: .stored(row[2].text ?? ""),
                                    channelID: row[3].text, state: ActivityState(rawValue: row[4].text ?? ""),
                                    endReason: row[5].text, fingerprint: row[6].text ?? "", lastTimestamp: row[7].int ?? 0,
                                    createdUnixSeconds: row[8].double ?? 0, endedUnixSeconds: row[9].double)
        for device in try o.db.query("""
            SELECT d.device_id, d.state, d.held_message_id, m.event FROM ap_la_devices d
              LEFT JOIN ap_la_messages m ON m.id = d.held_message_id
            WHERE d.activity_id = ? ORDER BY d.position
            """, [.text(id)]) {
            let held = device[2].int.map { ActivityMessageRef.stored(id: $0, event: LiveActivityEvent(rawValue: device[3].text ?? "update")) }
            record.devices.append(ActivityDeviceRecord(deviceID: device[0].text ?? "", state: ActivityDeviceState(rawValue: device[1].text ?? ""),
                                                       held: held))
        }
        return record
    }

    /// What the reducer needs for `activity` (or the start about to create it).
    static func context(_ o: SQLOutbox, activityID: String, start: ActivityLifecycle.Start?, now: Double,
                        budgets: ActivityBudgets) throws(QueueError) -> ActivityLifecycle.Context {
        var context = ActivityLifecycle.Context(now: now, budgets: budgets)
        let since = now - budgets.windowSeconds
        if let start, !start.deviceIDs.isEmpty {
            let list = placeholders(start.deviceIDs.count)
            for row in try o.db.query("""
                SELECT device_id, token FROM ap_la_tokens WHERE kind = 'push-to-start' AND attributes_type = ?
                  AND environment = ? AND retired_reason IS NULL AND device_id IN (\(list))
                """, [.text(start.attributesType), .text(start.environment.name)] + start.deviceIDs.map(SQLValue.text)) {
                if let device = row[0].text, let token = row[1].text { context.pushToStartTokens[device] = token }
            }
            let tokens = Array(Set(context.pushToStartTokens.values))
            if !tokens.isEmpty {
                for row in try o.db.query("""
                    SELECT target, not_before_unix FROM ap_la_sends WHERE event = 'start' AND not_before_unix > ?
                      AND target IN (\(placeholders(tokens.count)))
                    """, [.double(since)] + tokens.map(SQLValue.text)) {
                    if let token = row[0].text, let time = row[1].double { context.startTimesByToken[token, default: []].append(time) }
                }
            }
        }
        for row in try o.db.query("""
            SELECT device_id, token FROM ap_la_tokens WHERE kind = 'update' AND activity_id = ? AND retired_reason IS NULL
            """, [.text(activityID)]) {
            if let device = row[0].text, let token = row[1].text { context.updateTokens[device] = token }
        }
        if start == nil {
            // Starts still queued and never tried: an end may take them back (nothing reached the phone).
            for row in try o.db.query("""
                SELECT s.device_id, s.push_id FROM ap_la_sends s JOIN ap_pushes p ON p.id = s.push_id
                WHERE s.activity_id = ? AND s.event = 'start' AND p.state = 'pending' AND p.attempts = 0
                """, [.text(activityID)]) {
                if let device = row[0].text, let pushID = row[1].int { context.unsentStarts[device] = pushID }
            }
        }
        context.priority10UpdateTimes = try o.db.query("""
            SELECT created_unix FROM ap_la_messages WHERE activity_id = ? AND event = 'update' AND priority = 10 AND created_unix > ?
            """, [.text(activityID), .double(since)]).compactMap { $0.first?.double }
        return context
    }

    /// For a late push-to-start token: the device's token and its start times, the activity's stored start and
    /// newest update or end.
    static func lateStartContext(_ o: SQLOutbox, activity: ActivityRecord, deviceID: String, now: Double,
                                 budgets: ActivityBudgets) throws(QueueError) -> ActivityLifecycle.Context {
        let start = ActivityLifecycle.Start(activityID: activity.activityID, attributesType: activity.attributesType,
                                            environment: activity.environment, deviceIDs: [deviceID], fingerprint: activity.fingerprint)
        var context = try self.context(o, activityID: activity.activityID, start: start, now: now, budgets: budgets)
        for row in try o.db.query("SELECT id, event FROM ap_la_messages WHERE activity_id = ? ORDER BY id", [.text(activity.activityID)]) {
            guard let id = row[0].int else { continue }
            let event = LiveActivityEvent(rawValue: row[1].text ?? "")
            if event == .start { context.startMessageID = context.startMessageID ?? id } else { context.latestChange = .stored(id: id, event: event) }
        }
        return context
    }

    /// Running activities of `type` in which `deviceID` had no push-to-start token.
    static func activitiesAwaiting(_ o: SQLOutbox, deviceID: String, type: String, environment: APNsEnvironment) throws(QueueError) -> [String] {
        try o.db.query("""
            SELECT a.activity_id FROM ap_la_activities a JOIN ap_la_devices d ON d.activity_id = a.activity_id
            WHERE d.device_id = ? AND d.state = 'no-token' AND a.attributes_type = ? AND a.environment = ? AND a.state <> 'ended'
            ORDER BY a.created_unix
            """, [.text(deviceID), .text(type), .text(environment.name)]).compactMap { $0.first?.text }
    }

    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }

    // MARK: Applying

    /// Writes `decision`: builds its message with `build` (the one builder and validator), enqueues its
    /// deliveries, records sends, held pushes (journaled with the budget) and notes.
    static func apply(_ o: SQLOutbox, _ decision: ActivityLifecycle.Decision, now: Double,
                      build: (ActivityLifecycle.Message) throws(ActivityError) -> PushRequest) throws(ActivityError) {
        do {
            try write(o, decision, now: now, build: build)
        } catch let error as ActivityError {
            throw error
        } catch let error as QueueError {
            throw .store(error)
        } catch {
            throw ActivityError(status: 500, code: "internal", message: "\(error)")
        }
    }

    private static func write(_ o: SQLOutbox, _ decision: ActivityLifecycle.Decision, now: Double,
                              build: (ActivityLifecycle.Message) throws(ActivityError) -> PushRequest) throws {
        guard decision.outcome != .unchanged, decision.outcome != .repeated else { return }
        let activity = decision.activity
        var newMessage: (id: Int64, request: PushRequest)?
        if let message = decision.message {
            let request = try build(message)
            guard let id = try o.db.query("""
                INSERT INTO ap_la_messages (activity_id, event, priority, aps_timestamp, lowered_by, headers, body, created_unix)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, [.text(activity.activityID), .text(message.event.rawValue), .int(Int64(message.priority)),
                      .int(message.timestamp), (message.loweredBy?.rawValue).sql,
                      .text(SQLOutbox.encodeHeaders(request.headers)), .blob(request.body), .double(now)]).first?.first?.int
            else { throw QueueError("activity message: the database returned no id") }
            newMessage = (id, request)
        }
        _ = try o.db.query("""
            INSERT INTO ap_la_activities (activity_id, attributes_type, environment, channel_id, state, end_reason, fingerprint,
              last_timestamp, created_unix, ended_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (activity_id) DO UPDATE SET state = excluded.state, end_reason = excluded.end_reason,
              last_timestamp = excluded.last_timestamp, ended_unix = excluded.ended_unix, updated_unix = excluded.updated_unix
            """, [.text(activity.activityID), .text(activity.attributesType), .text(activity.environment.name), activity.channelID.sql,
                  .text(activity.state.rawValue), activity.endReason.sql, .text(activity.fingerprint), .int(activity.lastTimestamp),
                  .double(activity.createdUnixSeconds), activity.endedUnixSeconds.sql, .double(now)])
        for (position, device) in activity.devices.enumerated() {
            let held: SQLValue
            switch device.held {
            case .new?: held = newMessage.map { .int($0.id) } ?? .null
            case .stored(let id, _)?: held = .int(id)
            case nil: held = .null
            }
            _ = try o.db.query("""
                INSERT INTO ap_la_devices (activity_id, device_id, position, state, held_message_id) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (activity_id, device_id) DO UPDATE SET state = excluded.state, held_message_id = excluded.held_message_id
                """, [.text(activity.activityID), .text(device.deviceID), .int(Int64(position)), .text(device.state.rawValue), held])
        }
        // The queue rows, one per delivery, in one enqueue (inside this transaction: a savepoint).
        var rows: [NewPush] = []
        var messageIDs: [Int64] = []
        var priorities: [Int] = []
        for delivery in decision.deliveries {
            let messageID: Int64
            let request: PushRequest
            switch delivery.message {
            case .new:
                guard let newMessage else { throw QueueError("activity delivery without a message") }
                (messageID, request) = newMessage
            case .stored(let id, _):
                messageID = id
                request = try storedMessage(o, id: id)
            }
            let targets = delivery.channelID == nil ? [delivery.token] : []
            rows += try Outbox.rows(for: request, to: targets, environment: activity.environment,
                                    notBeforeUnixSeconds: delivery.notBefore)
            messageIDs.append(messageID)
            priorities.append(request.headers.priority.flatMap { Int($0) } ?? 10)
        }
        let pushIDs = try o.enqueue(rows, now: now)
        for (index, delivery) in decision.deliveries.enumerated() {
            let row = rows[index]
            _ = try o.db.query("""
                INSERT INTO ap_la_sends (activity_id, device_id, message_id, event, push_id, apns_id, target, priority,
                  not_before_unix, budget, created_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(activity.activityID), .text(delivery.deviceID), .int(messageIDs[index]), .text(delivery.event.rawValue),
                      .int(pushIDs[index]), .text(row.apnsID), .text(row.target), .int(Int64(priorities[index])),
                      .double(delivery.notBefore), (delivery.heldBy?.rawValue ?? (delivery.event == .update ? decision.message?.loweredBy?.rawValue : nil)).sql,
                      .double(now)])
            if let budget = delivery.heldBy {
                _ = try o.db.query("""
                    INSERT INTO ap_attempts (push_id, at_unix, token_redacted, outcome, apns_id, note) VALUES (?, ?, ?, ?, ?, ?)
                    """, [.int(pushIDs[index]), .double(now), .text(DeviceToken.redacted(row.target)), .text(AttemptOutcome.held.rawValue),
                          .text(row.apnsID), .text("held by the \(budget) budget: not sent before \(Int64(delivery.notBefore)) "
                                                    + "(UNIX seconds); activity \(activity.activityID), device \(delivery.deviceID)")])
            }
        }
        for pushID in decision.cancelledPushes {
            let taken = try o.db.query("""
                UPDATE ap_pushes SET state = 'superseded', last_reason = ?, updated_unix = ? WHERE id = ? AND state = 'pending'
                RETURNING id
                """, [.text("cancelled: the activity ended before its start was sent"), .double(now), .int(pushID)])
            guard !taken.isEmpty else {
                throw ActivityError(status: 409, code: "conflict", field: "activityID",
                                    message: "the start (push \(pushID)) of activity \(activity.activityID) went out while the end was decided",
                                    fix: "send the end again: it now goes to the device")
            }
        }
        for note in decision.notes {
            try journal(o, activityID: activity.activityID, deviceID: note.deviceID, text: note.text, now: now)
        }
    }

    /// For `worker --drain`: a device still `starting` with a held update or end, its start sent (APNs answered)
    /// since `startsSentSince` (UNIX seconds), in a running activity of `environment`.
    static func awaitsUpdateTokens(_ o: SQLOutbox, environment: String, startsSentSince: Double) throws(QueueError) -> Bool {
        let count = try o.db.query("""
            SELECT COUNT(*) FROM ap_la_devices d JOIN ap_la_activities a ON a.activity_id = d.activity_id
            WHERE d.state = 'starting' AND d.held_message_id IS NOT NULL AND a.state <> 'ended' AND a.environment = ?
              AND EXISTS (SELECT 1 FROM ap_la_sends s JOIN ap_pushes_done p ON p.id = s.push_id
                          WHERE s.activity_id = d.activity_id AND s.device_id = d.device_id AND s.event = 'start'
                            AND p.state = 'sent' AND p.updated_unix >= ?)
            """, [.text(environment), .double(startsSentSince)]).first?.first?.int ?? 0
        return count > 0
    }

    /// The worker's hook (``SQLOutbox/complete(_:)``, same transaction): on a channel activity no update token comes
    /// back (its start carries `input-push-channel`), so a start APNs accepted (2xx) makes the device `started` —
    /// subscribed to the channel — and the activity `active`.
    static func recordDeliveredStarts(_ o: SQLOutbox, after results: [AttemptResult]) throws(QueueError) {
        let delivered = results.filter { $0.outcome == .sent && ($0.status.map { (200..<300).contains($0) } ?? false) }
        var start = 0
        while start < delivered.count {
            let chunk = delivered[start..<min(start + 500, delivered.count)]
            start += chunk.count
            let atByPush = Dictionary(chunk.map { ($0.pushID, $0.atUnixSeconds) }, uniquingKeysWith: max)
            for row in try o.db.query("""
                SELECT s.activity_id, s.device_id, s.push_id, a.channel_id FROM ap_la_sends s
                  JOIN ap_la_activities a ON a.activity_id = s.activity_id
                WHERE s.push_id IN (\(placeholders(chunk.count))) AND s.event = 'start' AND a.channel_id IS NOT NULL
                """, chunk.map { SQLValue.int($0.pushID) }) {
                guard let activityID = row[0].text, let deviceID = row[1].text, let pushID = row[2].int else { continue }
                let at = atByPush[pushID] ?? 0
                let changed = try o.db.query("""
                    UPDATE ap_la_devices SET state = 'started' WHERE activity_id = ? AND device_id = ? AND state = 'starting'
                    RETURNING device_id
                    """, [.text(activityID), .text(deviceID)])
                guard !changed.isEmpty else { continue }
                _ = try o.db.query("UPDATE ap_la_activities SET state = 'active', updated_unix = ? WHERE activity_id = ? AND state = 'starting'",
                                   [.double(at), .text(activityID)])
                try journal(o, activityID: activityID, deviceID: deviceID,
                            text: "start delivered (push \(pushID), APNs 2xx): subscribed to channel \(row[3].text ?? "?"); "
                                + "its broadcasts reach the device (no update token on a channel activity)", now: at)
            }
        }
    }

    private static func storedMessage(_ o: SQLOutbox, id: Int64) throws -> PushRequest {
        guard let row = try o.db.query("SELECT headers, body FROM ap_la_messages WHERE id = ?", [.int(id)]).first else {
            throw QueueError("held message \(id) is missing")
        }
        let headers = SQLOutbox.decodeHeaders(row[0].text ?? "")
        let bundleID = LiveActivityPush.bundleID(fromTopic: headers.topic ?? "")
        do {
            return try PushRequest(bundleID: bundleID, storedHeaders: headers, body: row[1].blob ?? [])
        } catch {
            throw ActivityError(status: 500, code: "internal", message: "held message \(id) no longer validates: \(error)")
        }
    }

    static func journal(_ o: SQLOutbox, activityID: String, deviceID: String?, text: String, now: Double) throws(QueueError) {
        _ = try o.db.query("INSERT INTO ap_la_events (activity_id, device_id, at_unix, note) VALUES (?, ?, ?, ?)",
                           [.text(activityID), deviceID.sql, .double(now), .text(text)])
    }

    // MARK: Tokens

    /// What ``register(_:_:environment:now:)`` did besides storing the token.
    struct Registered: Sendable, Equatable {
        /// The retirement reason when the token stays retired (APNs marked it inactive after this post's time).
        var retired: String?
        /// The reason it was retired before, when this post made it valid again (Apple: a token registered after
        /// the `Unregistered` 410's timestamp is valid again — spec §6).
        var reactivated: String?
        /// The deviceIDs the token was moved from (a token identifies one device).
        var movedFrom: [String]
    }

    /// Stores (or replaces) a token. A token the queue marked inactive (410 `Unregistered`) before `now` is valid
    /// again: its inactive mark is cleared in the same transaction. The same token under another deviceID (same
    /// kind) is removed there — one token is one device — with a journal note on that device's open activities.
    static func register(_ o: SQLOutbox, _ token: ActivityTokenRegistration, environment: APNsEnvironment, now: Double) throws(QueueError) -> Registered {
        var outcome = Registered(retired: nil, reactivated: nil, movedFrom: [])
        if let mark = try o.db.query("SELECT reason, invalid_since_unix_ms FROM ap_inactive_tokens WHERE token = ?",
                                     [.text(token.token)]).first {
            let reason = mark[0].text ?? "Unregistered"
            let invalidSinceSeconds = mark[1].double.map { $0 / 1000 }
            if let invalidSinceSeconds, invalidSinceSeconds >= now {
                outcome.retired = reason
            } else {
                _ = try o.db.query("DELETE FROM ap_inactive_tokens WHERE token = ?", [.text(token.token)])
                outcome.reactivated = reason
            }
        }
        let others = try o.db.query("SELECT DISTINCT device_id FROM ap_la_tokens WHERE token = ? AND kind = ? AND device_id <> ?",
                                    [.text(token.token), .text(token.kind.rawValue), .text(token.deviceID)])
        for row in others {
            guard let oldDevice = row[0].text else { continue }
            _ = try o.db.query("DELETE FROM ap_la_tokens WHERE token = ? AND kind = ? AND device_id = ?",
                               [.text(token.token), .text(token.kind.rawValue), .text(oldDevice)])
            outcome.movedFrom.append(oldDevice)
            let open = try o.db.query("SELECT activity_id FROM ap_la_devices WHERE device_id = ? AND state <> 'ended'", [.text(oldDevice)])
            for activity in open {
                guard let activityID = activity[0].text else { continue }
                try journal(o, activityID: activityID, deviceID: oldDevice,
                            text: "\(token.kind.rawValue) token \(DeviceToken.redacted(token.token)) was registered under device "
                                + "\(token.deviceID): moved there (a token identifies one device); \(oldDevice) no longer has it", now: now)
            }
        }
        _ = try o.db.query("""
            INSERT INTO ap_la_tokens (key, kind, device_id, attributes_type, activity_id, token, environment, posted_unix,
              retired_reason, retired_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET token = excluded.token, environment = excluded.environment,
              posted_unix = excluded.posted_unix, retired_reason = excluded.retired_reason, retired_unix = excluded.retired_unix
            """, [.text(token.key), .text(token.kind.rawValue), .text(token.deviceID), token.attributesType.sql, token.activityID.sql,
                  .text(token.token), .text(environment.name), .double(now), outcome.retired.sql, outcome.retired == nil ? .null : .double(now)])
        return outcome
    }

    /// What the device's install secret allows this registration (``DeviceSecret``); binds the device when it is
    /// the first registration of that deviceID and carries a secret.
    static func checkDeviceSecret(_ o: SQLOutbox, deviceID: String, secret: String?, now: Double) throws(QueueError) -> DeviceSecret.Decision {
        let stored = try o.db.query("SELECT secret_sha256 FROM ap_la_device_secrets WHERE device_id = ?", [.text(deviceID)]).first?[0].text
        var hasTokens = false
        if stored == nil, secret != nil {
            hasTokens = !(try o.db.query("SELECT 1 FROM ap_la_tokens WHERE device_id = ? LIMIT 1", [.text(deviceID)])).isEmpty
        }
        let decision = DeviceSecret.decide(stored: stored, given: secret, deviceHasTokens: hasTokens)
        if case .bind(let hash) = decision {
            _ = try o.db.query("INSERT INTO ap_la_device_secrets (device_id, secret_sha256, bound_unix) VALUES (?, ?, ?)",
                               [.text(deviceID), .text(hash), .double(now)])
        }
        return decision
    }

    /// The worker's hook (``SQLOutbox/complete(_:)``, same transaction): a push that died with an answer
    /// ``APNsResponseRule/retiresToken`` retires its token, with the reason in the activity's journal.
    static func retireTokens(_ o: SQLOutbox, after results: [AttemptResult]) throws(QueueError) {
        for result in results where result.outcome == .dead {
            guard let status = result.status,
                  APNsResponseRule.matching(status: status, reason: result.reason.map(APNsReason.init(rawValue:))).retiresToken
            else { continue }
            let reason = result.reason ?? "HTTP \(status)"
            let retired = try o.db.query("""
                UPDATE ap_la_tokens SET retired_reason = ?, retired_unix = ? WHERE token = ? AND retired_reason IS NULL
                RETURNING kind, device_id, activity_id
                """, [.text(reason), .double(result.atUnixSeconds), .text(result.target)])
            guard !retired.isEmpty else { continue }
            let sends = try o.db.query("SELECT activity_id, device_id FROM ap_la_sends WHERE push_id = ?", [.int(result.pushID)])
            for send in sends {
                guard let activityID = send[0].text else { continue }
                _ = try o.db.query("""
                    UPDATE ap_la_devices SET state = 'token-retired', held_message_id = NULL
                    WHERE activity_id = ? AND device_id = ? AND state <> 'ended'
                    """, [.text(activityID), send[1]])
                try journal(o, activityID: activityID, deviceID: send[1].text,
                            text: "token \(DeviceToken.redacted(result.target)) retired: APNs answered \(status) \(reason) "
                                + "(push \(result.pushID)); nothing more is sent to it", now: result.atUnixSeconds)
            }
        }
    }
}
