import XCTest
@testable import ActivityPushCore

/// An app's attributes file, compiled unchanged against ActivityPushCore's `ActivityAttributes`.
struct PizzaDeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var driverName: String
        var deliveryTime: Date
    }
    var orderNumber: String
}

final class PayloadBuilderTests: XCTestCase {
    let now: Int64 = 1_767_225_600

    func testStartHasEverythingInsideAPSAndTheRightHeaders() throws {
        let push = LiveActivityPush.start(
            bundleID: "com.example.kora", attributesType: "KORAActivityAttributes",
            attributes: .obj([("eventID", .string("e1")), ("venueName", .string("Hall B"))]),
            contentState: .obj([("phase", .string("open")), ("minutesLeft", .int(30))]),
            alert: LiveActivityAlert(title: "Doors open", body: "Starts in 30"), timestampUnixSeconds: now)
        let request = try push.build()
        XCTAssertEqual(request.headers["apns-push-type"], "liveactivity")
        XCTAssertEqual(request.headers["apns-topic"], "com.example.kora.push-type.liveactivity")
        XCTAssertEqual(request.headers["apns-priority"], "10")
        let root = try XCTUnwrap(JSONReader.read(request.body).root)
        XCTAssertEqual(root.value.members?.map(\.key), ["aps"])
        XCTAssertEqual(root["aps"]?["attributes-type"]?.value.stringValue, "KORAActivityAttributes")
        XCTAssertEqual(root["aps"]?["alert"]?["title"]?.value.stringValue, "Doors open")
        XCTAssertEqual(root["aps"]?["timestamp"]?.value.numberValue?.lexeme, "1767225600")
        XCTAssertEqual(request.destination, .device)
    }

    func testTypedFrontDoorUsesTheExactTypeNameAndReferenceDateSeconds() throws {
        let delivery = Date(timeIntervalSince1970: 1_767_229_200)
        let push = try LiveActivityPush.start(
            bundleID: "com.example.pizza", attributes: PizzaDeliveryAttributes(orderNumber: "A-17"),
            contentState: .init(driverName: "Bill", deliveryTime: delivery),
            alert: LiveActivityAlert(title: "Order placed", body: "25 min"), timestampUnixSeconds: now)
        let request = try push.build()
        let aps = try XCTUnwrap(JSONReader.read(request.body).root?["aps"])
        XCTAssertEqual(aps["attributes-type"]?.value.stringValue, "PizzaDeliveryAttributes")
        // JSONEncoder's default Date strategy: seconds since 2001-01-01, which the device decodes back to `delivery`.
        XCTAssertEqual(aps["content-state"]?["deliveryTime"]?.value.numberValue?.doubleValue, 1_767_229_200 - 978_307_200)
        let data = Data(JSONWriter.compact(aps["content-state"]!.value).utf8)
        XCTAssertEqual(try JSONDecoder().decode(PizzaDeliveryAttributes.ContentState.self, from: data).deliveryTime, delivery)
        let update = try LiveActivityPush.update(PizzaDeliveryAttributes.self, bundleID: "com.example.pizza",
                                                 contentState: .init(driverName: "Bill", deliveryTime: delivery),
                                                 timestampUnixSeconds: now).build()
        XCTAssertEqual(update.event, .update)
    }

    func testBuilderRefusesWhatTheDeviceRejects() throws {
        let schema = ValidatorRuleTests.schema
        // Trap 2: alert text smuggled into attributes.
        let smuggled = LiveActivityPush.start(
            bundleID: "com.example.kora", attributesType: "KoraAttributes",
            attributes: .obj([("eventID", .string("e1")), ("venue_name", .string("B")), ("alert_title", .string("Hi"))]),
            contentState: .obj([("phase", .string("open")), ("minutesLeft", .int(3))]),
            alert: LiveActivityAlert(title: "T", body: "B"), timestampUnixSeconds: now)
        XCTAssertThrowsError(try smuggled.build(schema: schema)) { error in
            let f = (error as? PushBuildError)?.findings.first(where: { $0.code == .unknownAttributeKey })
            XCTAssertEqual(f?.path, "aps.attributes.alert_title")
            XCTAssertEqual(f?.fix, "move \"alert_title\" to aps.alert.title")
        }
        // Trap 3: attributes-type differing in case.
        let wrongCase = LiveActivityPush.start(
            bundleID: "com.example.kora", attributesType: "koraAttributes",
            attributes: .obj([("eventID", .string("e1")), ("venue_name", .string("B"))]),
            contentState: .obj([("phase", .string("open")), ("minutesLeft", .int(3))]),
            alert: LiveActivityAlert(title: "T", body: "B"), timestampUnixSeconds: now)
        XCTAssertThrowsError(try wrongCase.build(schema: schema)) { error in
            XCTAssertEqual((error as? PushBuildError)?.findings.first?.code, .attributesTypeMismatch)
        }
        // A start cannot be broadcast.
        let broadcastStart = LiveActivityPush.start(
            bundleID: "com.example.kora", attributesType: "KoraAttributes",
            attributes: .obj([("eventID", .string("e1")), ("venue_name", .string("B"))]),
            contentState: .obj([("phase", .string("open")), ("minutesLeft", .int(3))]),
            alert: LiveActivityAlert(title: "T", body: "B"), timestampUnixSeconds: now).toBroadcast(channelID: "dHN0LTEyMw==")
        XCTAssertThrowsError(try broadcastStart.build()) { error in
            XCTAssertTrue((error as? PushBuildError)?.findings.contains(where: { $0.code == .startViaBroadcast }) ?? false)
        }
        // Milliseconds where seconds belong.
        var ms = LiveActivityPush.update(bundleID: "com.example.kora", contentState: .obj([("phase", .string("x")), ("minutesLeft", .int(1))]),
                                         timestampUnixSeconds: now * 1000)
        XCTAssertThrowsError(try ms.build())
        ms.timestampUnixSeconds = now
        XCTAssertNoThrow(try ms.build())
    }

