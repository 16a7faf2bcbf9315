import ActivityPushAPNs
@testable import ActivityPushConsole
import ActivityPushCore
import ActivityPushMock
import ActivityPushQueue
import Foundation
import XCTest

/// Send through the real client to the real mock (HTTP/2 cleartext on an ephemeral port), and enqueue into a
/// real SQLite queue.
final class ConsoleSendTests: XCTestCase {
    typealias S = ConsoleTestSupport
    var keyPath = ""
    let keyID = "CONSOLE123"
    let teamID = "TEAMID1234"

    override func setUpWithError() throws {
        keyPath = NSTemporaryDirectory() + "console-test-\(UInt32.random(in: 0...UInt32.max)).p8"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw XCTSkip("openssl cannot make a P-256 key here") }
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: keyPath) }

    static let startToken = String(repeating: "a1", count: 50)   // push-to-start tokens are longer than 64 hex

    func mock() throws -> MockAPNsServer {
        let m = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: .h2c, providerTokens: .verify(keyPath: keyPath, keyID: keyID, teamID: teamID), schema: try S.schema()))
        try m.start()
        return m
    }

    func api(mock m: MockAPNsServer, outbox: Outbox? = nil) throws -> ConsoleAPI {
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID)
        let client = try APNsClient(environment: .custom(m.baseURL), token: token,
                                    transport: HTTP2TransportConfiguration(requestTimeoutSeconds: 10, connectTimeoutSeconds: 5))
        return ConsoleAPI(configuration: ConsoleConfiguration(schema: try S.schema(), bundleID: "com.example.pizza",
                                                              environment: .custom(m.baseURL), readMockJournal: true),
                          client: client, outbox: outbox)
    }

    func testSendStartReachesTheMockDeviceAndIsJournaledRedacted() async throws {
        let m = try mock()
        defer { m.stop() }
        let api = try api(mock: m)
        let r = await api.handle(S.post("/v1/send", .obj(S.startFields + [("deviceToken", .string(Self.startToken))])))
        await api.client?.shutdown()
        XCTAssertEqual(r.status, 200, r.bodyText)
        let root = try S.json(r)
        XCTAssertEqual(root["sent"]?.value, .bool(true))
        XCTAssertEqual(root["status"]?.value.numberValue?.int64Value, 200)
        XCTAssertEqual(root["device"]?["outcome"]?.value.stringValue, "started", r.bodyText)
        let apnsID = try XCTUnwrap(root["apnsID"]?.value.stringValue)
        // The mock journaled the same apns-id and the same body the builder made.
        let entry = try XCTUnwrap(m.journal().last)
        XCTAssertEqual(entry.apnsID?.lowercased(), apnsID.lowercased())
        XCTAssertEqual(entry.device?.outcome.rawValue, "started")
        // Never the full token, in the answer or the journal.
        XCTAssertFalse(r.bodyText.contains(Self.startToken))
        let journal = await api.handle(S.get("/v1/journal"))
        XCTAssertFalse(journal.bodyText.contains(Self.startToken))
        let first = S.json2(journal)
        XCTAssertEqual(first?["apnsID"]?.value.stringValue, apnsID)
        XCTAssertEqual(first?["device"]?["outcome"]?.value.stringValue, "started")
        XCTAssertEqual(first?["target"]?.value.stringValue, DeviceToken.redacted(Self.startToken))
        // Metrics count it.
        let metrics = (await api.handle(S.get("/metrics"))).bodyText
        XCTAssertTrue(metrics.contains("activity_push_sent_total 1"), metrics)
        XCTAssertTrue(metrics.contains("activity_push_accepted_total 1"))
        XCTAssertTrue(metrics.contains("activity_push_send_latency_seconds_count 1"))
    }

    func testRejectedSendCountsTheReason() async throws {
        let m = try mock()
        defer { m.stop() }
        m.unregister(token: Self.startToken)
        let api = try api(mock: m)
        let r = await api.handle(S.post("/v1/send", .obj(S.startFields + [("deviceToken", .string(Self.startToken))])))
        await api.client?.shutdown()
        XCTAssertEqual(r.status, 200, r.bodyText)
        let root = try S.json(r)
        XCTAssertEqual(root["status"]?.value.numberValue?.int64Value, 410)
        XCTAssertEqual(root["reason"]?.value.stringValue, "Unregistered")
        let metrics = (await api.handle(S.get("/metrics"))).bodyText
        XCTAssertTrue(metrics.contains("activity_push_rejected_total{reason=\"Unregistered\"} 1"), metrics)
    }

    func testSendNeedsATokenForADevicePushAndRejectsNonHex() async throws {
        let m = try mock()
        defer { m.stop() }
        let api = try api(mock: m)
        var r = await api.handle(S.post("/v1/send", .obj(S.startFields)))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "deviceToken")
        r = await api.handle(S.post("/v1/send", .obj(S.startFields + [("deviceToken", .string("not-hex-at-all-zz"))])))
        XCTAssertEqual(r.status, 400)
        await api.client?.shutdown()
        XCTAssertTrue(m.journal().isEmpty, "nothing reached APNs")
    }

    func testEnqueueStoresOneRowPerTokenAndShowsQueueDepth() async throws {
        let m = try mock()
        defer { m.stop() }
        let db = NSTemporaryDirectory() + "console-queue-\(UInt32.random(in: 0...UInt32.max)).sqlite"
        defer { try? FileManager.default.removeItem(atPath: db) }
        let outbox = try Outbox.open(database: db)
        let api = try api(mock: m, outbox: outbox)
        let tokens: [JSONValue] = [.string(String(repeating: "b2", count: 32)), .string(String(repeating: "c3", count: 32))]
        let r = await api.handle(S.post("/v1/enqueue", .obj(S.startFields + [("deviceTokens", .arr(tokens))])))
        XCTAssertEqual(r.status, 202, r.bodyText)
        XCTAssertEqual(try S.json(r)["enqueued"]?.value.numberValue?.int64Value, 2)
        XCTAssertEqual(try outbox.store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["pending"], 2)
        let metrics = (await api.handle(S.get("/metrics"))).bodyText
        XCTAssertTrue(metrics.contains("activity_push_queue_depth{state=\"pending\"} 2"), metrics)
        XCTAssertTrue(metrics.contains("activity_push_enqueued_total 2"))
        // A push with error findings stores nothing.
        let bad = await api.handle(S.post("/v1/enqueue", .obj(S.startFields.replacing("type", with: .string("Nope")) + [("deviceTokens", .arr(tokens))])))
        XCTAssertEqual(bad.status, 422)
        XCTAssertEqual(try outbox.store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["pending"], 2)
        await api.client?.shutdown()
        outbox.store.close()
    }
}

extension ConsoleTestSupport {
    /// The newest journal entry of a `GET /v1/journal` answer.
    static func json2(_ r: HTTPResponse) -> JSONNode? {
        guard let root = JSONReader.read(r.body).root, case .array(let items)? = root["entries"]?.value else { return nil }
        return items.first
    }
}
