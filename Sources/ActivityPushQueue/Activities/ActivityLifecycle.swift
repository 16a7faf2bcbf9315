import ActivityPushCore

/// The lifecycle decisions as a reducer: (activity, what the store knows, event) → (new activity, the push to
/// build, where to deliver it, what to hold, what to journal). No I/O: ``ActivityStore`` reads the inputs and
/// applies the decision in one transaction; tests call ``reduce(_:event:context:)`` directly.
///
/// Rules (spec §6):
/// - a **start** goes to each device's push-to-start token for the type (`input-push-token: 1`, so the device
///   reports the activity's update token); a device without one is `no-token` and named in the answer; a start
///   over the push-to-start budget waits (``ActivityBudgets/pushToStartSlot(scheduled:now:)``). The same start
///   again (same fingerprint) changes nothing; another body under the same activityID is a conflict.
/// - an **update** goes to each `started` device's update token; for a `starting` device it is held — the newest
///   held one wins — and sent when the update token arrives. Priority 10 over the per-activity budget goes at 5.
/// - an **end** is delivered like an update, then the activity is `ended`; an end held for a `starting` device
///   replaces its held update. An end for a device whose start is still queued and untried cancels that start
///   and its held pushes instead (`cancelled`: nothing reached the phone); a start already tried is ended as usual.
/// - an **update token** makes the device `started` (the activity `active`) and releases what was held.
/// - every push gets `aps.timestamp = max(now, previous + 1)`: strictly increasing per activity.
/// - an activity 8 h after its start is `ended` (``LiveActivityLimits``); nothing is sent, held pushes are dropped.
package enum ActivityLifecycle {
    /// What the store knows around one activity when an event arrives.
    package struct Context: Sendable {
        /// UNIX seconds.
        package var now: Double
        package var budgets: ActivityBudgets
        /// deviceID → live push-to-start token for the activity's type and environment.
        package var pushToStartTokens: [String: String] = [:]
        /// deviceID → live update token of this activity.
        package var updateTokens: [String: String] = [:]
        /// push-to-start token → when its starts (any activity) were or will be sent, UNIX seconds, last window on.
        package var startTimesByToken: [String: [Double]] = [:]
        /// When this activity's priority-10 updates went, UNIX seconds, last window.
        package var priority10UpdateTimes: [Double] = []
        /// The stored start message of this activity (for a device whose push-to-start token came late).
        package var startMessageID: Int64?
        /// Its newest stored update or end, if any.
        package var latestChange: ActivityMessageRef?
        /// deviceID → the queued start no worker has tried yet (its push id): an end can still cancel it.
        package var unsentStarts: [String: Int64] = [:]

        package init(now: Double, budgets: ActivityBudgets = .init()) {
            self.now = now
            self.budgets = budgets
        }
    }

    /// A start request as the reducer needs it.
    package struct Start: Sendable, Hashable {
        package var activityID: String
        package var attributesType: String
        package var environment: APNsEnvironment
        package var deviceIDs: [String]
        package var channelID: String?
        package var fingerprint: String
        package init(activityID: String, attributesType: String, environment: APNsEnvironment, deviceIDs: [String],
                     channelID: String? = nil, fingerprint: String) {
            self.activityID = activityID
            self.attributesType = attributesType
            self.environment = environment
            self.deviceIDs = deviceIDs
            self.channelID = channelID
            self.fingerprint = fingerprint
        }
    }

    /// What happened.
    package enum Event: Sendable, Hashable {
        case start(Start)
        /// `priority`: as requested (10 or 5).
        case update(priority: Int)
        case end(priority: Int)
        /// The device posted this activity's update token (in ``Context/updateTokens``).
        case updateToken(deviceID: String)
        /// A `no-token` device posted its push-to-start token (in ``Context/pushToStartTokens``) while the activity runs.
        case pushToStartToken(deviceID: String)
        /// Time passed (checked before every other event, and by listings).
        case expire
    }

    /// The push this decision builds once: its event, `aps.timestamp` (UNIX seconds) and `apns-priority`.
    package struct Message: Sendable, Hashable {
        package var event: LiveActivityEvent
        package var timestamp: Int64
        package var priority: Int
        /// Set when the priority was lowered by a budget.
        package var loweredBy: ActivityBudget?
    }

    /// One push to queue: which message, to which device's token, not before when.
    package struct Delivery: Sendable, Hashable {
        package var deviceID: String
        package var token: String
        package var message: ActivityMessageRef
        package var event: LiveActivityEvent
        /// UNIX seconds.
        package var notBefore: Double
        /// Set when a budget made it wait.
        package var heldBy: ActivityBudget?
        /// A broadcast to this channel (``token`` is the channel id then, ``deviceID`` empty).
        package var channelID: String? = nil
    }

    /// What the store applies.
    package struct Decision: Sendable, Hashable {
        package enum Outcome: Sendable, Hashable { case created, repeated, changed, unchanged }
        package var activity: ActivityRecord
        package var outcome: Outcome
        package var message: Message?
        package var deliveries: [Delivery] = []
        /// Journal lines (device nil: the activity's own).
        package var notes: [Note] = []
        /// Held messages no device points at any more (the store may forget them).
        package var droppedHeld: [Int64] = []
        /// Queued starts (push ids) not sent yet that the store takes back out of the queue (an end came first).
        package var cancelledPushes: [Int64] = []
    }

    /// A line of the activity's journal.
    package struct Note: Sendable, Hashable {
        package var deviceID: String?
        package var text: String
    }

    /// Applies `event` to `activity` (nil: not stored yet).
    /// - Throws: ``ActivityError`` 404 (no such activity), 409 (other body under the same activityID; update or
    ///   end of an ended activity), 422 (a start where no device has a push-to-start token).
    package static func reduce(_ activity: ActivityRecord?, event: Event, context: Context) throws(ActivityError) -> Decision {
        if case .start(let start) = event { return try self.start(activity, start, context) }
        guard var activity else {
            throw ActivityError(status: 404, code: "not-found", field: "activityID", message: "no such activity",
                                fix: "start it first with POST /v1/activities")
        }
        var expired = expire(activity, now: context.now)
        switch event {
        case .expire, .start:
            return expired
        case .update(let priority), .end(let priority):
            let isEnd: Bool
            if case .end = event { isEnd = true } else { isEnd = false }
            activity = expired.activity
            guard activity.state != .ended else {
                throw ActivityError(status: 409, code: "conflict", field: "activityID",
                                    message: "activity \(activity.activityID) has ended (\(activity.endReason ?? "ended"))",
                                    fix: "start a new activity with another activityID")
            }
            return deliver(&expired, isEnd: isEnd, priority: priority, context: context)
        case .updateToken(let deviceID):
            return release(&expired, deviceID: deviceID, context: context)
        case .pushToStartToken(let deviceID):
            return lateStart(&expired, deviceID: deviceID, context: context)
        }
    }

    private static func nextTimestamp(_ activity: ActivityRecord, now: Double) -> Int64 {
        max(Int64(now), activity.lastTimestamp + 1)
    }

    private static func start(_ existing: ActivityRecord?, _ start: Start, _ context: Context) throws(ActivityError) -> Decision {
        if let existing {
            guard existing.fingerprint == start.fingerprint else {
                throw ActivityError(status: 409, code: "conflict", field: "activityID",
                                    message: "activity \(start.activityID) exists with a different start request",
                                    fix: "repeat the exact start (it is idempotent) or use a new activityID")
            }
            var decision = expire(existing, now: context.now)
            decision.outcome = .repeated
            return decision
        }
        var activity = ActivityRecord(activityID: start.activityID, attributesType: start.attributesType,
                                      environment: start.environment, channelID: start.channelID,
                                      fingerprint: start.fingerprint, createdUnixSeconds: context.now)
        let timestamp = nextTimestamp(activity, now: context.now)
        activity.lastTimestamp = timestamp
        var decision = Decision(activity: activity, outcome: .created,
                                message: Message(event: .start, timestamp: timestamp, priority: 10))
        var scheduled = context.startTimesByToken
        for deviceID in start.deviceIDs {
            guard let token = context.pushToStartTokens[deviceID] else {
                decision.activity.devices.append(ActivityDeviceRecord(deviceID: deviceID, state: .noToken))
                decision.notes.append(Note(deviceID: deviceID, text: "no push-to-start token for \(start.attributesType) "
                                           + "(\(start.environment)); no start sent"))
                continue
            }
            let slot = context.budgets.pushToStartSlot(scheduled: scheduled[token] ?? [], now: context.now)
            scheduled[token, default: []].append(slot)
            let held = slot > context.now
            decision.deliveries.append(Delivery(deviceID: deviceID, token: token, message: .new, event: .start,
                                                notBefore: slot, heldBy: held ? .pushToStart : nil))
            decision.activity.devices.append(ActivityDeviceRecord(deviceID: deviceID, state: .starting))
            if held {
                decision.notes.append(Note(deviceID: deviceID, text: "start held by the \(ActivityBudget.pushToStart) budget "
                                           + "(\(context.budgets.pushToStartPerHour)); not before \(Int64(slot))"))
            }
        }
        guard !decision.deliveries.isEmpty || start.channelID != nil else {
            let missing = start.deviceIDs.joined(separator: ", ")
            throw ActivityError(status: 422, code: "no-tokens", field: "deviceIDs",
                                message: "no device has a push-to-start token for \(start.attributesType) (\(start.environment)): \(missing)",
                                fix: "have the app post its push-to-start token to POST /v1/tokens first")
        }
        return decision
    }

    private static func expire(_ activity: ActivityRecord, now: Double) -> Decision {
        var decision = Decision(activity: activity, outcome: .unchanged)
        guard activity.state != .ended, now >= activity.createdUnixSeconds + LiveActivityLimits.activeSeconds else { return decision }
        decision.outcome = .changed
        decision.activity.state = .ended
        decision.activity.endReason = LiveActivityLimits.expiredReason
        decision.activity.endedUnixSeconds = now
        for index in decision.activity.devices.indices {
            if case .stored(let id, _)? = decision.activity.devices[index].held { decision.droppedHeld.append(id) }
            decision.activity.devices[index].held = nil
            if decision.activity.devices[index].state != .tokenRetired { decision.activity.devices[index].state = .ended }
        }
        decision.notes.append(Note(deviceID: nil, text: "ended by the system: \(Int(LiveActivityLimits.activeSeconds / 3600)) h "
                                   + "after its start (Apple's limit); held pushes dropped"))
        return decision
    }

    private static func deliver(_ decision: inout Decision, isEnd: Bool, priority: Int, context: Context) -> Decision {
        let event: LiveActivityEvent = isEnd ? .end : .update
        var message = Message(event: event, timestamp: nextTimestamp(decision.activity, now: context.now), priority: priority)
        if !isEnd {
            message.priority = context.budgets.updatePriority(requested: priority, previous: context.priority10UpdateTimes,
                                                              now: context.now)
            if message.priority != priority {
                message.loweredBy = .priority10
                decision.notes.append(Note(deviceID: nil, text: "priority 10 over the \(ActivityBudget.priority10) budget "
                                           + "(\(context.budgets.priority10UpdatesPerHour)); sent at priority 5"))
            }
        }
        decision.activity.lastTimestamp = message.timestamp
        decision.message = message
        decision.outcome = .changed
        if case .channel(let channelID) = audience(of: decision.activity) {
            // One broadcast for every subscribed device (the `channels` work fills in the store side).
            decision.deliveries.append(Delivery(deviceID: "", token: channelID, message: .new, event: event,
                                                notBefore: context.now, channelID: channelID))
            if isEnd {
                // The end broadcast reaches every subscribed device.
                for index in decision.activity.devices.indices
                where [.started, .starting].contains(decision.activity.devices[index].state) {
                    decision.activity.devices[index].state = .ended
                }
                endActivity(&decision, now: context.now)
            }
            return decision
        }
        for index in decision.activity.devices.indices {
            var device = decision.activity.devices[index]
            switch device.state {
            case .started:
                if let token = context.updateTokens[device.deviceID] {
                    decision.deliveries.append(Delivery(deviceID: device.deviceID, token: token, message: .new,
                                                        event: event, notBefore: context.now))
                    if isEnd { device.state = .ended }
                } else {
                    decision.notes.append(Note(deviceID: device.deviceID, text: "no live update token; \(event.rawValue) not sent"))
                }
            case .starting where isEnd && context.unsentStarts[device.deviceID] != nil:
                // Nothing reached the phone yet: take the start back, drop what was held, send no end.
                if case .stored(let id, _)? = device.held { decision.droppedHeld.append(id) }
                device.held = nil
                device.state = .cancelled
                decision.cancelledPushes.append(context.unsentStarts[device.deviceID]!)
                decision.notes.append(Note(deviceID: device.deviceID, text: "end before the start was sent: start (push "
                                           + "\(context.unsentStarts[device.deviceID]!)) and held pushes cancelled; nothing to end on the device"))
            case .starting:
                if case .stored(let id, _)? = device.held { decision.droppedHeld.append(id) }
                device.held = .new
                decision.notes.append(Note(deviceID: device.deviceID, text: "\(event.rawValue) held until the device posts its update token"
                                           + " (newest wins)"))
            case .noToken:
                if isEnd { device.state = .ended }
            default:
                break
            }
            decision.activity.devices[index] = device
        }
        if isEnd { endActivity(&decision, now: context.now) }
        return decision
    }

    /// A device named by the start without a token gets the stored start now (budget permitting); the newest
    /// update or end since waits for its update token like any held push.
    private static func lateStart(_ decision: inout Decision, deviceID: String, context: Context) -> Decision {
        guard decision.activity.state != .ended,
              let index = decision.activity.devices.firstIndex(where: { $0.deviceID == deviceID && $0.state == .noToken }),
              let token = context.pushToStartTokens[deviceID], let startID = context.startMessageID else { return decision }
        let slot = context.budgets.pushToStartSlot(scheduled: context.startTimesByToken[token] ?? [], now: context.now)
        let held = slot > context.now
        decision.outcome = .changed
        decision.deliveries.append(Delivery(deviceID: deviceID, token: token, message: .stored(id: startID, event: .start),
                                            event: .start, notBefore: slot, heldBy: held ? .pushToStart : nil))
        decision.activity.devices[index].state = .starting
        decision.activity.devices[index].held = context.latestChange
        decision.notes.append(Note(deviceID: deviceID, text: "push-to-start token arrived; start sent"
                                   + (held ? ", held by the \(ActivityBudget.pushToStart) budget; not before \(Int64(slot))" : "")
                                   + (context.latestChange != nil ? "; the newest update waits for its update token" : "")))
        return decision
    }

    private static func endActivity(_ decision: inout Decision, now: Double) {
        decision.activity.state = .ended
        decision.activity.endReason = "end-requested"
        decision.activity.endedUnixSeconds = now
    }

    /// Where an activity's updates and ends go.
    package enum Audience: Sendable, Hashable {
        /// To each device's update token.
        case devices
        /// One broadcast to this channel id (an activity started with `"channel": true`).
        case channel(String)
    }

    /// The one place that decides "send to tokens vs broadcast": the activity's channel id, nil for device pushes.
    package static func audience(of activity: ActivityRecord) -> Audience {
        activity.channelID.map(Audience.channel) ?? .devices
    }

    private static func release(_ decision: inout Decision, deviceID: String, context: Context) -> Decision {
        guard let index = decision.activity.devices.firstIndex(where: { $0.deviceID == deviceID }),
              let token = context.updateTokens[deviceID] else { return decision }
        var device = decision.activity.devices[index]
        decision.outcome = .changed
        if device.state == .starting || device.state == .noToken { device.state = .started }
        if case .stored(let id, let event)? = device.held {
            decision.deliveries.append(Delivery(deviceID: deviceID, token: token, message: .stored(id: id, event: event),
                                                event: event, notBefore: context.now))
            decision.notes.append(Note(deviceID: deviceID, text: "update token arrived; held \(event.rawValue) released"))
            if event == .end { device.state = .ended }
            device.held = nil
        } else {
            decision.notes.append(Note(deviceID: deviceID, text: "update token arrived"))
        }
        decision.activity.devices[index] = device
        if decision.activity.state == .starting { decision.activity.state = .active }
        return decision
    }
}