    func testBroadcastUpdateAndEndHeaders() throws {
        let end = LiveActivityPush.end(bundleID: "com.example.kora", contentState: .obj([("phase", .string("done"))]),
                                       timestampUnixSeconds: now, dismissalDateUnixSeconds: now + 60)
            .toBroadcast(channelID: "dHN0LTEyMw==")
        let request = try end.build()
        XCTAssertEqual(request.destination, .broadcast(channelID: "dHN0LTEyMw=="))
        XCTAssertNil(request.headers["apns-topic"])
        XCTAssertEqual(request.headers["apns-channel-id"], "dHN0LTEyMw==")
        XCTAssertEqual(request.headers["apns-expiration"], "0")
        XCTAssertEqual(JSONReader.read(request.body).root?["aps"]?["dismissal-date"]?.value.numberValue?.int64Value, now + 60)
    }

    func testStoredPushesAreRecheckedWhenRestored() throws {
        let request = try LiveActivityPush.update(bundleID: "com.example.kora", contentState: .obj([("a", .int(1))]),
                                                  timestampUnixSeconds: now).build().with(apnsID: "6F1C2A9E-0000-4000-8000-000000000002")
        let restored = try PushRequest(bundleID: "com.example.kora", storedHeaders: request.headers, body: request.body)
        XCTAssertEqual(restored, request)
        XCTAssertEqual(restored.apnsID, "6f1c2a9e-0000-4000-8000-000000000002")
        let tampered = Array(#"{"aps":{"event":"start","timestamp":1767225600,"content-state":{}},"attributes":{}}"#.utf8)
        XCTAssertThrowsError(try PushRequest(bundleID: "com.example.kora", storedHeaders: request.headers, body: tampered))
    }

    /// Builder output for every valid case of the corpus re-checks clean: the values are taken from the case's
    /// payload and headers and rebuilt through the one builder.
    func testEveryValidCaseRebuildsAndRechecksClean() throws {
        var rebuilt = 0
        for folder in try FixturePaths.caseFolders() {
            let c = try CaseCorpusTests.load(folder)
            guard c.expected.accept, let aps = JSONReader.read(c.body).root?["aps"] else { continue }
            let event = aps["event"]?.value.stringValue
            let ts = aps["timestamp"]?.value.numberValue?.int64Value ?? now
            let bundle = c.headers?["apns-topic"].map { $0.replacingOccurrences(of: LiveActivityPush.topicSuffix, with: "") } ?? "com.example.app"
            var alert: LiveActivityAlert? = nil
            if let t = aps["alert"]?["title"]?.value.stringValue, let b = aps["alert"]?["body"]?.value.stringValue {
                alert = LiveActivityAlert(title: t, body: b)
            }
            let cs = aps["content-state"]!.value
            var push: LiveActivityPush
            switch event {
            case "start":
                push = .start(bundleID: bundle, attributesType: aps["attributes-type"]!.value.stringValue!,
                              attributes: aps["attributes"]!.value, contentState: cs, alert: alert!, timestampUnixSeconds: ts)
            case "update":
                push = .update(bundleID: bundle, contentState: cs, timestampUnixSeconds: ts, alert: alert)
            default:
                push = .end(bundleID: bundle, contentState: cs, timestampUnixSeconds: ts,
                            dismissalDateUnixSeconds: aps["dismissal-date"]?.value.numberValue?.int64Value, alert: alert)
            }
            if let p = c.headers?["apns-priority"].flatMap(Int.init) { push.priority = APNsPriority(rawValue: p) }
            push.expirationUnixSeconds = c.headers?["apns-expiration"].flatMap { Int64($0) }.map { $0 == 0 ? ts + 600 : $0 }
            let request = try push.build(schema: c.schema)
            let report = Validator(schema: c.schema).check(body: request.body, headers: request.headers,
                                                           nowUnixSeconds: c.expected.context?.now)
            XCTAssertTrue(report.errors.isEmpty, "\(c.name): \(report.errors)")
            XCTAssertTrue(report.findings.filter { $0.severity == .warning }.isEmpty, "\(c.name): \(report.findings)")
            rebuilt += 1
        }
        XCTAssertGreaterThanOrEqual(rebuilt, 5)
    }
}
