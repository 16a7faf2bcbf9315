@testable import ActivityPushConsole
import ActivityPushCore
import Foundation
import XCTest

/// The API called directly (no sockets): every route's contract and every error path.
final class ConsoleAPITests: XCTestCase {
    typealias S = ConsoleTestSupport

    // MARK: GET /v1/types

    func testTypesDescribeTheSchemaAsTheSchemaCommandDoes() async throws {
        let api = try S.api()
        let r = await api.handle(S.get("/v1/types"))
        XCTAssertEqual(r.status, 200)
        let root = try S.json(r)
        guard case .array(let types)? = root["types"]?.value else { return XCTFail("no types: \(r.bodyText)") }
        XCTAssertEqual(types.map { $0["name"]?.value.stringValue }, ["PizzaDeliveryAttributes"])
        // Exactly the Core description of the same schema (what `schema --format json` prints).
        let expected = ActivitySchemaDescription.json(try S.schema())
        XCTAssertEqual(JSONWriter.compact(root["types"]!.value), JSONWriter.compact(expected.members!.first { $0.key == "types" }!.value.value))
        let placedAt = types[0]["attributes"]?["properties"]
        guard case .array(let props)? = placedAt?.value else { return XCTFail("no properties") }
        let date = props.first { $0["key"]?.value.stringValue == "placedAt" }
        XCTAssertEqual(date?["shape"]?["kind"]?.value.stringValue, "date")
        XCTAssertEqual(root["server"]?["canSend"]?.value, .bool(false))
        XCTAssertEqual(root["server"]?["bundleID"]?.value.stringValue, "com.example.pizza")
        XCTAssertEqual(root["server"]?["environment"]?.value.stringValue, "sandbox")
    }

    /// With `--url` (sends to a mock) the environment stays the one pushes are enqueued for, and the URL is shown
    /// apart (newcomer: `server.environment` was the URL).
    func testTypesNameTheEnvironmentAndTheURLApart() async throws {
        let api = ConsoleAPI(configuration: ConsoleConfiguration(schema: nil, bundleID: "com.example.pizza",
                                                                 environment: .custom("https://127.0.0.1:9"),
                                                                 queueEnvironment: .production))
        let root = try S.json(await api.handle(S.get("/v1/types")))
        XCTAssertEqual(root["server"]?["environment"]?.value.stringValue, "production")
        XCTAssertEqual(root["server"]?["sendsTo"]?.value.stringValue, "https://127.0.0.1:9")
    }

    // MARK: POST /v1/check

    func testCheckAnswersExactlyWhatCheckFormatJSONPrints() async throws {
        let api = try S.api()
        let payload: JSONValue = .obj([("aps", .obj([
            ("timestamp", .int(Int(Date().timeIntervalSince1970))), ("event", .string("start")),
            ("content-state", S.contentState), ("attributes-type", .string("PizzaDeliveryAttributes")),
            ("attributes", .obj(S.startAttributes.members!.map { ($0.key, $0.value.value) } + [("alert_title", .string("Hi"))])),
            ("alert", .obj([("title", .string("t")), ("body", .string("b"))])),
        ]))])
        let headers: JSONValue = .obj([("apns-push-type", .string("liveactivity")),
                                       ("apns-topic", .string("com.example.pizza.push-type.liveactivity"))])
        let now = Date().timeIntervalSince1970
        let r = await api.handle(S.post("/v1/check", .obj([("payload", payload), ("headers", headers), ("now", .double(now))])))
        XCTAssertEqual(r.status, 200)
        var h = APNsHeaders()
        h["apns-push-type"] = "liveactivity"
        h["apns-topic"] = "com.example.pizza.push-type.liveactivity"
        let report = Validator(schema: try S.schema()).check(body: Array(JSONWriter.pretty(payload).utf8), headers: h, nowUnixSeconds: now)
        XCTAssertEqual(JSONWriter.compact(try S.json(r).value), JSONWriter.compact(ReportFormatter.jsonValue(report)))
        let root = try S.json(r)
        XCTAssertEqual(root["accept"]?.value, .bool(false))
        let finding = S.findings(root).first { $0["code"]?.value.stringValue == "unknown-attribute-key" }
        XCTAssertEqual(finding?["path"]?.value.stringValue, "aps.attributes.alert_title")
        XCTAssertNotNil(finding?["fix"]?.value.stringValue, "the finding carries its fix")
        XCTAssertNotNil(finding?["line"]?.value.numberValue, "positions refer to the pretty-printed payload")
    }

