import ActivityPushAPNs
@testable import ActivityPushConsole
import ActivityPushCore
import ActivityPushMock
import ActivityPushQueue
import Foundation
import XCTest

/// `/v1/channels` through the real client to mock-apns, with the registry in a real SQLite store.
final class ConsoleChannelTests: XCTestCase {
    typealias S = ConsoleTestSupport
    var keyPath = ""

    override func setUpWithError() throws {
        keyPath = NSTemporaryDirectory() + "console-channels-\(UInt32.random(in: 0...UInt32.max)).p8"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "openssl makes the test key")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: keyPath) }

    func testCreateListReadDeleteAndErrors() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let directory = NSTemporaryDirectory() + "console-channels-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outbox = try Outbox.open(database: directory + "/queue.sqlite")
        defer { outbox.store.close() }
        let client = try APNsClient(environment: .custom(mock.baseURL),
                                    token: try ProviderToken(keyFile: keyPath, keyID: "CHANNELS12", teamID: "TEAMID1234"))
        let api = ConsoleAPI(configuration: ConsoleConfiguration(schema: nil, bundleID: "com.example.pizza", environment: .custom(mock.baseURL)),
                             client: client, outbox: outbox)

        // A channel is linked to its activity when the activity starts on it (issue 11, U7): activityID is refused here.
        let withActivity = await api.handle(S.post("/v1/channels", .obj([("storagePolicy", .int(1)), ("activityID", .string("game-42"))])))
        XCTAssertEqual(withActivity.status, 400, withActivity.bodyText)
        XCTAssertEqual(try S.json(withActivity)["error"]?["field"]?.value.stringValue, "activityID")
        XCTAssertTrue(withActivity.bodyText.contains("channelID"), withActivity.bodyText)
        XCTAssertTrue(mock.journal().isEmpty, "nothing sent to Apple")
        let created = await api.handle(S.post("/v1/channels", .obj([("storagePolicy", .int(1))])))
        XCTAssertEqual(created.status, 201, created.bodyText)
        let channelID = try XCTUnwrap(try S.json(created)["channelID"]?.value.stringValue)
        XCTAssertEqual(try S.json(created)["storagePolicyName"]?.value.stringValue, "Most Recent Message Stored")

        let listed = await api.handle(S.get("/v1/channels", query: ["apple": "true"]))
        XCTAssertEqual(listed.status, 200, listed.bodyText)
        XCTAssertTrue(listed.bodyText.replacingOccurrences(of: " ", with: "").contains("\"presence\":\"both\""), listed.bodyText)

        // A channel id may hold '/' and '+': in a path it is spelled base64url, one path segment.
        let pathID = channelID.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let read = await api.handle(S.get("/v1/channels/" + pathID))
        XCTAssertEqual(read.status, 200, read.bodyText)
        XCTAssertEqual(try S.json(read)["activityID"]?.value, .null)
        XCTAssertEqual(try S.json(read)["channelID"]?.value.stringValue, channelID)

        let deleted = await api.handle(HTTPRequest(method: "DELETE", path: "/v1/channels/" + pathID))
        XCTAssertEqual(deleted.status, 200, deleted.bodyText)
        XCTAssertNotNil(try S.json(deleted)["deletedAt"]?.value.numberValue)
        let again = await api.handle(S.get("/v1/channels", query: ["apple": "true", "all": "true"]))
        XCTAssertTrue(again.bodyText.replacingOccurrences(of: " ", with: "").contains("\"presence\":\"deleted\""), again.bodyText)

        // Errors name the field and the fix.
        let noPolicy = await api.handle(S.post("/v1/channels", .obj([])))
        XCTAssertEqual(noPolicy.status, 400)
        XCTAssertEqual(try S.json(noPolicy)["error"]?["field"]?.value.stringValue, "storagePolicy")
        XCTAssertNotNil(try S.json(noPolicy)["error"]?["fix"])
        let badPolicy = await api.handle(S.post("/v1/channels", .obj([("storagePolicy", .int(2))])))
        XCTAssertEqual(badPolicy.status, 400)
        // The number as the client wrote it (issue 11, N8: it said "got 2.0").
        XCTAssertTrue(badPolicy.bodyText.contains("got 2") && !badPolicy.bodyText.contains("2.0"), badPolicy.bodyText)
        let stringPolicy = await api.handle(S.post("/v1/channels", .obj([("storagePolicy", .string("1"))])))
        XCTAssertEqual(stringPolicy.status, 400, stringPolicy.bodyText)
        XCTAssertTrue(stringPolicy.bodyText.contains("got string"), stringPolicy.bodyText)
        // A channel id that is not base64 is refused before Apple is called.
        let notBase64 = await api.handle(HTTPRequest(method: "DELETE", path: "/v1/channels/not*base64", query: ["bundleID": "com.example.pizza"]))
        XCTAssertEqual(notBase64.status, 400, notBase64.bodyText)
        XCTAssertTrue(notBase64.bodyText.contains("not base64"), notBase64.bodyText)
        let unknown = await api.handle(S.get("/v1/channels/bm90LWEtY2hhbm5lbA=="))
        XCTAssertEqual(unknown.status, 404)
        let unknownAtApple = await api.handle(HTTPRequest(method: "DELETE", path: "/v1/channels/bm90LWEtY2hhbm5lbA==",
                                                          query: ["bundleID": "com.example.pizza"]))
        XCTAssertEqual(unknownAtApple.status, 404, unknownAtApple.bodyText)
        XCTAssertTrue(unknownAtApple.bodyText.contains("ChannelNotRegistered"))
        let wrongMethod = await api.handle(HTTPRequest(method: "PUT", path: "/v1/channels"))
        XCTAssertEqual(wrongMethod.status, 405)
        await client.shutdown()

        // Without a store: 503 naming --database; without a client, creating is 503 naming --auth-key.
        let bare = await (try S.api()).handle(S.get("/v1/channels"))
        XCTAssertEqual(bare.status, 503)
        XCTAssertTrue(bare.bodyText.contains("--database"))
        let noClient = ConsoleAPI(configuration: ConsoleConfiguration(schema: nil, bundleID: "com.example.pizza", environment: .sandbox),
                                  outbox: outbox)
        let refused = await noClient.handle(S.post("/v1/channels", .obj([("storagePolicy", .int(0))])))
        XCTAssertEqual(refused.status, 503, refused.bodyText)
        XCTAssertTrue(refused.bodyText.contains("--auth-key"))
        let registryOnly = await noClient.handle(S.get("/v1/channels", query: ["all": "1"]))
        XCTAssertEqual(registryOnly.status, 200, "the registry is readable without Apple")
    }

    func testChannelActivityThroughTheAPI() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let directory = NSTemporaryDirectory() + "console-channel-activity-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outbox = try Outbox.open(database: directory + "/queue.sqlite")
        defer { outbox.store.close() }
        let client = try APNsClient(environment: .custom(mock.baseURL),
                                    token: try ProviderToken(keyFile: keyPath, keyID: "CHANNELS12", teamID: "TEAMID1234"))
        let service = try LiveActivityService(outbox: outbox, bundleID: "com.example.pizza", schema: try S.schema())
        let api = ConsoleAPI(configuration: ConsoleConfiguration(schema: try S.schema(), bundleID: "com.example.pizza",
                                                                 environment: .custom(mock.baseURL)),
                             client: client, outbox: outbox, activities: service)
        let start = await api.handle(S.post("/v1/activities", .obj(
            S.startFields.filter { $0.0 != "event" } + [("activityID", .string("match-7")), ("channel", .bool(true)),
                                                        ("deleteChannelOnEnd", .bool(true))])))
        XCTAssertEqual(start.status, 202, start.bodyText)
        let channelID = try XCTUnwrap(try S.json(start)["channelID"]?.value.stringValue, start.bodyText)
        // A second activity on the channel of a live one is refused (issue 11, W2): it would supersede match-7's updates.
        let second = await api.handle(S.post("/v1/activities", .obj(
            S.startFields.filter { $0.0 != "event" } + [("activityID", .string("match-8")), ("channel", .bool(true)),
                                                        ("channelID", .string(channelID))])))
        XCTAssertEqual(second.status, 409, second.bodyText)
        XCTAssertEqual(try S.json(second)["error"]?["code"]?.value.stringValue, "channel-in-use", second.bodyText)
        XCTAssertTrue(second.bodyText.contains(channelID) && second.bodyText.contains("match-7"), second.bodyText)
        let stillLinked = await api.handle(S.get("/v1/channels/" + channelID.replacingOccurrences(of: "+", with: "-")
                                                                          .replacingOccurrences(of: "/", with: "_")))
        XCTAssertEqual(try S.json(stillLinked)["activityID"]?.value.stringValue, "match-7", "the registry link does not move")
        let update = await api.handle(S.post("/v1/activities/match-7/update", .obj([("contentState", S.contentState)])))
        XCTAssertEqual(update.status, 202, update.bodyText)
        let end = await api.handle(S.post("/v1/activities/match-7/end", .obj([("contentState", S.contentState)])))
        XCTAssertEqual(end.status, 202, end.bodyText)
        let worker = QueueWorker(store: outbox.store, sender: APNsPushSender(client: client),
                                 options: WorkerOptions(name: "console-channel", window: 10, pollIntervalSeconds: 0.02,
                                                        drain: true, drainWaitSeconds: 3))
        _ = try await worker.run()
        let broadcasts = mock.journal().filter { $0.path.hasPrefix("/4/broadcasts/") && $0.status == 200 }
        // The update was still queued when the end came: the end supersedes it (newest wins), one broadcast goes.
        XCTAssertEqual(broadcasts.map(\.event), ["end"])
        let shown = await api.handle(S.get("/v1/activities/match-7"))
        let states = shown.bodyText.replacingOccurrences(of: " ", with: "")
        XCTAssertTrue(states.contains("\"state\":\"ended\"") && states.contains("\"queueState\":\"superseded\""), states)
        XCTAssertTrue(broadcasts.allSatisfy { $0.channelID == channelID })
        // The console deletes the channel once the end is sent (bounded wait).
        var presence = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let listed = await api.handle(S.get("/v1/channels", query: ["apple": "true", "all": "true"]))
            presence = listed.bodyText.replacingOccurrences(of: " ", with: "")
            if presence.contains("\"presence\":\"deleted\"") { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTAssertTrue(presence.contains("\"presence\":\"deleted\"") && presence.contains("\"activityID\":\"match-7\""), presence)
        await client.shutdown()
    }
}
