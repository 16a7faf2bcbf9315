import ActivityPushCore
import Foundation

/// Activities instead of tokens: the app posts its tokens, the backend says start / update / end, and this
/// service decides what to send (``ActivityLifecycle``), builds each push once with the one builder and the
/// validator (``LiveActivityPush/Fields``, against `schema` when given), and queues it — in one transaction
/// with the activity's state — for `activity-push worker` to send. `serve` (`/v1/tokens`, `/v1/activities…`) and
/// `activity-push activities` are thin fronts for it. Safe to use from several threads and processes.
public final class LiveActivityService: Sendable {
    /// The queue the pushes go into (SQLite or PostgreSQL); the lifecycle tables live in the same database.
    public let outbox: Outbox
    /// The app's bundle id (`apns-topic` is `<bundleID>.push-type.liveactivity`).
    public let bundleID: String
    /// The queue environment (`sandbox` or `production`) pushes are queued under; the default for tokens.
    public let environment: APNsEnvironment
    /// The app's types; nil skips the schema rules (the validator still runs).
    public let schema: ActivitySchema?
    /// The budgets enforced (``ActivityBudgets``).
    public let budgets: ActivityBudgets
    let store: ActivityStore
    let clock: @Sendable () -> Double

    /// - Parameters:
    ///   - clock: now, UNIX seconds (tests move it).
    /// - Throws: ``ActivityError`` 503 when the outbox's store is not an SQL queue.
    public init(outbox: Outbox, bundleID: String, environment: APNsEnvironment = .sandbox, schema: ActivitySchema? = nil,
                budgets: ActivityBudgets = .init(),
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws(ActivityError) {
        guard let store = ActivityStore(outbox.store) else {
            throw ActivityError(status: 503, code: "not-configured", message: "activities need the SQLite or PostgreSQL queue")
        }
        self.outbox = outbox
        self.bundleID = bundleID
        self.environment = environment
        self.schema = schema
        self.budgets = budgets
        self.store = store
        self.clock = clock
    }

    /// What ``register(_:)`` stored.
    public struct TokenReceipt: Sendable, Hashable {
        /// The kind stored.
        public var kind: ActivityTokenKind
        /// The device.
        public var deviceID: String
        /// The token, redacted.
        public var token: String
        /// Set when the token was already retired by APNs (the reason); nothing will be sent to it.
        public var retired: String?
        /// Set when the token had been retired (the reason) and this post made it valid again: Apple's rule, a token
        /// registered after the 410 `Unregistered` timestamp is valid again (spec §6).
        public var reactivated: String? = nil
        /// The deviceIDs this token was registered under before: it moved here (a token identifies one device).
        public var movedFrom: [String] = []
        /// The pushes its arrival queued: held updates or ends (update token), starts of running activities the
        /// device had no token for (push-to-start token).
        public var released: Int

        /// `{"kind", "deviceID", "token", "retired", "reactivated", "movedFrom", "released"}`.
        public var json: JSONValue {
            .obj([("kind", .string(kind.rawValue)), ("deviceID", .string(deviceID)), ("token", .string(token)),
                  ("retired", retired.map(JSONValue.string) ?? .null), ("reactivated", reactivated.map(JSONValue.string) ?? .null),
                  ("movedFrom", .arr(movedFrom.map(JSONValue.string))), ("released", .int(released))])
        }
    }

    /// Stores a token the app reported; an update token makes its device `started` and releases what was held.
    /// - Throws: ``ActivityError`` 400 naming the field; 503 when the store fails.
    public func register(_ registration: ActivityTokenRegistration) throws(ActivityError) -> TokenReceipt {
        let token = try registration.validated()
        if token.kind == .pushToStart, let type = token.attributesType { try checkType(type, field: "attributesType") }
        let now = clock()
        let environment = token.environment.flatMap(APNsEnvironment.named) ?? self.environment
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> TokenReceipt in
            let secretDecision: DeviceSecret.Decision
            do throws(QueueError) {
                secretDecision = try ActivityStore.checkDeviceSecret(o, deviceID: token.deviceID, secret: token.deviceSecret, now: now)
            } catch { throw .store(error) }
            if secretDecision == .refuse {
                throw ActivityError(status: 403, code: "forbidden", field: "deviceSecret",
                                    message: "deviceSecret: device '\(token.deviceID)' is bound to the install that registered it, and this post "
                                        + (token.deviceSecret == nil ? "carries no deviceSecret" : "carries another deviceSecret"),
                                    fix: "send the deviceSecret this install generated at first launch (kept in the Keychain); a new install uses a new deviceID")
            }
            let registered: ActivityStore.Registered
            do throws(QueueError) { registered = try ActivityStore.register(o, token, environment: environment, now: now) } catch { throw .store(error) }
            let retired = registered.retired
            var receipt = TokenReceipt(kind: token.kind, deviceID: token.deviceID, token: DeviceToken.redacted(token.token),
                                       retired: retired, released: 0)
            receipt.reactivated = registered.reactivated
            receipt.movedFrom = registered.movedFrom
            if token.kind == .pushToStart, retired == nil, let type = token.attributesType {
                // Activities started while this device had no token: start it there now.
                let waiting: [String]
                do throws(QueueError) {
                    waiting = try ActivityStore.activitiesAwaiting(o, deviceID: token.deviceID, type: type, environment: environment)
                } catch { throw .store(error) }
                for activityID in waiting {
                    let found: ActivityRecord?
                    do throws(QueueError) { found = try ActivityStore.activity(o, id: activityID) } catch { throw .store(error) }
                    guard let activity = found else { continue }
                    let context: ActivityLifecycle.Context
                    do throws(QueueError) {
                        context = try ActivityStore.lateStartContext(o, activity: activity, deviceID: token.deviceID, now: now,
                                                                     budgets: budgets)
                    } catch { throw .store(error) }
                    let decision = try ActivityLifecycle.reduce(activity, event: .pushToStartToken(deviceID: token.deviceID), context: context)
                    try ActivityStore.apply(o, decision, now: now, build: build(activity: decision.activity, request: nil))
                    receipt.released += decision.deliveries.count
                }
                return receipt
            }
            guard token.kind == .update, retired == nil, let activityID = token.activityID else { return receipt }
            let activity: ActivityRecord?
            let context: ActivityLifecycle.Context
            do throws(QueueError) {
                activity = try ActivityStore.activity(o, id: activityID)
                context = try ActivityStore.context(o, activityID: activityID, start: nil, now: now, budgets: budgets)
            } catch { throw .store(error) }
            // An update token names an activity this server started and one of its devices; anything else is a
            // typo or a mix-up of ids, refused before the token is kept (the transaction rolls back).
            guard let activity else {
                throw ActivityError(status: 404, code: "not-found", field: "activityID",
                                    message: "activityID: no activity \(activityID) on this server",
                                    fix: "post the update token with the activityID the start used (GET /v1/activities lists them)")
            }
            guard activity.devices.contains(where: { $0.deviceID == token.deviceID }) else {
                let known = activity.devices.map(\.deviceID).joined(separator: ", ")
                throw ActivityError(status: 404, code: "not-found", field: "deviceID",
                                    message: "deviceID: \(token.deviceID) is not a device of activity \(activityID) (its devices: \(known.isEmpty ? "none" : known))",
                                    fix: "post the token with the deviceID the start named, or start the activity on this device")
            }
            let decision = try ActivityLifecycle.reduce(activity, event: .updateToken(deviceID: token.deviceID), context: context)
            try ActivityStore.apply(o, decision, now: now, build: build(activity: decision.activity, request: nil))
            receipt.released = decision.deliveries.count
            return receipt
        }
    }

