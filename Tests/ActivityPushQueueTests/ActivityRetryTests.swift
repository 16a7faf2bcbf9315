import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// Issue 11: client retries of the lifecycle calls are idempotent (service level, SQLite, no sockets).
final class ActivityRetryTests: XCTestCase {
    private func startedService() throws -> (LiveActivityService, SQLiteQueueStore) {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        let service = try LiveActivityService(outbox: Outbox(store: store), bundleID: Pushes.bundleID)
        _ = try service.register(ActivityTokenRegistration(kind: .pushToStart, deviceID: "device-1",
                                                           attributesType: "PizzaDeliveryAttributes",
                                                           token: String(repeating: "ab", count: 32)))
        var start = ActivityStartRequest(activityID: "order-1")
        start.attributesType = "PizzaDeliveryAttributes"
        start.attributes = .obj([("orderNumber", .int(1))])
        start.contentState = .obj([("minutesLeft", .int(30))])
        start.alertTitle = "Order 1"
        start.alertBody = "On its way"
        start.deviceIDs = ["device-1"]
        _ = try service.start(start)
        return (service, store)
    }

    /// L4: the same end again → the current state, nothing sent; a different end after the end → 409 naming the state.
    func testARepeatedEndAnswersTheEndedActivityAndAnotherEndIsAConflict() throws {
        let (service, store) = try startedService()
        defer { store.close() }
        var end = ActivityChangeRequest(contentState: .obj([("minutesLeft", .int(0))]))
        end.dismissalDateUnixSeconds = 1_900_000_000
        let ended = try service.end(activityID: "order-1", end)
        XCTAssertEqual(ended.state, .ended)
        let pushes = ended.pushCount
        XCTAssertFalse(ended.repeated)
        let again = try service.end(activityID: "order-1", end)
        XCTAssertEqual(again.state, .ended)
        XCTAssertEqual(again.pushCount, pushes, "a retried end sends nothing")
        XCTAssertEqual(again.queued?.count, 0)
        XCTAssertTrue(again.repeated)
        var other = end
        other.contentState = .obj([("minutesLeft", .int(1))])
        do {
            _ = try service.end(activityID: "order-1", other)
            XCTFail("a different end after the end is refused")
        } catch {
            XCTAssertEqual(error.status, 409)
            XCTAssertEqual(error.field, "activityID")
            XCTAssertTrue(error.message.contains("ended"), error.message)
        }
        do {
            _ = try service.update(activityID: "order-1", ActivityChangeRequest(contentState: .obj([("minutesLeft", .int(2))])))
            XCTFail("an update after the end is refused")
        } catch {
            XCTAssertEqual(error.status, 409)
        }
    }
}
