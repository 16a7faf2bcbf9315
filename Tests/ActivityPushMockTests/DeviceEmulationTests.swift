import ActivityPushCore
import XCTest
@testable import ActivityPushMock

/// What the emulated device does with pushes APNs accepted (spec §1.2, §6, §7; findings.md delivery causes).
final class DeviceEmulationTests: XCTestCase {
    var mock: MockAPNsServer!

    override func setUpWithError() throws {
        let attributes = repositoryRoot.appendingPathComponent("Fixtures/cases/S04/Attributes.swift").path
        let schema = try SwiftSourceReader.read(paths: [attributes])
        mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c, schema: schema))
        try mock.start()
    }

    override func tearDown() { mock.stop() }

    private func send(_ token: String, _ body: [UInt8], headers: [String: String] = liveActivityHeaders) throws -> MockJournalEntry {
        let r = try curl("\(mock.baseURL)/3/device/\(token)", headers: headers, body: body)
        XCTAssertEqual(r.status, 200, r.body)
        return try XCTUnwrap(mock.journal().last)
    }

    /// The founding report's three traps: APNs says 200, the device rejects, and the journal says why.
    func testFoundingReportTrapsAre200ButRejectedWithTheRightCause() throws {
        let expectations: [(String, String, String, String)] = [
            ("S01", "attributes-outside-aps", "attributes", "Incoming message does not contain usable attributes"),
            ("S02", "unknown-attribute-key", "aps.attributes.alert_title", "Incoming message could not be parsed"),
            ("S03", "attributes-type-mismatch", "aps.attributes-type", "Incoming message does not contain usable attributes"),
        ]
        for (i, (name, code, path, log)) in expectations.enumerated() {
            let dir = repositoryRoot.appendingPathComponent("Fixtures/cases/\(name)")
            let body = try [UInt8](Data(contentsOf: dir.appendingPathComponent("payload.json")))
            let token = String(repeating: String(format: "%02x", i + 1), count: 80)
            let entry = try send(token, body)
            let device = try XCTUnwrap(entry.device, name)
            XCTAssertEqual(device.outcome, .rejected, name)
            XCTAssertTrue(device.causes.contains { $0.code == code && $0.path == path }, "\(name): \(device.causes)")
            XCTAssertEqual(device.logLine, log, name)
            XCTAssertNil(device.activityToken, name)
        }
        // The corrected payload starts an activity.
        let good = try [UInt8](Data(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/cases/S04/payload.json")))
        let entry = try send(String(repeating: "09", count: 80), good)
        XCTAssertEqual(entry.device?.outcome, .started, "\(String(describing: entry.device))")
        XCTAssertEqual(entry.device?.logLine, "Received pushToStart notification for <private>")
    }

    func testStartThenUpdateThenOlderUpdateThenEnd() throws {
        let t = Int(Date().timeIntervalSince1970)
        let started = try send(pushToStartToken, payload(event: "start", timestamp: t))
        XCTAssertEqual(started.device?.outcome, .started)
        let activityToken = try XCTUnwrap(started.device?.activityToken)
        XCTAssertTrue(MockRequestRules.isDeviceToken(activityToken))

        let updated = try send(activityToken, payload(event: "update", timestamp: t + 10))
        XCTAssertEqual(updated.device?.outcome, .updated)
        XCTAssertEqual(updated.device?.causes, [])

        let older = try send(activityToken, payload(event: "update", timestamp: t + 5))
        XCTAssertEqual(older.device?.outcome, .ignored)
        XCTAssertEqual(older.device?.causes.map(\.code), ["update-older-than-last-applied"])

        // end is applied even with an old timestamp; anything after it is ignored.
        XCTAssertEqual(try send(activityToken, payload(event: "end", timestamp: t + 1)).device?.outcome, .ended)
        let late = try send(activityToken, payload(event: "update", timestamp: t + 20))
        XCTAssertEqual(late.device?.outcome, .ignored)
        XCTAssertEqual(late.device?.causes.map(\.code), ["token-of-ended-or-unknown-activity"])
    }

    func testUpdateToPushToStartTokenAndStartToUpdateTokenAreRejected() throws {
        let t = Int(Date().timeIntervalSince1970)
        let started = try send(pushToStartToken, payload(event: "start", timestamp: t))
        let update = try send(pushToStartToken, payload(event: "update", timestamp: t + 1))
        XCTAssertEqual(update.device?.outcome, .rejected)
        XCTAssertEqual(update.device?.causes.map(\.code), ["update-or-end-sent-to-push-to-start-token"])
        XCTAssertEqual(update.device?.logLine, "Unsupported push notification event type for pushToStart subscription: update")

        let activityToken = try XCTUnwrap(started.device?.activityToken)
        let start = try send(activityToken, payload(event: "start", timestamp: t + 2))
        XCTAssertEqual(start.device?.outcome, .rejected)
        XCTAssertEqual(start.device?.causes.map(\.code), ["start-sent-to-activity-update-token"])
        XCTAssertEqual(start.device?.logLine, "Unsupported push notification event type for activity subscription: start")
    }

    func testPushToStartBudget() throws {
        let t = Int(Date().timeIntervalSince1970)
        var outcomes: [MockDeviceOutcome] = []
        for i in 0..<11 { outcomes.append(try XCTUnwrap(send(pushToStartToken, payload(event: "start", timestamp: t + i)).device?.outcome)) }
        XCTAssertEqual(outcomes, Array(repeating: .started, count: 10) + [.rejected])
        let last = try XCTUnwrap(mock.journal().last?.device)
        XCTAssertEqual(last.logLine, "Push-to-start budget exceeded for com.example.kora::pushToStart; not starting activity")
        XCTAssertEqual(last.causes.map(\.code), ["too-many-push-to-start-in-short-time"])
        // Another token has its own budget.
        XCTAssertEqual(try send(String(repeating: "77", count: 80), payload(event: "start", timestamp: t)).device?.outcome, .started)
    }

    func testUnparseableBodyIsRejectedByTheDevice() throws {
        let entry = try send(String(repeating: "55", count: 32), Array("{\"aps\":{\"event\":\"update\",}}".utf8))
        XCTAssertEqual(entry.device?.outcome, .rejected)
        XCTAssertEqual(entry.device?.logLine, "Incoming message could not be parsed")
        let noEvent = try send(String(repeating: "56", count: 32), Array("{\"aps\":{\"timestamp\":1,\"content-state\":{}}}".utf8))
        XCTAssertEqual(noEvent.device?.outcome, .rejected)
        XCTAssertTrue(noEvent.device?.causes.contains { $0.code == "missing-event" } ?? false)
    }
}
