import ActivityPushCore
import XCTest
@testable import ActivityPushQueue

/// The lifecycle decisions as a plain value: no database, no socket.
final class ActivityLifecycleTests: XCTestCase {
    typealias L = ActivityLifecycle
    let now = 1_800_000_000.0

    private func start(_ devices: [String], id: String = "game-42", fingerprint: String = "f1") -> L.Event {
        .start(L.Start(activityID: id, attributesType: "MatchAttributes", environment: .sandbox, deviceIDs: devices,
                       fingerprint: fingerprint))
    }

    private func context(_ now: Double, pushToStart: [String: String] = [:], update: [String: String] = [:]) -> L.Context {
        var context = L.Context(now: now)
        context.pushToStartTokens = pushToStart
        context.updateTokens = update
        return context
    }

    /// The decision's activity as the store would read it back (the new message stored as `id`).
    private func stored(_ decision: L.Decision, messageID: Int64) -> ActivityRecord {
        var activity = decision.activity
        for index in activity.devices.indices where activity.devices[index].held == .new {
            activity.devices[index].held = .stored(id: messageID, event: decision.message?.event ?? .update)
        }
        return activity
    }

    func testStartGoesToEachPushToStartTokenAndNamesTheDeviceWithout() throws {
        let decision = try L.reduce(nil, event: start(["a", "b", "c"]), context: context(now, pushToStart: ["a": "t-a", "b": "t-b"]))
        XCTAssertEqual(decision.outcome, .created)
        XCTAssertEqual(decision.message?.event, .start)
        XCTAssertEqual(decision.message?.timestamp, Int64(now))
        XCTAssertEqual(decision.deliveries.map(\.token), ["t-a", "t-b"])
        XCTAssertTrue(decision.deliveries.allSatisfy { $0.event == .start && $0.heldBy == nil && $0.notBefore == now })
        XCTAssertEqual(decision.activity.devices.map(\.state), [.starting, .starting, .noToken])
        XCTAssertEqual(decision.activity.state, .starting)
        XCTAssertTrue(decision.notes.contains { $0.deviceID == "c" && $0.text.contains("no push-to-start token") })
    }

    func testStartWithoutAnyTokenIsRefusedAndTheSameStartAgainIsARepeat() throws {
        XCTAssertThrowsError(try L.reduce(nil, event: start(["a"]), context: context(now))) { error in
            XCTAssertEqual((error as? ActivityError)?.status, 422)
            XCTAssertEqual((error as? ActivityError)?.field, "deviceIDs")
        }
        let first = try L.reduce(nil, event: start(["a"]), context: context(now, pushToStart: ["a": "t-a"]))
        let again = try L.reduce(first.activity, event: start(["a"]), context: context(now + 5, pushToStart: ["a": "t-a"]))
        XCTAssertEqual(again.outcome, .repeated)
        XCTAssertTrue(again.deliveries.isEmpty)
        XCTAssertNil(again.message)
        XCTAssertThrowsError(try L.reduce(first.activity, event: start(["a"], fingerprint: "other"), context: context(now))) { error in
            XCTAssertEqual((error as? ActivityError)?.status, 409)
        }
    }

    func testUpdateBeforeTheUpdateTokenIsHeldNewestWinsAndReleasedWhenTheTokenArrives() throws {
        let started = try L.reduce(nil, event: start(["a", "b"]), context: context(now, pushToStart: ["a": "t-a", "b": "t-b"]))
        let first = try L.reduce(started.activity, event: .update(priority: 10), context: context(now + 1))
        XCTAssertTrue(first.deliveries.isEmpty, "no update token yet: nothing sent")
        XCTAssertEqual(first.activity.devices.map(\.held), [.new, .new])
        let afterFirst = stored(first, messageID: 7)
        let second = try L.reduce(afterFirst, event: .update(priority: 10), context: context(now + 2))
        XCTAssertEqual(second.activity.devices.map(\.held), [.new, .new], "the newer update replaces the held one")
        XCTAssertEqual(second.droppedHeld, [7, 7])
        let afterSecond = stored(second, messageID: 8)

        let released = try L.reduce(afterSecond, event: .updateToken(deviceID: "a"), context: context(now + 3, update: ["a": "u-a"]))
        XCTAssertEqual(released.deliveries.map(\.token), ["u-a"])
        XCTAssertEqual(released.deliveries.first?.message, .stored(id: 8, event: .update))
        XCTAssertNil(released.message, "a release builds nothing new")
        XCTAssertEqual(released.activity.devices.map(\.state), [.started, .starting])
        XCTAssertEqual(released.activity.state, .active)
        XCTAssertNil(released.activity.devices[0].held)
        XCTAssertEqual(released.activity.devices[1].held, .stored(id: 8, event: .update))

        let next = try L.reduce(released.activity, event: .update(priority: 10), context: context(now + 4, update: ["a": "u-a"]))
        XCTAssertEqual(next.deliveries.map(\.token), ["u-a"], "started devices get updates at once; the other is held")
        XCTAssertEqual(next.activity.devices[1].held, .new)
    }

