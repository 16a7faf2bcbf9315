import ActivityPushConsole
import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// Issue 11 H2, M5, M6: the token intake binds a deviceID to its install, moves a token between deviceIDs, and
/// makes a retired token valid again when the app posts it after the 410.
final class TokenRegistrationSecurityTests: XCTestCase {
    private let token = String(repeating: "ab", count: 32)
    private let secret = String(repeating: "5e", count: 32)

    private func service() throws -> (LiveActivityService, SQLiteQueueStore) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).sqlite").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteQueueStore(path: path)
        return (try LiveActivityService(outbox: Outbox(store: store), bundleID: "com.example.match", clock: { 1_800_000_000 }), store)
    }

    private func pushToStart(_ deviceID: String, token: String? = nil, secret: String? = nil) -> ActivityTokenRegistration {
        ActivityTokenRegistration(kind: .pushToStart, deviceID: deviceID, attributesType: "MatchAttributes",
                                  token: token ?? self.token, deviceSecret: secret)
    }

    func testSecretDecisionIsAPlainValue() {
        let hash = DeviceSecret.sha256Hex(secret)
        XCTAssertEqual(DeviceSecret.sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(DeviceSecret.decide(stored: nil, given: secret, deviceHasTokens: false), .bind(hash: hash))
        XCTAssertEqual(DeviceSecret.decide(stored: nil, given: secret, deviceHasTokens: true), .allow)
        XCTAssertEqual(DeviceSecret.decide(stored: nil, given: nil, deviceHasTokens: false), .allow)
        XCTAssertEqual(DeviceSecret.decide(stored: hash, given: secret, deviceHasTokens: true), .allow)
        XCTAssertEqual(DeviceSecret.decide(stored: hash, given: nil, deviceHasTokens: true), .refuse)
        XCTAssertEqual(DeviceSecret.decide(stored: hash, given: secret + "x", deviceHasTokens: true), .refuse)
    }

    func testABoundDeviceRefusesAnotherInstallWith403() throws {
        let (service, store) = try service()
        _ = try service.register(pushToStart("phone-1", secret: secret))
        let stored = try store.outbox.run { o throws(QueueError) in
            try o.db.query("SELECT secret_sha256 FROM ap_la_device_secrets WHERE device_id = 'phone-1'", []).first?[0].text
        }
        XCTAssertEqual(stored, DeviceSecret.sha256Hex(secret), "only the hash is stored")
        for attempt in [nil, String(repeating: "00", count: 32)] {
            XCTAssertThrowsError(try service.register(pushToStart("phone-1", token: String(repeating: "cd", count: 32), secret: attempt))) { error in
                XCTAssertEqual((error as? ActivityError)?.status, 403)
                XCTAssertEqual((error as? ActivityError)?.field, "deviceSecret")
            }
        }
        // The same install may replace its token.
        XCTAssertNoThrow(try service.register(pushToStart("phone-1", token: String(repeating: "ef", count: 32), secret: secret)))
    }

    func testADeviceFirstRegisteredWithoutASecretStaysOpen() throws {
        let (service, _) = try service()
        _ = try service.register(pushToStart("old-phone"))
        // A later post with a secret does not lock the first install out.
        _ = try service.register(pushToStart("old-phone", secret: secret))
        XCTAssertNoThrow(try service.register(pushToStart("old-phone", token: String(repeating: "cd", count: 32))))
    }

    func testATokenUnderANewDeviceIDMovesThere() throws {
        let (service, store) = try service()
        _ = try service.register(pushToStart("phone-a"))
        let receipt = try service.register(pushToStart("phone-b"))
        XCTAssertEqual(receipt.movedFrom, ["phone-a"])
        let owners = try store.outbox.run { o throws(QueueError) in
            try o.db.query("SELECT device_id FROM ap_la_tokens WHERE token = ?", [.text(self.token)]).compactMap { $0[0].text }
        }
        XCTAssertEqual(owners, ["phone-b"], "one token is one device: a start reaches it once")
    }

    func testARetiredTokenPostedAgainAfterThe410IsValidAgain() throws {
        let (service, store) = try service()
        try store.outbox.run { o throws(QueueError) in
            _ = try o.db.query("INSERT INTO ap_inactive_tokens (token, reason, invalid_since_unix_ms, recorded_unix) VALUES (?, ?, ?, ?)",
                               [.text(self.token), .text("Unregistered"), .double(1_700_000_000_000), .double(1_700_000_000)])
        }
        let receipt = try service.register(pushToStart("phone-1"))
        XCTAssertNil(receipt.retired)
        XCTAssertEqual(receipt.reactivated, "Unregistered")
        XCTAssertTrue(JSONWriter.compact(receipt.json).contains(#""reactivated":"Unregistered""#))
        XCTAssertEqual(try store.inactiveTokens(among: [token]), [:], "the inactive mark is cleared in the same transaction")
    }

    func testATokenAPNsRetiredAfterThisPostStaysRetired() throws {
        let (service, store) = try service()
        try store.outbox.run { o throws(QueueError) in
            _ = try o.db.query("INSERT INTO ap_inactive_tokens (token, reason, invalid_since_unix_ms, recorded_unix) VALUES (?, ?, ?, ?)",
                               [.text(self.token), .text("Unregistered"), .double(1_900_000_000_000), .double(1_900_000_000)])
        }
        let receipt = try service.register(pushToStart("phone-1"))
        XCTAssertEqual(receipt.retired, "Unregistered")
        XCTAssertNil(receipt.reactivated)
    }
}

/// Issue 11 H1: a database failure answers the intake scope (app installs) a generic 503; the admin scope keeps the
/// detail.
final class TokenIntakeStoreFailureTests: XCTestCase {
    func testIntakeGetsAGeneric503AndAdminTheDetail() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("intake-\(UUID().uuidString).sqlite").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteQueueStore(path: path)
        let outbox = Outbox(store: store)
        let service = try LiveActivityService(outbox: outbox, bundleID: "com.example.match")
        let api = ConsoleAPI(configuration: ConsoleConfiguration(schema: nil, bundleID: "com.example.match", environment: .sandbox,
                                                                 apiToken: "admin-token", intakeToken: "intake-token"),
                             outbox: outbox, activities: service)
        // Break the store under the service: every registration now fails in the database.
        try store.outbox.run { o throws(QueueError) in _ = try o.db.query("DROP TABLE ap_la_tokens", []) }
        let body = Array(#"{"kind":"push-to-start","deviceID":"phone-1","attributesType":"MatchAttributes","token":"\#(String(repeating: "ab", count: 32))"}"#.utf8)
        func post(_ bearer: String) async -> HTTPResponse {
            await api.handle(HTTPRequest(method: "POST", path: "/v1/tokens",
                                         headers: ["Content-Type": "application/json", "Authorization": "Bearer \(bearer)"], body: body))
        }
        let intake = await post("intake-token")
        XCTAssertEqual(intake.status, 503)
        let intakeText = String(decoding: intake.body, as: UTF8.self)
        XCTAssertTrue(intakeText.contains("the service cannot reach its database; retry later"), intakeText)
        XCTAssertFalse(intakeText.contains(path) || intakeText.contains("ap_la_tokens") || intakeText.contains("SQLite"), intakeText)
        let admin = await post("admin-token")
        XCTAssertEqual(admin.status, 503)
        XCTAssertTrue(String(decoding: admin.body, as: UTF8.self).contains("ap_la_tokens"), "the admin scope keeps the detail")
    }
}
