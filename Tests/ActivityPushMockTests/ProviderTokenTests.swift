import XCTest
@testable import ActivityPushMock

/// ES256 provider tokens (spec §2.5): verified against the .p8's public key, kid/iss/iat, age, refresh rate,
/// and the one-stream-until-authenticated rule.
final class ProviderTokenTests: XCTestCase {
    var dir = ""
    var keyPath = ""
    let keyID = "ABC123DEFG"
    let teamID = "TEAM123456"
    var mock: MockAPNsServer!

    override func setUpWithError() throws {
        dir = temporaryDirectory()
        keyPath = dir + "/AuthKey_\(keyID).p8"
        let (rc, _, err) = try runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        XCTAssertEqual(rc, 0, err)
        mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: .h2c, providerTokens: .verify(keyPath: keyPath, keyID: keyID, teamID: teamID)))
        try mock.start()
    }

    override func tearDown() { mock.stop() }

    private func send(_ jwt: String?) throws -> CurlResult {
        var h = liveActivityHeaders
        h["authorization"] = jwt.map { "bearer \($0)" }
        return try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: h,
                        body: payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)))
    }

    private var now: Int { Int(Date().timeIntervalSince1970) }

    func testValidTokenIsAccepted() throws {
        let jwt = try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now)
        let r = try send(jwt)
        XCTAssertEqual(r.status, 200, r.body)
    }

    func testReasonsForBadTokens() throws {
        let otherKey = dir + "/other.p8"
        XCTAssertEqual(try runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", otherKey]).0, 0)
        let cases: [(String, String?, Int, String)] = [
            ("no token", nil, 403, "MissingProviderToken"),
            ("signed by another key", try ProviderTokenSigner.sign(keyPath: otherKey, keyID: keyID, teamID: teamID, issuedAt: now), 403, "InvalidProviderToken"),
            ("wrong kid", try ProviderTokenSigner.sign(keyPath: keyPath, keyID: "ZZZ999ZZZZ", teamID: teamID, issuedAt: now), 403, "InvalidProviderToken"),
            ("wrong iss", try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: "OTHERTEAM1", issuedAt: now), 403, "InvalidProviderToken"),
            ("older than an hour", try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now - 3700), 403, "ExpiredProviderToken"),
            ("not a JWT", "not-a-jwt", 403, "InvalidProviderToken"),
            ("issued in the future (milliseconds)", try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now * 1000), 403, "InvalidProviderToken"),
        ]
        for (name, jwt, status, reason) in cases {
            let r = try send(jwt)
            XCTAssertEqual(r.status, status, name)
            XCTAssertEqual(r.body, "{\"reason\":\"\(reason)\"}", name)
        }
        // A tampered signature on an otherwise valid token.
        // Change a character well inside the signature: the last base64url character of a 64-byte signature
        // carries padding bits, so altering it can leave the decoded bytes (and the signature) unchanged.
        var chars = Array(try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now))
        let i = chars.count - 20
        chars[i] = chars[i] == "A" ? "B" : "A"
        XCTAssertEqual(try send(String(chars)).body, "{\"reason\":\"InvalidProviderToken\"}")
    }

    func testNewTokenOnOneConnectionWithin20MinutesIsTooManyProviderTokenUpdates() throws {
        let first = try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now - 10)
        let second = try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now)
        XCTAssertNotEqual(first, second)
        // TLS: curl 7.88 cannot reuse a prior-knowledge h2c connection (curl issue #10634), ALPN h2 can.
        mock.stop()
        mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: .tls(directory: dir + "/tls"), providerTokens: .verify(keyPath: keyPath, keyID: keyID, teamID: teamID)))
        try mock.start()
        let ca = try XCTUnwrap(mock.caCertificatePath)
        let url = "\(mock.baseURL)/3/device/\(pushToStartToken)"
        let body = dir + "/body.json"
        try Data(payload(event: "start", timestamp: now)).write(to: URL(fileURLWithPath: body))
        func part(_ jwt: String) -> [String] {
            ["--http2", "--cacert", ca, "-sS", "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n",
             "-H", "apns-push-type: liveactivity", "-H", "apns-topic: com.example.kora.push-type.liveactivity",
             "-H", "authorization: bearer \(jwt)", "--data-binary", "@\(body)", url]
        }
        // One curl process, one connection (the second transfer reuses it: num_connects 0).
        let (rc, out, err) = try runTool("/usr/bin/curl", part(first) + ["--next"] + part(second) + ["--next"] + part(first))
        XCTAssertEqual(rc, 0, err)
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, ["200 1", "429 0", "200 0"])
        XCTAssertEqual(mock.journal().map(\.reason), [nil, "TooManyProviderTokenUpdates", nil])
        // A new connection may bring the new token.
        var h = liveActivityHeaders
        h["authorization"] = "bearer \(second)"
        XCTAssertEqual(try curl(url, headers: h, body: payload(event: "start", timestamp: now), cacert: ca).status, 200)
    }

    func testOneStreamUntilAuthenticatedThenMaxConcurrentStreams() throws {
        let jwt = try ProviderTokenSigner.sign(keyPath: keyPath, keyID: keyID, teamID: teamID, issuedAt: now)
        let body = dir + "/body.json"
        try Data(payload(event: "start", timestamp: now)).write(to: URL(fileURLWithPath: body))
        let (rc, out, err) = try runTool("/usr/bin/nghttp", ["-nv", "-H", "apns-push-type: liveactivity",
                                                          "-H", "apns-topic: com.example.kora.push-type.liveactivity",
                                                          "-H", "authorization: bearer \(jwt)", "-d", body,
                                                          "\(mock.baseURL)/3/device/\(pushToStartToken)"])
        XCTAssertEqual(rc, 0, err)
        let text = String(decoding: out, as: UTF8.self)
        // The server's first SETTINGS says 1; after the valid token, before the answer, it says 1000.
        let one = try XCTUnwrap(text.range(of: "[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1]\n"), text)
        let thousand = try XCTUnwrap(text.range(of: "[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1000]"), text)
        let answer = try XCTUnwrap(text.range(of: ":status: 200"), text)
        XCTAssertTrue(one.lowerBound < thousand.lowerBound && thousand.lowerBound < answer.lowerBound, text)
    }
}
