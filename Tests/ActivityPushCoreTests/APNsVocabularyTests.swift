import ActivityPushCore
import XCTest

/// Issue 12: Apple's APNs vocabulary is defined once in Core; these pin what each definition says.
final class APNsVocabularyTests: XCTestCase {
    func testDeviceTokenChecksHexOnceAndRedactsItself() throws {
        let token = try DeviceToken(hex: "80A1F2C3D4E5F60718293A4B5C6D7E8F")
        XCTAssertEqual(token.hex, "80a1f2c3d4e5f60718293a4b5c6d7e8f", "kept lowercase, as it goes into /3/device/<token>")
        XCTAssertEqual("\(token)", "80a1…7e8f", "interpolating a token prints it redacted")
        for bad in ["", "abc", "zz", "80a1 f2", "80a1-f2c3"] {
            XCTAssertFalse(DeviceToken.isHex(bad), bad)
            XCTAssertThrowsError(try DeviceToken(hex: bad), bad) { error in
                XCTAssertFalse("\(error)".contains(bad) && bad.count > 12, "the error shows the token redacted")
            }
        }
        XCTAssertEqual(DeviceToken.redacted("abcdef"), "******", "short values are masked entirely")
        XCTAssertEqual(DeviceToken.journalPrefix("80a1f2c3d4e5"), "80a1f2c3…")
        XCTAssertEqual(DeviceToken.journalPrefix("80a1"), "80a1")
    }

    func testHeaderNamesAndTypedAccessorsShareOneSpelling() {
        var headers = APNsHeaders()
        headers.topic = "com.example.app.push-type.liveactivity"
        headers[.priority] = "5"
        XCTAssertEqual(headers["APNS-TOPIC"], "com.example.app.push-type.liveactivity", "lookup ignores case")
        XCTAssertEqual(headers.priority, "5")
        XCTAssertEqual(headers.fields.map(\.name), [APNsHeaderName.topic.rawValue, APNsHeaderName.priority.rawValue])
        headers.topic = nil
        XCTAssertNil(headers[.topic], "setting nil removes the header")
        XCTAssertEqual(APNsHeaderName(rawValue: "APNs-Push-Type"), .pushType, "names are stored lowercase")
        XCTAssertTrue(APNsHeaderName.collapseID.isAPNsHeader)
        XCTAssertFalse(APNsHeaderName.authorization.isAPNsHeader)
    }

    func testLiveActivityHeadersForDeviceAndBroadcast() {
        let device = APNsHeaders.liveActivity(bundleID: "com.example.app")
        XCTAssertEqual(device.dictionary, ["apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity",
                                           "apns-priority": "10"])
        let broadcast = APNsHeaders.liveActivity(bundleID: "com.example.app", broadcastChannelID: "Y2hhbm5lbA==",
                                                 priority: .considerate)
        XCTAssertEqual(broadcast.dictionary, ["apns-push-type": "liveactivity", "apns-channel-id": "Y2hhbm5lbA==",
                                              "apns-expiration": "0", "apns-priority": "5"],
                       "a broadcast carries its channel and the required expiration, never apns-topic")
        // The builder's headers are the same function's.
        let push = LiveActivityPush.update(bundleID: "com.example.app", contentState: .obj([]), timestampUnixSeconds: 1)
        XCTAssertEqual(push.headers, device)
    }

    func testSizeLimitsAreTheValidatorsLimits() {
        XCTAssertEqual(APNsLimits.bodyBytes(broadcast: false), 4096)
        XCTAssertEqual(APNsLimits.bodyBytes(broadcast: true), 5120)
        func body(size: Int) -> [UInt8] {
            let prefix = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}, "pad": ""#
            return Array((prefix + String(repeating: "x", count: size - prefix.utf8.count - 2) + #""}"#).utf8)
        }
        let device = APNsHeaders.liveActivity(bundleID: "com.example.app")
        let broadcast = APNsHeaders.liveActivity(bundleID: "com.example.app", broadcastChannelID: "Y2hhbm5lbA==")
        func tooLarge(_ bytes: [UInt8], _ headers: APNsHeaders) -> Bool {
            Validator().check(body: bytes, headers: headers, nowUnixSeconds: 1_767_225_600).findings
                .contains { $0.code == .payloadTooLarge }
        }
        XCTAssertEqual(body(size: 4097).count, 4097)
        XCTAssertFalse(tooLarge(body(size: APNsLimits.deviceBodyBytes), device))
        XCTAssertTrue(tooLarge(body(size: APNsLimits.deviceBodyBytes + 1), device))
        XCTAssertFalse(tooLarge(body(size: APNsLimits.broadcastBodyBytes), broadcast))
        XCTAssertTrue(tooLarge(body(size: APNsLimits.broadcastBodyBytes + 1), broadcast))
    }

    func testEnvironmentsByName() {
        XCTAssertEqual(APNsEnvironment.named("sandbox"), .sandbox)
        XCTAssertEqual(APNsEnvironment.named("production")?.deviceURL, "https://api.push.apple.com:443")
        XCTAssertNil(APNsEnvironment.named("staging"))
    }
}
