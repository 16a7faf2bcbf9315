import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// Issue 11 M2: what a view carries is bounded however long the activity lives.
final class ActivityViewBoundsTests: XCTestCase {
    func testHeldUpdatesDoNotGrowTheViewPastItsWindowAndListsAreSummaries() throws {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let service = try LiveActivityService(outbox: Outbox(store: store), bundleID: Pushes.bundleID)
        _ = try service.register(ActivityTokenRegistration(kind: .pushToStart, deviceID: "device-1",
                                                           attributesType: "PizzaDeliveryAttributes",
                                                           token: String(repeating: "cd", count: 32)))
        var start = ActivityStartRequest(activityID: "order-2")
        start.attributesType = "PizzaDeliveryAttributes"
        start.attributes = .obj([("orderNumber", .int(2))])
        start.contentState = .obj([("minutesLeft", .int(30))])
        start.alertTitle = "Order 2"
        start.alertBody = "On its way"
        start.deviceIDs = ["device-1"]
        let (started, _) = try service.start(start)
        XCTAssertEqual(started.queued?.map(\.event), ["start"], "the answer names the push this request queued")
        let updates = ActivityView.recentRows + 20
        for minutes in 1...updates {
            // The device has no update token yet: each update is held, and journaled.
            let view = try service.update(activityID: "order-2", ActivityChangeRequest(contentState: .obj([("minutesLeft", .int(minutes))])))
            XCTAssertEqual(view.queued?.count, 0, "held, nothing queued")
        }
        let recent = try service.show(activityID: "order-2")
        XCTAssertGreaterThanOrEqual(recent.journalCount, updates)
        XCTAssertEqual(recent.journal.count, ActivityView.recentRows)
        XCTAssertLessThanOrEqual(recent.pushes.count, ActivityView.recentRows)
        let all = try service.show(activityID: "order-2", detail: .all)
        XCTAssertEqual(all.journal.count, all.journalCount)
        XCTAssertEqual(all.journal.suffix(ActivityView.recentRows), recent.journal[...], "the window is the newest rows")

        let listed = try service.list()
        XCTAssertEqual(listed.count, 1)
        XCTAssertTrue(listed[0].pushes.isEmpty && listed[0].journal.isEmpty, "list items are summaries")
        XCTAssertEqual(listed[0].journalCount, all.journalCount)
        let summary = JSONWriter.compact(listed[0].summaryJSON)
        XCTAssertFalse(summary.contains("\"journal\":"), summary)
        XCTAssertTrue(summary.contains("\"deviceStates\":{\"starting\":1}"), summary)
        for limit in [0, -1, ActivityListLimit.maximum + 1] {
            XCTAssertThrowsError(try service.list(limit: limit)) { error in
                XCTAssertEqual((error as? ActivityError)?.status, 400)
                XCTAssertEqual((error as? ActivityError)?.field, "limit")
            }
        }
    }
}
