import ActivityPushCore
import XCTest
@testable import ActivityPushMock

/// Channel management (`/1/apps/<bundle>/channels`, `all-channels`) and broadcast publish
/// (`/4/broadcasts/apps/<bundle>`), spec §2.3, §2.4, §4.3.
final class BroadcastTests: XCTestCase {
    var mock: MockAPNsServer!
    let auth = ["authorization": "bearer test-token"]

    override func setUpWithError() throws {
        mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
    }

    override func tearDown() { mock.stop() }

    private func createChannel(policy: Int) throws -> String {
        let r = try curl("\(mock.baseURL)/1/apps/com.example.kora/channels", headers: auth,
                         body: Array("{\"message-storage-policy\":\(policy),\"push-type\":\"LiveActivity\"}".utf8))
        XCTAssertEqual(r.status, 201, r.body)
        let id = try XCTUnwrap(r.headers["apns-channel-id"])
        XCTAssertNotNil(Data(base64Encoded: id))
        XCTAssertNotNil(r.headers["apns-request-id"])
        return id
    }

    func testChannelLifecycle() throws {
        let a = try createChannel(policy: 0)
        let b = try createChannel(policy: 1)
        var h = auth
        h["apns-channel-id"] = b
        let read = try curl("\(mock.baseURL)/1/apps/com.example.kora/channels", method: "GET", headers: h)
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(read.body, "{\"message-storage-policy\":1,\"push-type\":\"LiveActivity\"}")
        let all = try curl("\(mock.baseURL)/1/apps/com.example.kora/all-channels", method: "GET", headers: auth)
        XCTAssertEqual(all.body, "{\"channels\":[\"\(a)\",\"\(b)\"]}")
        XCTAssertEqual(try curl("\(mock.baseURL)/1/apps/com.example.kora/channels", method: "DELETE", headers: h).status, 204)
        let gone = try curl("\(mock.baseURL)/1/apps/com.example.kora/channels", method: "GET", headers: h)
        XCTAssertEqual(gone.body, "{\"reason\":\"ChannelNotRegistered\"}")
        let cases: [(String, [String: String], String, Int, String)] = [
            ("POST", auth, "{\"message-storage-policy\":0,\"push-type\":\"Alert\"}", 400, "InvalidPushType"),
            ("POST", auth, "{\"message-storage-policy\":0}", 400, "MissingPushType"),
            ("POST", auth, "{\"push-type\":\"LiveActivity\",\"colour\":1}", 400, "BadRequestParams"),
            ("POST", auth, "{\"push-type\":", 400, "BadRequestPayload"),
            ("GET", auth, "", 400, "MissingChannelId"),
            ("PUT", auth, "{}", 405, "MethodNotAllowed"),
            ("POST", [:], "{\"push-type\":\"LiveActivity\"}", 403, "MissingProviderToken"),
        ]
        for (method, headers, body, status, reason) in cases {
            let r = try curl("\(mock.baseURL)/1/apps/com.example.kora/channels", method: method, headers: headers,
                             body: body.isEmpty ? nil : Array(body.utf8))
            XCTAssertEqual(r.status, status, "\(method) \(body)")
            XCTAssertEqual(r.body, "{\"reason\":\"\(reason)\"}", "\(method) \(body)")
        }
    }

    func testBroadcastPublishRulesAndDeviceOutcome() throws {
        let channel = try createChannel(policy: 0)
        let t = Int(Date().timeIntervalSince1970)
        let base = ["authorization": "bearer test-token", "apns-push-type": "liveactivity", "apns-channel-id": channel,
                    "apns-priority": "10", "apns-expiration": "0"]
        let url = "\(mock.baseURL)/4/broadcasts/apps/com.example.kora"
        let ok = try curl(url, headers: base, body: payload(event: "update", timestamp: t))
        XCTAssertEqual(ok.status, 200, ok.body)
        XCTAssertNotNil(ok.headers["apns-request-id"])
        XCTAssertEqual(mock.journal().last?.device?.outcome, .updated)
        let older = try curl(url, headers: base, body: payload(event: "update", timestamp: t - 5))
        XCTAssertEqual(older.status, 200)
        XCTAssertEqual(mock.journal().last?.device?.outcome, .ignored)
        XCTAssertEqual(try curl(url, headers: base, body: payload(event: "start", timestamp: t)).status, 200)
        XCTAssertEqual(mock.journal().last?.device?.outcome, .rejected)
        XCTAssertTrue(mock.journal().last?.device?.causes.contains { $0.code == "start-via-broadcast" } ?? false)

        func with(_ k: String, _ v: String?) -> [String: String] { var h = base; h[k] = v; return h }
        let cases: [(String, [String: String], Int, String)] = [
            ("no channel id", with("apns-channel-id", nil), 400, "MissingChannelId"),
            ("bad channel id", with("apns-channel-id", "%%%"), 400, "BadChannelId"),
            ("unknown channel", with("apns-channel-id", "dW5rbm93bg=="), 400, "ChannelNotRegistered"),
            ("topic sent", with("apns-topic", "com.example.kora.push-type.liveactivity"), 400, "TopicDisallowed"),
            ("no push type", with("apns-push-type", nil), 400, "MissingPushType"),
            ("alert push type", with("apns-push-type", "alert"), 400, "InvalidPushType"),
            ("no priority", with("apns-priority", nil), 400, "BadPriority"),
            ("no expiration", with("apns-expiration", nil), 400, "BadExpirationDate"),
            ("nonzero expiration on No Message Stored", with("apns-expiration", String(t + 60)), 400, "BadExpirationDate"),
            ("no token", with("authorization", nil), 403, "MissingProviderToken"),
        ]
        for (name, headers, status, reason) in cases {
            let r = try curl(url, headers: headers, body: payload(event: "update", timestamp: t))
            XCTAssertEqual(r.status, status, name)
            XCTAssertEqual(r.body, "{\"reason\":\"\(reason)\"}", name)
        }
        let big = try curl(url, headers: base, body: Array(repeating: UInt8(ascii: " "), count: 5121))
        XCTAssertEqual(big.body, "{\"reason\":\"PayloadTooLarge\"}")
    }
}
