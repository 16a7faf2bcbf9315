import XCTest
@testable import ActivityPushMock

/// Status and `reason` for `/3/device/<token>`, table-driven from spec §2.2 and §4.2 (Apple's spelling).
final class DeviceEndpointTests: XCTestCase {
    var mock: MockAPNsServer!

    override func setUpWithError() throws {
        mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
    }

    override func tearDown() { mock.stop() }

    struct Case {
        var name: String
        var method = "POST"
        var token = pushToStartToken
        var set: [String: String] = [:]
        var remove: [String] = []
        var body: [UInt8]? = payload(event: "start", timestamp: Int(Date().timeIntervalSince1970))
        var status: Int
        var reason: String?
    }

    func testHeadersAndReasonsTable() throws {
        let cases: [Case] = [
            Case(name: "valid start to a 160-digit push-to-start token", status: 200),
            Case(name: "64-digit token", token: String(repeating: "0f", count: 32), status: 200),
            Case(name: "200-digit token", token: String(repeating: "ab", count: 100), status: 200),
            Case(name: "uppercase hex token", token: String(repeating: "AB", count: 40), status: 200),
            Case(name: "202 digits", token: String(repeating: "ab", count: 101), status: 400, reason: "BadDeviceToken"),
            Case(name: "62 digits", token: String(repeating: "ab", count: 31), status: 400, reason: "BadDeviceToken"),
            Case(name: "odd digit count", token: String(repeating: "a", count: 65), status: 400, reason: "BadDeviceToken"),
            Case(name: "non-hex", token: String(repeating: "zz", count: 40), status: 400, reason: "BadDeviceToken"),
            Case(name: "no token", token: "", status: 400, reason: "MissingDeviceToken"),
            Case(name: "GET", method: "GET", body: nil, status: 405, reason: "MethodNotAllowed"),
            Case(name: "plain bundle topic", set: ["apns-topic": "com.example.kora"], status: 400, reason: "DeviceTokenNotForTopic"),
            Case(name: "no topic", remove: ["apns-topic"], status: 400, reason: "MissingTopic"),
            Case(name: "push type alert", set: ["apns-push-type": "alert"], status: 400, reason: "InvalidPushType"),
            Case(name: "push type missing", remove: ["apns-push-type"], status: 400, reason: "InvalidPushType"),
            Case(name: "priority 5", set: ["apns-priority": "5"], status: 200),
            Case(name: "priority 10", set: ["apns-priority": "10"], status: 200),
            Case(name: "priority 7", set: ["apns-priority": "7"], status: 400, reason: "BadPriority"),
            Case(name: "expiration 0", set: ["apns-expiration": "0"], status: 200),
            Case(name: "expiration not a number", set: ["apns-expiration": "tomorrow"], status: 400, reason: "BadExpirationDate"),
            Case(name: "apns-id not a UUID", set: ["apns-id": "1234"], status: 400, reason: "BadMessageId"),
            Case(name: "collapse id 64 bytes", set: ["apns-collapse-id": String(repeating: "c", count: 64)], status: 200),
            Case(name: "collapse id 65 bytes", set: ["apns-collapse-id": String(repeating: "c", count: 65)], status: 400, reason: "BadCollapseId"),
            Case(name: "no authorization", remove: ["authorization"], status: 403, reason: "MissingProviderToken"),
            Case(name: "empty body", body: [], status: 400, reason: "PayloadEmpty"),
            Case(name: "4096-byte body", body: paddedBody(4096), status: 200),
            Case(name: "4097-byte body", body: paddedBody(4097), status: 413, reason: "PayloadTooLarge"),
        ]
        for c in cases {
            var headers = liveActivityHeaders
            for (k, v) in c.set { headers[k] = v }
            for k in c.remove { headers[k] = nil }
            let r = try curl("\(mock.baseURL)/3/device/\(c.token)", method: c.method, headers: headers, body: c.body)
            XCTAssertEqual(r.status, c.status, "\(c.name): \(r.body)")
            if let reason = c.reason {
                XCTAssertEqual(r.body, "{\"reason\":\"\(reason)\"}", c.name)
            } else {
                XCTAssertEqual(r.body, "", c.name)
            }
            XCTAssertNotNil(r.headers["apns-id"], c.name)
        }
        XCTAssertEqual(mock.journal().count, cases.count)
    }