    /// Starts an activity (idempotent on its activityID).
    /// - Returns: the activity's view and whether this call created it (false: a repeat; nothing was sent).
    /// - Throws: ``ActivityError`` 400 bad input; 409 another start under this activityID; 422 findings, or no
    ///   device has a push-to-start token; 400 `"channel": true` without `channelID` (use ``start(_:channels:)``,
    ///   which takes or creates the channel).
    public func start(_ request: ActivityStartRequest) throws(ActivityError) -> (view: ActivityView, created: Bool) {
        try start(request, sentChannelID: request.channelID)
    }

    /// ``start(_:)`` fingerprinting the request as the client sent it: `sentChannelID` is its `channelID` before
    /// ``start(_:channels:)`` filled in the one it created, so a repeat of the start compares equal.
    func start(_ request: ActivityStartRequest, sentChannelID: String?) throws(ActivityError) -> (view: ActivityView, created: Bool) {
        let request = try request.validated()
        let channelID = try channel(for: request)
        guard let type = request.attributesType ?? (schema?.types.count == 1 ? schema?.types.first?.name : nil), !type.isEmpty else {
            throw .badRequest("type", "is required: the ActivityAttributes type name (attributes-type)",
                              fix: "give \"type\": \"<Swift type name>\", or start serve with --attributes declaring one type")
        }
        try checkType(type, field: "type")
        var typed = request
        typed.attributesType = type
        var asSent = typed
        asSent.channelID = sentChannelID
        let start = ActivityLifecycle.Start(activityID: request.activityID, attributesType: type, environment: environment,
                                            deviceIDs: request.deviceIDs, channelID: channelID, fingerprint: asSent.fingerprint)
        let now = clock()
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> (view: ActivityView, created: Bool) in
            let existing: ActivityRecord?
            let context: ActivityLifecycle.Context
            do throws(QueueError) {
                existing = try ActivityStore.activity(o, id: request.activityID)
                context = try ActivityStore.context(o, activityID: request.activityID, start: start, now: now, budgets: budgets)
            } catch { throw .store(error) }
            let before = try lastSend(o)
            let decision = try ActivityLifecycle.reduce(existing, event: .start(start), context: context)
            try ActivityStore.apply(o, decision, now: now, build: build(activity: decision.activity, request: .start(typed)))
            var answer = try view(o, id: request.activityID, queuedAfter: before)
            answer.repeated = decision.outcome != .created
            return (answer, decision.outcome == .created)
        }
    }

    /// Refuses a type name that is not one of the schema's `ActivityAttributes` types, exactly (the validator's
    /// `attributes-type-mismatch`, ``AttributesTypeMatch``: names the right spelling when only case differs).
    /// Nothing to check without a schema.
    /// - Throws: ``ActivityError`` 422 `findings` naming `field`.
    private func checkType(_ name: String, field: String) throws(ActivityError) {
        guard let schema, !schema.types.isEmpty else { return }
        let match = AttributesTypeMatch(name, in: schema)
        guard let finding = match.finding(at: field) else { return }
        throw ActivityError(status: 422, code: "findings", field: field,
                            message: "\(field): \(FindingCode.attributesTypeMismatch): \(match.message)",
                            fix: match.closest.map { "give \"\(field)\": \"\($0.name)\"" } ?? match.fix, findings: [finding])
    }

    /// The broadcast channel a `"channel": true` start uses; nil for device pushes: the request's `channelID`, taken
    /// from the registry or created at Apple by ``start(_:channels:)``. The start then carries `input-push-channel`
    /// and each update and end goes as one broadcast (``ActivityLifecycle/audience(of:)``).
    /// - Throws: ``ActivityError`` 400 for a channel activity without its `channelID`.
    private func channel(for request: ActivityStartRequest) throws(ActivityError) -> String? {
        guard request.channel else { return nil }
        // Taken or created (an Apple call, so async) by start(_:channels:), which fills channelID in.
        guard let channelID = request.channelID else {
            throw ActivityError(status: 400, code: "bad-request", field: "channelID",
                                message: "a channel activity needs its channel: start it with start(_:channels:), which creates one",
                                fix: "give \"channelID\" of a registered channel, or start serve with --auth-key so one can be created")
        }
        return channelID
    }

    /// Updates an activity: sent to each started device, held for the others.
    /// - Throws: ``ActivityError`` 400, 404, 409 (ended), 422 findings.
    public func update(activityID: String, _ request: ActivityChangeRequest) throws(ActivityError) -> ActivityView {
        try change(activityID: activityID, event: .update, request)
    }

    /// Ends an activity: delivered like an update, then the activity is `ended`. Idempotent: the same end again
    /// answers the current view and sends nothing.
    /// - Throws: ``ActivityError`` 400, 404, 409 (already ended by another end or by the 8-hour limit; names the
    ///   state), 422 findings.
    public func end(activityID: String, _ request: ActivityChangeRequest) throws(ActivityError) -> ActivityView {
        try change(activityID: activityID, event: .end, request)
    }

    private func change(activityID: String, event: LiveActivityEvent, _ request: ActivityChangeRequest) throws(ActivityError) -> ActivityView {
        try ActivityStartRequest.checkActivityID(activityID)
        let request = try request.validated(event: event)
        let now = clock()
        let priority = request.priority ?? 10
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> ActivityView in
            let existing: ActivityRecord?
            let context: ActivityLifecycle.Context
            do throws(QueueError) {
                existing = try ActivityStore.activity(o, id: activityID)
                context = try ActivityStore.context(o, activityID: activityID, start: nil, now: now, budgets: budgets)
            } catch { throw .store(error) }
            if event == .end, let existing, existing.state == .ended {
                // A retry of the end that ended it (the client timed out): the current state, nothing sent.
                let recorded: String?
                do throws(QueueError) { recorded = try ActivityStore.endFingerprint(o, activityID: activityID) } catch { throw .store(error) }
                guard recorded == request.fingerprint else {
                    throw ActivityError(status: 409, code: "conflict", field: "activityID",
                                        message: "activity \(activityID) is \(existing.state.rawValue) (\(existing.endReason ?? "ended"))"
                                            + (recorded == nil ? "" : " by a different end request"),
                                        fix: "repeat the exact end it was ended with (it is idempotent), or start a new activity")
                }
                var answer = try view(o, id: activityID, queuedAfter: try lastSend(o))
                answer.repeated = true
                return answer
            }
            let before = try lastSend(o)
            let decision = try ActivityLifecycle.reduce(existing, event: event == .end ? .end(priority: priority) : .update(priority: priority),
                                                        context: context)
            try ActivityStore.apply(o, decision, now: now, build: build(activity: decision.activity, request: .change(request)))
            if event == .end, decision.activity.state == .ended {
                do throws(QueueError) {
                    try ActivityStore.recordEnd(o, activityID: activityID, fingerprint: request.fingerprint)
                } catch { throw .store(error) }
            }
            return try view(o, id: activityID, queuedAfter: before)
        }
    }

    /// The newest `ap_la_sends` id (0 when none): what a request queues comes after it.
    private func lastSend(_ o: SQLOutbox) throws(ActivityError) -> Int64 {
        do throws(QueueError) {
            return try o.db.query("SELECT COALESCE(MAX(id), 0) FROM ap_la_sends", []).first?.first?.int ?? 0
        } catch { throw .store(error) }
    }

    /// One activity (ended by Apple's 8-hour limit first when it is past it).
    /// - Throws: ``ActivityError`` 404 when there is none.
    /// - Parameter detail: ``ActivityView/Detail/recent`` (the newest 50 pushes and journal rows) or `.all`.
    public func show(activityID: String, detail: ActivityView.Detail = .recent) throws(ActivityError) -> ActivityView {
        try ActivityStartRequest.checkActivityID(activityID)
        let now = clock()
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> ActivityView in
            try expire(o, now: now)
            return try view(o, id: activityID, detail: detail)
        }
    }

    /// Activities, newest first, in `state` when given (after ending those past Apple's 8-hour limit), at most
    /// `limit` (``ActivityListLimit``), each with `detail` (default: no pushes or journal rows, their counts only).
    /// - Throws: ``ActivityError`` 400 `limit` out of range; 503 when the store fails.
    public func list(state: ActivityState? = nil, limit: Int = ActivityListLimit.defaultLimit,
                     detail: ActivityView.Detail = .summary) throws(ActivityError) -> [ActivityView] {
        let limit = try ActivityListLimit.checked(limit)
        let now = clock()
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> [ActivityView] in
            try expire(o, now: now)
            let ids: [String]
            do throws(QueueError) {
                let filter = state == nil ? "" : "WHERE state = ?"
                let params: [SQLValue] = (state.map { [.text($0.rawValue)] } ?? []) + [.int(Int64(limit))]
                ids = try o.db.query("SELECT activity_id FROM ap_la_activities \(filter) ORDER BY created_unix DESC, activity_id LIMIT ?",
                                     params).compactMap { $0.first?.text }
            } catch { throw .store(error) }
            var views: [ActivityView] = []
            for id in ids { views.append(try view(o, id: id, detail: detail)) }
            return views
        }
    }

    /// Counts for `/metrics`.
    public struct Counts: Sendable, Hashable {
        /// Activities by state name.
        public var activities: [String: Int] = [:]
        /// Live (not retired) tokens by kind name.
        public var tokens: [String: Int] = [:]
        /// Retired tokens.
        public var retiredTokens = 0
        /// Pushes a budget held or lowered, by budget name.
        public var budgetHolds: [String: Int] = [:]
    }

    /// Counts of activities by state (after ending those past Apple's 8-hour limit), tokens by kind and budget holds.
    /// - Throws: ``ActivityError`` 503 when the store fails.
    public func counts() throws(ActivityError) -> Counts {
        let now = clock()
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> Counts in
            try expire(o, now: now)
            var counts = Counts()
            for state in ActivityState.all { counts.activities[state.rawValue] = 0 }
            for kind in ActivityTokenKind.all { counts.tokens[kind.rawValue] = 0 }
            do throws(QueueError) {
                for row in try o.db.query("SELECT state, COUNT(*) FROM ap_la_activities GROUP BY state", []) {
                    counts.activities[row[0].text ?? "?"] = Int(row[1].int ?? 0)
                }
                for row in try o.db.query("SELECT kind, COUNT(*) FROM ap_la_tokens WHERE retired_reason IS NULL GROUP BY kind", []) {
                    counts.tokens[row[0].text ?? "?"] = Int(row[1].int ?? 0)
                }
                counts.retiredTokens = Int(try o.db.query("SELECT COUNT(*) FROM ap_la_tokens WHERE retired_reason IS NOT NULL", [])
                    .first?.first?.int ?? 0)
                counts.budgetHolds[ActivityBudget.pushToStart.rawValue] = 0
                counts.budgetHolds[ActivityBudget.priority10.rawValue] = 0
                for row in try o.db.query("SELECT budget, COUNT(*) FROM ap_la_sends WHERE budget IS NOT NULL GROUP BY budget", []) {
                    counts.budgetHolds[row[0].text ?? "?"] = Int(row[1].int ?? 0)
                }
                counts.budgetHolds[ActivityBudget.broadcastPerChannel.rawValue] = Int(try o.db.query(
                    "SELECT COUNT(*) FROM ap_attempts WHERE outcome = 'held' AND reason = ?",
                    [.text(BroadcastBudget.reason)]).first?.first?.int ?? 0)
            } catch { throw .store(error) }
            return counts
        }
    }

    // MARK: Building

    private enum Source { case start(ActivityStartRequest), change(ActivityChangeRequest) }

    /// The one builder and the validator for a decision's message.
    private func build(activity: ActivityRecord, request: Source?) -> (ActivityLifecycle.Message) throws(ActivityError) -> PushRequest {
        let bundleID = self.bundleID
        let schema = self.schema
        return { (message: ActivityLifecycle.Message) throws(ActivityError) -> PushRequest in
            var fields = LiveActivityPush.Fields(event: message.event)
            switch request {
            case .start(let start)?:
                fields.attributesType = start.attributesType
                fields.attributes = start.attributes
                fields.contentState = start.contentState
                fields.alertTitle = start.alertTitle
                fields.alertBody = start.alertBody
                fields.staleDateUnixSeconds = start.staleDateUnixSeconds
                fields.relevanceScore = start.relevanceScore
                // The device reports the new activity's update token (iOS 18: input-push-token); a channel
                // activity's start carries input-push-channel instead (below), never both (two-push-inputs).
                if case .devices = ActivityLifecycle.audience(of: activity) { fields.requestUpdateToken = true }
            case .change(let change)?:
                fields.contentState = change.contentState
                fields.alertTitle = change.alertTitle
                fields.alertBody = change.alertBody
                fields.staleDateUnixSeconds = change.staleDateUnixSeconds
                fields.dismissalDateUnixSeconds = change.dismissalDateUnixSeconds
            case nil:
                throw ActivityError(status: 500, code: "internal", message: "a token release cannot build a new push")
            }
            fields.timestampUnixSeconds = message.timestamp
            fields.priority = message.priority
            if case .channel(let channelID) = ActivityLifecycle.audience(of: activity) {
                // The start subscribes the activity to the channel; updates and ends are broadcasts on it.
                if message.event == .start { fields.inputPushChannel = channelID } else { fields.channelID = channelID }
            }
            do throws(LiveActivityPush.FieldsError) {
                return try fields.build(bundleID: bundleID, schema: schema)
            } catch {
                switch error {
                case .findings(let findings):
                    let count = findings.filter { $0.severity == .error }.count
                    throw ActivityError(status: 422, code: "findings",
                                        message: "not queued: the \(message.event.rawValue) has \(count) error finding\(count == 1 ? "" : "s")",
                                        fix: "fix the findings (each has its fix) and send the request again", findings: findings)
                case .invalidField(let field, let text, let fix):
                    throw ActivityError.badRequest(field.jsonKey, text, fix: fix)
                }
            }
        }
    }

    // MARK: Views

    private func expire(_ o: SQLOutbox, now: Double) throws(ActivityError) {
        let due: [String]
        do throws(QueueError) {
            due = try o.db.query("SELECT activity_id FROM ap_la_activities WHERE state <> 'ended' AND created_unix <= ?",
                                 [.double(now - LiveActivityLimits.activeSeconds)]).compactMap { $0.first?.text }
        } catch { throw .store(error) }
        for activityID in due {
            let activity: ActivityRecord?
            do throws(QueueError) { activity = try ActivityStore.activity(o, id: activityID) } catch { throw .store(error) }
            let decision = try ActivityLifecycle.reduce(activity, event: .expire, context: .init(now: now, budgets: budgets))
            try ActivityStore.apply(o, decision, now: now, build: build(activity: decision.activity, request: nil))
        }
    }

    /// The activity as ``ActivityView`` with `detail`; `queuedAfter` (an `ap_la_sends` id) fills
    /// ``ActivityView/queued`` with the pushes queued after it (those of the request being answered).
    private func view(_ o: SQLOutbox, id: String, detail: ActivityView.Detail = .recent,
                      queuedAfter: Int64? = nil) throws(ActivityError) -> ActivityView {
        do {
            guard let activity = try ActivityStore.activity(o, id: id) else {
                throw ActivityError(status: 404, code: "not-found", field: "activityID", message: "no activity \(id)",
                                    fix: "GET /v1/activities lists them")
            }
            var tokens: [String: (pushToStart: String?, update: String?, retired: String?)] = [:]
            for row in try o.db.query("""
                SELECT kind, device_id, token, retired_reason FROM ap_la_tokens
                WHERE (kind = 'update' AND activity_id = ?) OR (kind = 'push-to-start' AND attributes_type = ?)
                """, [.text(id), .text(activity.attributesType)]) {
                let device = row[1].text ?? ""
                var entry = tokens[device] ?? (nil, nil, nil)
                let redacted = DeviceToken.redacted(row[2].text ?? "")
                if row[0].text == ActivityTokenKind.update.rawValue { entry.update = redacted } else { entry.pushToStart = redacted }
                if let reason = row[3].text { entry.retired = reason }
                tokens[device] = entry
            }
            let devices = activity.devices.map { device -> ActivityView.Device in
                let entry = tokens[device.deviceID]
                var held: String?
                if case .stored(_, let event)? = device.held { held = event.rawValue }
                return ActivityView.Device(deviceID: device.deviceID, state: device.state, held: held,
                                           pushToStartToken: entry?.pushToStart, updateToken: entry?.update,
                                           tokenRetired: entry?.retired)
            }
            let pushRows = detail == .summary ? 0 : (detail == .all ? Int(Int32.max) : ActivityView.recentRows)
            let pushCount = Int(try o.db.query("SELECT COUNT(*) FROM ap_la_sends WHERE activity_id = ?", [.text(id)]).first?.first?.int ?? 0)
            let journalCount = Int(try o.db.query("SELECT COUNT(*) FROM ap_la_events WHERE activity_id = ?", [.text(id)]).first?.first?.int ?? 0)
            let pushSelect = """
                SELECT s.event, s.device_id, s.push_id, s.apns_id, s.priority, s.not_before_unix, s.budget, s.target,
                  COALESCE(p.state, d.state), COALESCE(p.last_status, d.last_status), COALESCE(p.last_reason, d.last_reason)
                FROM ap_la_sends s LEFT JOIN ap_pushes p ON p.id = s.push_id LEFT JOIN ap_pushes_done d ON d.id = s.push_id
                """
            func push(_ row: [SQLValue]) -> ActivityView.Push {
                ActivityView.Push(event: row[0].text ?? "", deviceID: row[1].text ?? "", pushID: row[2].int ?? 0,
                                  apnsID: row[3].text ?? "", priority: Int(row[4].int ?? 10), notBeforeUnixSeconds: row[5].double ?? 0,
                                  budget: row[6].text, target: DeviceToken.redacted(row[7].text ?? ""),
                                  queueState: row[8].text ?? "unknown", status: row[9].int.map { Int($0) }, reason: row[10].text)
            }
            let queued = try queuedAfter.map { after in
                try o.db.query(pushSelect + " WHERE s.activity_id = ? AND s.id > ? ORDER BY s.id LIMIT ?",
                               [.text(id), .int(after), .int(Int64(ActivityView.recentRows))]).map(push)
            }
            let queuedCount = try queuedAfter.map { after in
                Int(try o.db.query("SELECT COUNT(*) FROM ap_la_sends WHERE activity_id = ? AND id > ?",
                                   [.text(id), .int(after)]).first?.first?.int ?? 0)
            }
            let pushes = pushRows == 0 ? [] : try o.db.query(pushSelect + " WHERE s.activity_id = ? ORDER BY s.id DESC LIMIT ?",
                                                             [.text(id), .int(Int64(pushRows))]).reversed().map(push)
            let journal = pushRows == 0 ? [] : try o.db.query(
                "SELECT at_unix, device_id, note FROM ap_la_events WHERE activity_id = ? ORDER BY id DESC LIMIT ?",
                [.text(id), .int(Int64(pushRows))]).reversed().map { row in
                ActivityView.Note(atUnixSeconds: row[0].double ?? 0, deviceID: row[1].text, text: row[2].text ?? "")
            }
            var view = ActivityView(activityID: activity.activityID, attributesType: activity.attributesType,
                                environment: activity.environment, channelID: activity.channelID, state: activity.state, endReason: activity.endReason,
                                createdUnixSeconds: activity.createdUnixSeconds, endedUnixSeconds: activity.endedUnixSeconds,
                                lastTimestamp: activity.lastTimestamp, devices: devices, pushes: pushes, journal: journal)
            view.pushCount = pushCount
            view.journalCount = journalCount
            view.queued = queued
            view.queuedCount = queuedCount ?? 0
            return view
        } catch let error as ActivityError {
            throw error
        } catch let error as QueueError {
            throw .store(error)
        } catch {
            throw ActivityError(status: 500, code: "internal", message: "\(error)")
        }
    }
}
