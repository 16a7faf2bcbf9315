import ActivityPushCore
import ActivityPushDiagnosis
import XCTest
@testable import ActivityPushMock

/// NDJSON journal file, `GET|DELETE /_mock/journal`, redaction, and compatibility with Core's send journal.
final class JournalTests: XCTestCase {
    func testJournalFileLinesAndControlAPI() throws {
        let dir = temporaryDirectory()
        let path = dir + "/journal.ndjson"
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c, journalPath: path))
        try mock.start()
        defer { mock.stop() }
        let t = Int(Date().timeIntervalSince1970)
        var headers = liveActivityHeaders
        headers["apns-id"] = "0f6b39e8-6e3c-4f3b-9d52-3b6a1e2c4d5f"
        _ = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: headers, body: payload(event: "start", timestamp: t))
        var wrong = liveActivityHeaders
        wrong["apns-topic"] = "com.example.kora"
        _ = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: wrong, body: payload(event: "start", timestamp: t))

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2)
        XCTAssertFalse(text.contains("bearer"), "authorization must not be journaled")
        XCTAssertFalse(text.contains(pushToStartToken), "the full token must not be journaled")
        let first = try XCTUnwrap(JSONReader.read(lines[0]).root)
        XCTAssertEqual(first["token"]?.value.stringValue, "a1b2c3d4")
        XCTAssertEqual(first["path"]?.value.stringValue, "/3/device/a1b2c3d4…")
        XCTAssertEqual(first["status"]?.value.numberValue?.int64Value, 200)
        XCTAssertEqual(first["apns-id"]?.value.stringValue, "0f6b39e8-6e3c-4f3b-9d52-3b6a1e2c4d5f")
        XCTAssertEqual(first["bundle"]?.value.stringValue, "com.example.kora")
        XCTAssertEqual(first["device"]?["outcome"]?.value.stringValue, "started")
        XCTAssertEqual(first["headers"]?["apns-push-type"]?.value.stringValue, "liveactivity")
        XCTAssertNil(first["headers"]?["authorization"])
        XCTAssertEqual(first["body"]?.value.stringValue, String(decoding: payload(event: "start", timestamp: t), as: UTF8.self))
        let second = try XCTUnwrap(JSONReader.read(lines[1]).root)
        XCTAssertEqual(second["status"]?.value.numberValue?.int64Value, 400)
        XCTAssertEqual(second["reason"]?.value.stringValue, "DeviceTokenNotForTopic")
        XCTAssertNil(second["device"])

        // Core's send-journal reader understands the mock's lines.
        let read = try SendJournalEntry.readJournal(path: path)
        XCTAssertEqual(read.map(\.status), [200, 400])
        XCTAssertEqual(read[0].apnsID, "0f6b39e8-6e3c-4f3b-9d52-3b6a1e2c4d5f")
        XCTAssertEqual(read[0].bundleID, "com.example.kora")
        XCTAssertEqual(read[0].event, "start")
        XCTAssertEqual(read[0].time, Double(t), accuracy: 120)
        XCTAssertEqual(read[1].reason, "DeviceTokenNotForTopic")

        // GET /_mock/journal is the same entries as a JSON array; DELETE clears it.
        let get = try curl("\(mock.baseURL)/_mock/journal", method: "GET")
        XCTAssertEqual(get.status, 200)
        let array = try XCTUnwrap(JSONReader.read(get.body).root)
        guard case .array(let items) = array.value else { return XCTFail("not an array: \(get.body)") }
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items[1]["reason"]?.value.stringValue, "DeviceTokenNotForTopic")
        // Pages: the newest M, or M from index N on.
        for (query, statuses) in [("limit=1", [400]), ("since=0&limit=1", [200]), ("since=1", [400]), ("since=5", [])] {
            let page = try curl("\(mock.baseURL)/_mock/journal?\(query)", method: "GET")
            guard case .array(let got)? = JSONReader.read(page.body).root?.value else { return XCTFail("\(query): \(page.body)") }
            XCTAssertEqual(got.compactMap { $0["status"]?.value.numberValue?.int64Value }, statuses.map(Int64.init), query)
        }
        XCTAssertEqual(try curl("\(mock.baseURL)/_mock/journal", method: "DELETE").status, 204)
        XCTAssertEqual(mock.journal().count, 0)
        XCTAssertEqual(mock.requestCount, 2, "clearing the journal does not reset the count; /_mock calls are not counted")
        XCTAssertEqual(try curl("\(mock.baseURL)/_mock/journal", method: "GET").body, "[]")
        // The file keeps its lines.
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count, 2)
    }

    func testJournalPathInMissingFolderIsAClearError() {
        XCTAssertThrowsError(try MockAPNsServer(configuration: MockAPNsConfiguration(journalPath: "/nonexistent-dir/j.ndjson"))) { e in
            XCTAssertTrue("\(e)".contains("/nonexistent-dir/j.ndjson"), "\(e)")
        }
    }
}
