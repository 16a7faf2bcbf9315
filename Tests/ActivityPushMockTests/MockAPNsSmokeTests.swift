import XCTest
@testable import ActivityPushMock

final class MockAPNsSmokeTests: XCTestCase {
    func testH2CAnswers200WithApnsIDAndWrongTopicIs400() throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        XCTAssertGreaterThan(mock.port, 0)
        let url = "\(mock.baseURL)/3/device/\(pushToStartToken)"
        let ok = try curl(url, headers: liveActivityHeaders, body: payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)))
        XCTAssertEqual(ok.status, 200, ok.body)
        XCTAssertEqual(ok.headers["apns-id"]?.count, 36)
        var wrong = liveActivityHeaders
        wrong["apns-topic"] = "com.example.kora"
        let bad = try curl(url, headers: wrong, body: payload(event: "start", timestamp: 1))
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.body, "{\"reason\":\"DeviceTokenNotForTopic\"}")
        XCTAssertEqual(mock.journal().map(\.status), [200, 400])
    }

    func testTLSWritesCertificatesAndServesH2() throws {
        let dir = temporaryDirectory()
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: dir)))
        try mock.start()
        defer { mock.stop() }
        let ca = try XCTUnwrap(mock.caCertificatePath)
        let r = try curl("https://127.0.0.1:\(mock.port)/3/device/\(pushToStartToken)", headers: liveActivityHeaders,
                         body: payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)), cacert: ca, extra: ["-w", ""])
        XCTAssertEqual(r.status, 200, r.body)
        // localhost name is in the certificate too.
        let r2 = try curl("https://localhost:\(mock.port)/3/device/\(pushToStartToken)", headers: liveActivityHeaders,
                          body: payload(event: "update", timestamp: Int(Date().timeIntervalSince1970)), cacert: ca)
        XCTAssertEqual(r2.status, 200, r2.body)
    }
}