    func testUnknownPathIs404BadPath() throws {
        let r = try curl("\(mock.baseURL)/2/device/\(pushToStartToken)", headers: liveActivityHeaders, body: payload(event: "start", timestamp: 1))
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(r.body, "{\"reason\":\"BadPath\"}")
    }

    func testApnsIDIsEchoedLowercaseOrGenerated() throws {
        var headers = liveActivityHeaders
        headers["apns-id"] = "0F6B39E8-6E3C-4F3B-9D52-3B6A1E2C4D5F"
        let r = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: headers, body: payload(event: "start", timestamp: 1))
        XCTAssertEqual(r.headers["apns-id"], "0f6b39e8-6e3c-4f3b-9d52-3b6a1e2c4d5f")
        let g = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: liveActivityHeaders, body: payload(event: "start", timestamp: 1))
        let id = try XCTUnwrap(g.headers["apns-id"])
        XCTAssertTrue(MockRequestRules.isUUID(id))
        XCTAssertEqual(id, id.lowercased())
        XCTAssertNotEqual(id, "0f6b39e8-6e3c-4f3b-9d52-3b6a1e2c4d5f")
    }

    /// curl folds repeated -H lines, so this drives the request logic directly with a header given twice.
    func testDuplicateApnsHeaderIsDuplicateHeaders() throws {
        let state = try MockAPNsState(configuration: MockAPNsConfiguration())
        var headers = liveActivityHeaders.sorted(by: { $0.key < $1.key }).map { (name: $0.key, value: $0.value) }
        let body = payload(event: "start", timestamp: 1)
        let request = MockRequest(method: "POST", path: "/3/device/\(pushToStartToken)", headers: headers, body: body,
                                  bodyLength: body.count, connectionID: 1)
        XCTAssertEqual(state.respond(to: request).status, 200)
        headers += [("apns-priority", "10"), ("apns-priority", "5")]
        var twice = request
        twice.headers = headers
        let r = state.respond(to: twice)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "{\"reason\":\"DuplicateHeaders\"}")
    }

    func testTokenBoundToOneBundle() throws {
        let url = "\(mock.baseURL)/3/device/\(pushToStartToken)"
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: payload(event: "start", timestamp: 1)).status, 200)
        var other = liveActivityHeaders
        other["apns-topic"] = "com.example.other.push-type.liveactivity"
        let r = try curl(url, headers: other, body: payload(event: "start", timestamp: 1))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.body, "{\"reason\":\"DeviceTokenNotForTopic\"}")
    }

    func testUnregisteredTokenIs410WithMillisecondTimestamp() throws {
        let token = String(repeating: "cd", count: 32)
        let when = Date(timeIntervalSince1970: 1_767_225_600.123)
        mock.unregister(token: token, at: when)
        let r = try curl("\(mock.baseURL)/3/device/\(token)", headers: liveActivityHeaders, body: payload(event: "update", timestamp: 1))
        XCTAssertEqual(r.status, 410)
        XCTAssertEqual(r.body, "{\"reason\":\"Unregistered\",\"timestamp\":1767225600123}")
        // Over the control API too.
        let t2 = String(repeating: "ef", count: 80)
        XCTAssertEqual(try curl("\(mock.baseURL)/_mock/unregister/\(t2)", body: []).status, 204)
        let r2 = try curl("\(mock.baseURL)/3/device/\(t2)", headers: liveActivityHeaders, body: payload(event: "update", timestamp: 1))
        XCTAssertEqual(r2.status, 410)
        let ms = try XCTUnwrap(Int64(r2.body.split(separator: ":").last!.dropLast()))
        XCTAssertEqual(Double(ms) / 1000, Date().timeIntervalSince1970, accuracy: 60)
    }
}

/// A valid JSON body of exactly `size` bytes.
func paddedBody(_ size: Int) -> [UInt8] {
    let base = "{\"aps\":{\"timestamp\":1,\"event\":\"update\",\"content-state\":{\"phase\":\"\"}}}"
    let pad = size - base.utf8.count
    precondition(pad >= 0)
    return Array(base.replacingOccurrences(of: "\"phase\":\"\"", with: "\"phase\":\"" + String(repeating: "x", count: pad) + "\"").utf8)
}