    func testEndReachesStartedDevicesAndIsHeldForTheOthers() throws {
        let started = try L.reduce(nil, event: start(["a", "b", "c"]), context: context(now, pushToStart: ["a": "t-a", "b": "t-b"]))
        let active = try L.reduce(started.activity, event: .updateToken(deviceID: "a"), context: context(now + 1, update: ["a": "u-a"]))
        let ended = try L.reduce(active.activity, event: .end(priority: 10), context: context(now + 2, update: ["a": "u-a"]))
        XCTAssertEqual(ended.activity.state, .ended)
        XCTAssertEqual(ended.activity.endReason, "end-requested")
        XCTAssertEqual(ended.deliveries.map(\.token), ["u-a"])
        XCTAssertEqual(ended.activity.devices.map(\.state), [.ended, .starting, .ended])
        XCTAssertEqual(ended.activity.devices[1].held, .new)
        let late = try L.reduce(stored(ended, messageID: 3), event: .updateToken(deviceID: "b"),
                                context: context(now + 3, update: ["a": "u-a", "b": "u-b"]))
        XCTAssertEqual(late.deliveries.map(\.message), [.stored(id: 3, event: .end)])
        XCTAssertEqual(late.activity.devices[1].state, .ended)
        XCTAssertEqual(late.activity.state, .ended)
        XCTAssertThrowsError(try L.reduce(late.activity, event: .update(priority: 10), context: context(now + 4))) { error in
            XCTAssertEqual((error as? ActivityError)?.status, 409)
        }
    }

    func testAnEndBeforeTheStartWasSentCancelsTheStartAndTheHeldPushes() throws {
        let started = try L.reduce(nil, event: start(["a", "b"]), context: context(now, pushToStart: ["a": "t-a", "b": "t-b"]))
        let updated = stored(try L.reduce(started.activity, event: .update(priority: 10), context: context(now + 1)), messageID: 4)
        var endContext = context(now + 2)
        endContext.unsentStarts = ["a": 11]   // a's start is still queued, untried; b's is in flight
        let ended = try L.reduce(updated, event: .end(priority: 10), context: endContext)
        XCTAssertEqual(ended.cancelledPushes, [11])
        XCTAssertEqual(ended.activity.devices.map(\.state), [.cancelled, .starting])
        XCTAssertNil(ended.activity.devices[0].held, "nothing to end on a phone that never got the start")
        XCTAssertEqual(ended.activity.devices[1].held, .new, "a start already tried: its end waits for the update token as before")
        XCTAssertEqual(ended.droppedHeld, [4, 4])
        XCTAssertTrue(ended.deliveries.isEmpty)
        XCTAssertEqual(ended.activity.state, .ended)
        XCTAssertTrue(ended.notes.contains { $0.deviceID == "a" && $0.text.contains("cancelled") }, "\(ended.notes)")
        let update = try L.reduce(updated, event: .update(priority: 10), context: endContext)
        XCTAssertTrue(update.cancelledPushes.isEmpty, "only an end cancels")
    }

    func testALatePushToStartTokenStartsTheDeviceAndHoldsTheNewestUpdate() throws {
        let started = try L.reduce(nil, event: start(["a", "b"]), context: context(now, pushToStart: ["a": "t-a"]))
        let updated = stored(try L.reduce(started.activity, event: .update(priority: 10), context: context(now + 1)), messageID: 2)
        XCTAssertNil(updated.devices[1].held, "a no-token device holds nothing")
        var late = context(now + 2, pushToStart: ["b": "t-b"])
        late.startMessageID = 1
        late.latestChange = .stored(id: 2, event: .update)
        let decision = try L.reduce(updated, event: .pushToStartToken(deviceID: "b"), context: late)
        XCTAssertEqual(decision.deliveries.map(\.message), [.stored(id: 1, event: .start)])
        XCTAssertEqual(decision.deliveries.map(\.token), ["t-b"])
        XCTAssertEqual(decision.activity.devices[1].state, .starting)
        XCTAssertEqual(decision.activity.devices[1].held, .stored(id: 2, event: .update))
        let again = try L.reduce(decision.activity, event: .pushToStartToken(deviceID: "b"), context: late)
        XCTAssertTrue(again.deliveries.isEmpty, "only a no-token device is started late")
    }

