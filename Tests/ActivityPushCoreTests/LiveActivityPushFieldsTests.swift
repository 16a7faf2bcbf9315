import ActivityPushCore
import XCTest

/// `LiveActivityPush.Fields`: the one typed input every surface decodes into (issue 12).
final class LiveActivityPushFieldsTests: XCTestCase {
    private func error(_ fields: LiveActivityPush.Fields, naming: LiveActivityPush.Field.Naming = .json)
        -> LiveActivityPush.FieldsError? {
        do { _ = try fields.push(bundleID: "com.example.app", schema: nil, naming: naming); return nil } catch { return error }
    }

    func testAStartWithoutItsPartsIsRefusedWithFindings() throws {
        var fields = LiveActivityPush.Fields(event: .start)
        fields.contentState = .obj([])
        guard case .findings(let findings)? = error(fields) else { return XCTFail("expected findings") }
        XCTAssertEqual(findings.map(\.code), [.missingAttributes, .missingAlertForStart, .missingAttributesType])
        XCTAssertTrue(findings.allSatisfy { $0.severity == .error })
        // The fix names the field as the caller's users spell it.
        guard case .findings(let flagged)? = error(fields, naming: .flag) else { return XCTFail("expected findings") }
        XCTAssertTrue(flagged[0].fix?.contains("--attributes-json") ?? false, "\(flagged[0].fix ?? "")")
        XCTAssertTrue(findings[0].fix?.contains("attributes") ?? false)
        XCTAssertEqual(flagged.map(\.message), findings.map(\.message), "messages are the same on every surface")
    }

    func testACompleteStartBuilds() throws {
        var fields = LiveActivityPush.Fields(event: .start)
        fields.attributesType = "PizzaDeliveryAttributes"
        fields.attributes = .obj([("orderNumber", .string("A-17"))])
        fields.contentState = .obj([("status", .string("baking"))])
        fields.alertTitle = "Order placed"
        fields.alertBody = "Soon"
        fields.timestampUnixSeconds = 1_767_225_600
        fields.apnsID = "8E2A6C1F-4B7D-4E0A-9C3B-2F1D5A6B7C8D"
        let request = try fields.build(bundleID: "com.example.app", schema: nil)
        XCTAssertEqual(request.event, .start)
        XCTAssertEqual(request.headers.apnsID, "8e2a6c1f-4b7d-4e0a-9c3b-2f1d5a6b7c8d")
        let direct = LiveActivityPush.start(bundleID: "com.example.app", attributesType: "PizzaDeliveryAttributes",
                                            attributes: .obj([("orderNumber", .string("A-17"))]),
                                            contentState: .obj([("status", .string("baking"))]),
                                            alert: LiveActivityAlert(title: "Order placed", body: "Soon"),
                                            timestampUnixSeconds: 1_767_225_600)
        XCTAssertEqual(request.body, try direct.build().body, "the same bytes as the builder made directly")
    }

    func testShapesTheBuilderCannotExpressNameTheField() {
        var update = LiveActivityPush.Fields(event: .update)
        update.contentState = .obj([])
        update.alertTitle = "Only a title"
        XCTAssertEqual(error(update), .invalidField(.alertBody, "is missing: the device shows an alert only with both title and body"))
        update.alertTitle = nil
        update.requestUpdateToken = true
        guard case .invalidField(.requestUpdateToken, _, _)? = error(update) else { return XCTFail("start-only field") }
        var start = LiveActivityPush.Fields(event: .start)
        start.contentState = .obj([])
        start.dismissalDateUnixSeconds = 1
        guard case .invalidField(.dismissalDate, _, _)? = error(start) else { return XCTFail("end-only field") }
        guard case .invalidField(.event, _, _)? = error(LiveActivityPush.Fields(event: "begin")) else { return XCTFail("event") }
        guard case .invalidField(.contentState, _, _)? = error(LiveActivityPush.Fields(event: .end)) else { return XCTFail("state") }
        var badID = LiveActivityPush.Fields(event: .end)
        badID.contentState = .obj([])
        badID.apnsID = "nope"
        guard case .invalidField(.apnsID, _, let fix)? = error(badID) else { return XCTFail("apns-id") }
        XCTAssertNotNil(fix)
    }

    func testEmptyTextMeansNotGiven() throws {
        var fields = LiveActivityPush.Fields(event: .update)
        fields.contentState = .obj([])
        fields.alertTitle = ""
        fields.alertBody = ""
        fields.collapseID = ""
        fields.channelID = ""
        let push = try fields.push(bundleID: "com.example.app", schema: nil)
        XCTAssertNil(push.alert)
        XCTAssertNil(push.collapseID)
        XCTAssertNil(push.broadcastChannelID)
    }

    /// A start with title and body both given as "" is a silent start: it builds, with a `silent-start` warning,
    /// the verdict `check` gives the same payload (QA item 11).
    func testBothEmptyAlertOnAStartIsASilentStart() throws {
        var fields = LiveActivityPush.Fields(event: .start)
        fields.attributesType = "A"
        fields.attributes = .obj([])
        fields.contentState = .obj([])
        fields.alertTitle = ""
        fields.alertBody = ""
        let request = try fields.build(bundleID: "com.example.app", schema: nil)
        XCTAssertEqual(request.warnings.map(\.code), [.silentStart])
        XCTAssertTrue(request.warnings.allSatisfy { $0.severity == .warning })
        let text = String(decoding: request.body, as: UTF8.self)
        XCTAssertTrue(text.contains(#""title":"""#) && text.contains(#""body":"""#), text)
    }

    func testEveryFieldHasOneFlagAndOneJSONKey() {
        let flags = LiveActivityPush.Field.allCases.map(\.flag)
        let keys = LiveActivityPush.Field.allCases.map(\.jsonKey)
        XCTAssertEqual(Set(flags).count, flags.count)
        XCTAssertEqual(Set(keys).count, keys.count)
        XCTAssertTrue(flags.allSatisfy { $0.hasPrefix("--") })
    }
}