    func testCheckWithExactBodyTextPointsIntoThatText() async throws {
        let api = try S.api()
        let text = "{\"aps\": {\"timestamp\": 1700000000,\n \"event\": \"update\",\n \"content-state\": {}},\n \"attributes\": {}}"
        let r = await api.handle(S.post("/v1/check", .obj([("body", .string(text))])))
        XCTAssertEqual(r.status, 200)
        let report = Validator(schema: try S.schema()).check(body: Array(text.utf8), headers: nil, nowUnixSeconds: Date().timeIntervalSince1970)
        XCTAssertEqual(S.codes(try S.json(r)), report.findings.map(\.code.rawValue))
        XCTAssertFalse(report.findings.isEmpty)
        let lines = S.findings(try S.json(r)).compactMap { $0["line"]?.value.numberValue?.int64Value }
        XCTAssertTrue(lines.contains(4), "the misplaced root attributes key is on line 4 of the text: \(r.bodyText)")
    }

    func testCheckNeedsAPayload() async throws {
        let r = await (try S.api()).handle(S.post("/v1/check", .obj([("headers", .obj([]))])))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "payload")
    }

    // MARK: POST /v1/build

    func testBuildMakesTheBuildersPayloadAndHeaders() async throws {
        let api = try S.api()
        let r = await api.handle(S.post("/v1/build", .obj(S.startFields + [("timestamp", .int(1_767_225_600))])))
        XCTAssertEqual(r.status, 200, r.bodyText)
        let root = try S.json(r)
        XCTAssertEqual(root["accept"]?.value, .bool(true))
        XCTAssertFalse(S.findings(root).contains { $0["severity"]?.value.stringValue == "error" })
        // The same push made directly with the builder gives the same body bytes.
        let push = LiveActivityPush.start(bundleID: "com.example.pizza", attributesType: "PizzaDeliveryAttributes",
                                          attributes: S.startAttributes, contentState: S.contentState,
                                          alert: LiveActivityAlert(title: "Order placed", body: "Luigi's is on it"),
                                          timestampUnixSeconds: 1_767_225_600)
        XCTAssertEqual(root["body"]?.value.stringValue, JSONWriter.compact(push.payload))
        XCTAssertEqual(root["headers"]?["apns-topic"]?.value.stringValue, "com.example.pizza.push-type.liveactivity")
        XCTAssertEqual(root["headers"]?["apns-push-type"]?.value.stringValue, "liveactivity")
        XCTAssertEqual(root["payload"]?["aps"]?["event"]?.value.stringValue, "start")
    }

    func testBuildAcceptsJSONTextAsTypedInTheForm() async throws {
        let fields = S.startFields
            .replacing("attributes", with: .string(JSONWriter.pretty(S.startAttributes)))
            .replacing("contentState", with: .string(JSONWriter.pretty(S.contentState)))
        let r = await (try S.api()).handle(S.post("/v1/build", .obj(fields)))
        XCTAssertEqual(r.status, 200, r.bodyText)
    }

    func testBuildReportsAlertLikeAttributeKeyWithItsFixAnd422() async throws {
        var attrs = S.startAttributes.members!.map { ($0.key, $0.value.value) }
        attrs.append(("alertTitle", .string("Your pizza")))
        let r = await (try S.api()).handle(S.post("/v1/build", .obj(S.startFields.replacing("attributes", with: .obj(attrs)))))
        XCTAssertEqual(r.status, 422, r.bodyText)
        let root = try S.json(r)
        XCTAssertEqual(root["accept"]?.value, .bool(false))
        let f = S.findings(root).first { $0["code"]?.value.stringValue == "unknown-attribute-key" }
        XCTAssertNotNil(f, r.bodyText)
        XCTAssertNotNil(f?["fix"]?.value.stringValue)
        XCTAssertNotNil(root["payload"]?["aps"], "the preview is still returned")
    }

    func testBuildInputErrorsNameTheField() async throws {
        let api = try S.api()
        var r = await api.handle(S.post("/v1/build", .obj([("contentState", S.contentState)])))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "event")

        r = await api.handle(S.post("/v1/build", .obj(S.startFields.replacing("attributes", with: .string("{\"orderNumber\": ")))))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "attributes")
        XCTAssertTrue(try S.json(r)["error"]?["message"]?.value.stringValue?.contains("not valid JSON") ?? false)

        // A start without its alert is refused with findings, as `activity-push build` refuses it (issue 12).
        r = await api.handle(S.post("/v1/build", .obj(S.startFields.replacing("alert", with: nil))))
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(S.codes(try S.json(r)), ["missing-alert-for-start"])

        r = await api.handle(S.post("/v1/build", .obj(S.startFields + [("content_state", .obj([]))])))
        XCTAssertEqual(r.status, 400)
        let e = try S.json(r)["error"]
        XCTAssertEqual(e?["field"]?.value.stringValue, "content_state")
        XCTAssertEqual(e?["fix"]?.value.stringValue, "did you mean \"contentState\"?")

        r = await api.handle(S.post("/v1/build", .obj(S.startFields.replacing("event", with: .string("begin")))))
        XCTAssertEqual(r.status, 400)
        r = await api.handle(S.post("/v1/build", .obj(S.startFields.replacing("apnsID", with: .string("nope")))))
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "apnsID")
        r = await api.handle(S.post("/v1/build", .obj(S.startFields.replacing("dismissalDate", with: .int(1)))))
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "dismissalDate")
    }

    func testBuildBroadcastUpdateAddsChannelHeaders() async throws {
        let fields: [(String, JSONValue)] = [("event", .string("update")), ("contentState", S.contentState),
                                             ("channelID", .string("dHN0LXUxMjM0NTY3OA=="))]
        let r = await (try S.api()).handle(S.post("/v1/build", .obj(fields)))
        XCTAssertEqual(r.status, 200, r.bodyText)
        let h = try S.json(r)["headers"]
        XCTAssertEqual(h?["apns-channel-id"]?.value.stringValue, "dHN0LXUxMjM0NTY3OA==")
        XCTAssertEqual(h?[":path"]?.value.stringValue, "/4/broadcasts/apps/com.example.pizza")
        XCTAssertNil(h?["apns-topic"])
    }

    // MARK: Errors every route shares

    func testBadJSONIs400WithLineAndColumn() async throws {
        let r = await (try S.api()).handle(S.post("/v1/check", text: "{\"payload\": {\"aps\": {,}}}"))
        XCTAssertEqual(r.status, 400)
        let e = try S.json(r)["error"]
        XCTAssertEqual(e?["code"]?.value.stringValue, "bad-json")
        XCTAssertEqual(e?["line"]?.value.numberValue?.int64Value, 1)
        XCTAssertEqual(e?["column"]?.value.numberValue?.int64Value, 22)
    }

    func testEmptyNonObjectAndDuplicateBodiesAre400() async throws {
        let api = try S.api()
        for text in ["", "[1, 2]", "\"x\"", "{\"payload\": {}, \"payload\": {}}", "{\"payload\": {}} trailing", "\u{FF}"] {
            let r = await api.handle(S.post("/v1/check", text: text))
            XCTAssertEqual(r.status, 400, "\(text): \(r.bodyText)")
            XCTAssertEqual(S.errorCode(try S.json(r)), "bad-json", text)
        }
    }

    func testOversizedBodyIs413() async throws {
        let r = await (try S.api()).handle(HTTPRequest(method: "POST", path: "/v1/check", bodyTooLarge: true))
        XCTAssertEqual(r.status, 413)
        XCTAssertEqual(S.errorCode(try S.json(r)), "payload-too-large")
    }

    func testUnknownRouteIs404AndWrongMethodIs405() async throws {
        let api = try S.api()
        var r = await api.handle(S.get("/v2/nothing"))
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(S.errorCode(try S.json(r)), "not-found")
        r = await api.handle(S.get("/v1/check"))
        XCTAssertEqual(r.status, 405)
        XCTAssertEqual(r.header("Allow"), "POST")
        XCTAssertEqual(S.errorCode(try S.json(r)), "method-not-allowed")
        r = await api.handle(HTTPRequest(method: "DELETE", path: "/v1/types"))
        XCTAssertEqual(r.status, 405)
    }

    func testJournalLimitMustBePositive() async throws {
        let r = await (try S.api()).handle(S.get("/v1/journal", query: ["limit": "-3"]))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(try S.json(r)["error"]?["field"]?.value.stringValue, "limit")
    }

    // MARK: Access token

    func testAPITokenGatesEveryRoute() async throws {
        let api = try S.api(token: "s3cret-token")
        for path in ["/", "/v1/types", "/metrics", "/openapi.json", "/nope"] {
            let r = await api.handle(S.get(path))
            XCTAssertEqual(r.status, 401, path)
            XCTAssertNotNil(r.header("WWW-Authenticate"))
        }
        var r = await api.handle(S.get("/v1/types", headers: ["Authorization": "Bearer s3cret-token"]))
        XCTAssertEqual(r.status, 200)
        r = await api.handle(S.get("/v1/types", headers: ["Authorization": "Bearer s3cret-tokeN"]))
        XCTAssertEqual(r.status, 401)
        let basic = Data("admin:s3cret-token".utf8).base64EncodedString()
        r = await api.handle(S.get("/", headers: ["Authorization": "Basic \(basic)"]))
        XCTAssertEqual(r.status, 200)
        XCTAssertFalse(r.bodyText.contains("s3cret"))
    }

    func testOtherSitesCannotDriveTheAPIThroughABrowser() async throws {
        let api = try S.api()
        let fields = JSONValue.obj(S.startFields + [("deviceToken", .string(String(repeating: "ab", count: 32)))])
        var req = S.post("/v1/send", fields)
        req.headers["origin"] = "https://evil.example"
        req.headers["host"] = "127.0.0.1:8787"
        var r = await api.handle(req)
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(S.errorCode(try S.json(r)), "forbidden")
        // DNS rebinding: a foreign name resolving to 127.0.0.1.
        r = await api.handle(S.get("/v1/types", headers: ["Host": "rebind.evil.example:8787"]))
        XCTAssertEqual(r.status, 403)
        // The page itself (same origin) and curl (no Origin) pass.
        var same = S.post("/v1/build", .obj(S.startFields))
        same.headers["origin"] = "http://127.0.0.1:8787"
        same.headers["host"] = "127.0.0.1:8787"
        r = await api.handle(same)
        XCTAssertEqual(r.status, 200, r.bodyText)
        for host in ["localhost:8787", "[::1]:8787", "127.0.0.1"] {
            r = await api.handle(S.get("/v1/types", headers: ["Host": host]))
            XCTAssertEqual(r.status, 200, host)
        }
        let page = await api.handle(S.get("/"))
        XCTAssertEqual(page.header("Content-Security-Policy"), "default-src 'self'; frame-ancestors 'none'")
    }

    // MARK: Send and enqueue without their back ends

    func testSendAndEnqueueRefuseErrorFindingsBeforeAnythingElse() async throws {
        let api = try S.api()
        let bad = S.startFields.replacing("type", with: .string("pizzaDeliveryAttributes"))
        for path in ["/v1/send", "/v1/enqueue"] {
            let r = await api.handle(S.post(path, .obj(bad + [("deviceToken", .string(String(repeating: "ab", count: 32)))])))
            XCTAssertEqual(r.status, 422, r.bodyText)
            let root = try S.json(r)
            XCTAssertEqual(root["accept"]?.value, .bool(false))
            XCTAssertFalse(S.codes(root).isEmpty)
            XCTAssertEqual(root["error"]?["code"]?.value.stringValue, "findings")
        }
        XCTAssertTrue(api.metrics.render(.init()).contains("activity_push_refused_total 2"))
    }

    func testSendAndEnqueueWithoutBackEndsAre503() async throws {
        let api = try S.api()
        let fields = S.startFields + [("deviceToken", .string(String(repeating: "ab", count: 32)))]
        var r = await api.handle(S.post("/v1/send", .obj(fields)))
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(S.errorCode(try S.json(r)), "not-configured")
        r = await api.handle(S.post("/v1/enqueue", .obj(fields)))
        XCTAssertEqual(r.status, 503)
    }

    // MARK: Page, OpenAPI, metrics

    func testPageAndAssetsAreSelfContained() async throws {
        let api = try S.api()
        let page = await api.handle(S.get("/"))
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")
        for asset in ["/console.js", "/console.css"] {
            let r = await api.handle(S.get(asset))
            XCTAssertEqual(r.status, 200)
            XCTAssertTrue(page.bodyText.contains(asset), "the page links \(asset)")
        }
        // No CDN or other origin: every src/href is a local path.
        for text in [page.bodyText, (await api.handle(S.get("/console.js"))).bodyText, (await api.handle(S.get("/console.css"))).bodyText] {
            XCTAssertFalse(text.contains("http://") || text.contains("https://cdn") || text.contains("//unpkg"), "external resource")
        }
    }

    func testOpenAPIIsStrictJSONAndListsEveryRoute() async throws {
        let r = await (try S.api()).handle(S.get("/openapi.json"))
        XCTAssertEqual(r.status, 200)
        let root = try S.json(r)
        XCTAssertEqual(root["openapi"]?.value.stringValue, "3.1.0")
        for route in ConsoleRoutes.all {
            XCTAssertNotNil(root["paths"]?[route.pattern.description]?[route.method.openAPIKey], "\(route.method) \(route.pattern) is documented")
        }
        guard case .object(let paths)? = root["paths"]?.value else { return XCTFail() }
        for p in paths { XCTAssertTrue(ConsoleRoutes.all.contains { $0.pattern.description == p.key }, "\(p.key) is served") }
    }

    func testMetricsAreValidPrometheusText() async throws {
        let api = try S.api()
        _ = await api.handle(S.post("/v1/check", .obj([("payload", .obj([("aps", .obj([]))]))])))
        _ = await api.handle(S.get("/nope"))
        let r = await api.handle(S.get("/metrics"))
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(r.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") ?? false)
        let text = r.bodyText
        XCTAssertTrue(text.contains("activity_push_checks_total{result=\"rejected\"} 1"), text)
        XCTAssertTrue(text.contains("activity_push_http_requests_total{route=\"other\",status=\"404\"} 1"), text)
        XCTAssertTrue(text.contains("activity_push_send_latency_seconds_bucket{le=\"+Inf\"} 0"))
        for family in ["sent_total counter", "accepted_total counter", "rejected_total counter", "retries_total counter",
                       "queue_depth gauge", "send_latency_seconds histogram"] {
            XCTAssertTrue(text.contains("# TYPE activity_push_\(family)\n"), family)
        }
        // Every sample line: name{labels} value.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            XCTAssertNotNil(line.range(of: #"^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$"#, options: .regularExpression), String(line))
        }
    }
}