    func testTimestampsStrictlyIncreasePerActivityEvenWithinOneSecond() throws {
        var activity = try L.reduce(nil, event: start(["a"]), context: context(now, pushToStart: ["a": "t-a"])).activity
        var stamps: [Int64] = [activity.lastTimestamp]
        for _ in 0..<5 {
            let decision = try L.reduce(activity, event: .update(priority: 10), context: context(now, update: ["a": "u-a"]))
            stamps.append(try XCTUnwrap(decision.message?.timestamp))
            activity = decision.activity
        }
        XCTAssertEqual(stamps, (0..<6).map { Int64(now) + Int64($0) })
    }

    func testPastEightHoursTheActivityEndsByItselfAndDropsHeldPushes() throws {
        let started = try L.reduce(nil, event: start(["a"]), context: context(now, pushToStart: ["a": "t-a"]))
        let held = stored(try L.reduce(started.activity, event: .update(priority: 10), context: context(now + 60)), messageID: 5)
        let before = try L.reduce(held, event: .expire, context: context(now + LiveActivityLimits.activeSeconds - 1))
        XCTAssertEqual(before.outcome, .unchanged)
        let after = try L.reduce(held, event: .expire, context: context(now + LiveActivityLimits.activeSeconds))
        XCTAssertEqual(after.activity.state, .ended)
        XCTAssertEqual(after.activity.endReason, LiveActivityLimits.expiredReason)
        XCTAssertEqual(after.droppedHeld, [5])
        XCTAssertTrue(after.deliveries.isEmpty)
        XCTAssertThrowsError(try L.reduce(held, event: .update(priority: 10), context: context(now + 9 * 3600)))
    }

    func testThePushToStartBudgetHoldsTheEleventhStartToOneTokenForAnHour() throws {
        var context = context(now, pushToStart: ["a": "t-a"])
        context.startTimesByToken["t-a"] = (0..<10).map { now - 600 + Double($0) }
        let decision = try L.reduce(nil, event: start(["a"]), context: context)
        let delivery = try XCTUnwrap(decision.deliveries.first)
        XCTAssertEqual(delivery.heldBy, .pushToStart)
        XCTAssertEqual(delivery.notBefore, now - 600 + 3600, "when the oldest start in the window leaves it")
        XCTAssertTrue(decision.notes.contains { $0.text.contains(ActivityBudget.pushToStart.rawValue) })
    }

    func testBudgetSlotsAndPriorityAsPlainFunctions() {
        let budgets = ActivityBudgets(pushToStartPerHour: 2, priority10UpdatesPerHour: 3)
        XCTAssertEqual(budgets.pushToStartSlot(scheduled: [], now: 100), 100)
        XCTAssertEqual(budgets.pushToStartSlot(scheduled: [90], now: 100), 100)
        XCTAssertEqual(budgets.pushToStartSlot(scheduled: [90, 95], now: 100), 3690)
        XCTAssertEqual(budgets.pushToStartSlot(scheduled: [90, 95, 3690], now: 100), 3695, "behind the held one, in order")
        XCTAssertEqual(budgets.pushToStartSlot(scheduled: [90 - 3600, 95 - 3600], now: 100), 100, "outside the window")
        XCTAssertEqual(budgets.updatePriority(requested: 10, previous: [10, 20], now: 100), 10)
        XCTAssertEqual(budgets.updatePriority(requested: 10, previous: [10, 20, 30], now: 100), 5)
        XCTAssertEqual(budgets.updatePriority(requested: 10, previous: [10 - 3600, 20, 30], now: 100), 10)
        XCTAssertEqual(budgets.updatePriority(requested: 5, previous: [10, 20, 30], now: 100), 5)
    }

    func testAPriorityTenUpdateOverTheBudgetGoesAtFive() throws {
        let active = try L.reduce(nil, event: start(["a"]), context: context(now, pushToStart: ["a": "t-a"]))
        var context = context(now + 10, update: ["a": "u-a"])
        context.budgets = ActivityBudgets(priority10UpdatesPerHour: 2)
        context.priority10UpdateTimes = [now + 1, now + 2]
        let activity = try L.reduce(active.activity, event: .updateToken(deviceID: "a"), context: context).activity
        let decision = try L.reduce(activity, event: .update(priority: 10), context: context)
        XCTAssertEqual(decision.message?.priority, 5)
        XCTAssertEqual(decision.message?.loweredBy, .priority10)
        XCTAssertEqual(decision.deliveries.count, 1, "sent, not refused")
    }

    func testAnActivityWithAChannelSendsOneBroadcast() throws {
        var activity = try L.reduce(nil, event: start(["a"]), context: context(now, pushToStart: ["a": "t-a"])).activity
        activity.channelID = "Y2hhbm5lbA=="
        XCTAssertEqual(L.audience(of: activity), .channel("Y2hhbm5lbA=="))
        let decision = try L.reduce(activity, event: .update(priority: 10), context: context(now + 1))
        XCTAssertEqual(decision.deliveries.map(\.channelID), ["Y2hhbm5lbA=="])
    }
}
