@testable import ActivityPushConsole
import ActivityPushCore
import Foundation
import Synchronization
import XCTest

private typealias S = ConsoleTestSupport

/// The route table, the router's 404/405 decisions, the generated OpenAPI paths and the middleware order —
/// as plain values where they are plain values, through ``ConsoleAPI/handle(_:)`` where the order shows.
final class ConsoleRoutingTests: XCTestCase {
    /// A table with path parameters (the shapes the activity and channel routes use) to test the router alone.
    private static func route(_ method: HTTPMethod, _ pattern: RoutePattern, scopes: [AccessScope] = [.admin]) -> ConsoleRoute {
        ConsoleRoute(method, pattern, scopes: scopes, operation: #"""
            { "summary": "test", "operationId": "\#(method.openAPIKey)\#(pattern.description)", "responses": { "200": { "description": "ok" } } }
            """#) { _, context in
            .text(200, "\(method) \(pattern) " + context.parameters.parameterNames(of: pattern).map { "\($0)=\(context.parameters[$0] ?? "")" }.joined(separator: " "))
        }
    }

    private static let sample = ConsoleRouter([
        route(.get, "/v1/activities"), route(.post, "/v1/activities"),
        route(.get, "/v1/activities/{id}"), route(.post, "/v1/activities/{id}/update"),
        route(.get, "/v1/activities/stats"), route(.delete, "/v1/channels/{id}"),
    ])

    // MARK: Router

    func testPathParametersBindOneWholeSegment() throws {
        guard case .matched(let route, let parameters) = Self.sample.resolve(method: .post, path: "/v1/activities/order-42/update") else {
            return XCTFail("no match")
        }
        XCTAssertEqual(route.pattern.description, "/v1/activities/{id}/update")
        XCTAssertEqual(parameters["id"], "order-42")
        XCTAssertEqual(try parameters.require("id"), "order-42")
        XCTAssertThrowsError(try parameters.require("channel")) { error in
            XCTAssertEqual((error as? APIError)?.status, 500)
        }
        guard case .matched(_, let channel) = Self.sample.resolve(method: .delete, path: "/v1/channels/dHN0LTI=") else {
            return XCTFail("no match")
        }
        XCTAssertEqual(channel["id"], "dHN0LTI=")
        // A parameter never matches an empty segment or more than one segment.
        for path in ["/v1/activities//update", "/v1/activities/a/b/update", "/v1/channels/"] {
            if case .matched = Self.sample.resolve(method: .post, path: path) { XCTFail(path) }
        }
    }

    func testALiteralSegmentWinsOverAParameter() {
        guard case .matched(let route, _) = Self.sample.resolve(method: .get, path: "/v1/activities/stats") else {
            return XCTFail("no match")
        }
        XCTAssertEqual(route.pattern.description, "/v1/activities/stats")
        guard case .matched(let other, _) = Self.sample.resolve(method: .get, path: "/v1/activities/statsx") else {
            return XCTFail("no match")
        }
        XCTAssertEqual(other.pattern.description, "/v1/activities/{id}")
    }

    func testUnknownPathIsNotFoundAndOtherMethodsAreListedInAllow() {
        guard case .notFound = Self.sample.resolve(method: .get, path: "/v1/nothing") else { return XCTFail() }
        guard case .methodNotAllowed(let pattern, let allowed) = Self.sample.resolve(method: .delete, path: "/v1/activities") else {
            return XCTFail()
        }
        XCTAssertEqual(pattern.description, "/v1/activities")
        XCTAssertEqual(allowed, [.get, .head, .post], "HEAD is served wherever GET is")
        guard case .matched(let head, _) = Self.sample.resolve(method: .head, path: "/v1/activities/7") else { return XCTFail() }
        XCTAssertEqual(head.method, .get)
    }

    func testAPathWithAControlByteIsRefusedBeforeRouting() {
        guard case .controlByte(let offset) = Self.sample.resolve(method: .post, path: "/v1/activities/g1\u{7F}x/update") else {
            return XCTFail("a DEL (a decoded %00) is refused")
        }
        XCTAssertEqual(offset, 17)
        guard case .controlByte = Self.sample.resolve(method: .get, path: "/v1/activities\t") else { return XCTFail() }
    }

    func testPathsAreNormalizedBeforeRouting() {
        XCTAssertEqual(ConsoleRouter.normalized("/v1/types/"), "/v1/types")
        XCTAssertEqual(ConsoleRouter.normalized("/"), "/")
        XCTAssertEqual(ConsoleRouter.normalized("/index.html"), "/")
    }

    func testTheConsoleTableIsSound() {
        XCTAssertEqual(ConsoleRoutes.router.problems, [])
        let duplicated = ConsoleRouter([Self.route(.get, "/v1/activities/{id}"), Self.route(.get, "/v1/activities/{activityID}"),
                                        Self.route(.get, "v1/x"), Self.route(.get, "/v1/x", scopes: [])])
        XCTAssertEqual(duplicated.problems.count, 3, "\(duplicated.problems)")
    }

    // MARK: Table ↔ OpenAPI

    func testOpenAPIPathsAreExactlyTheTable() throws {
        let rendering = OpenAPIDocument.render(ConsoleRoutes.all)
        XCTAssertEqual(rendering.problems, [])
        XCTAssertEqual(rendering.text, OpenAPIDocument.text)
        let root = try XCTUnwrap(JSONReader.read(rendering.text).root)
        guard case .object(let paths)? = root["paths"]?.value else { return XCTFail("no paths") }
        var documented: [String] = []
        for path in paths {
            for operation in path.value.value.members ?? [] where operation.key != "parameters" {
                documented.append("\(operation.key.uppercased()) \(path.key)")
            }
        }
        XCTAssertEqual(documented.sorted(), ConsoleRoutes.all.map { "\($0.method) \($0.pattern)" }.sorted())
        var operationIDs: Set<String> = []
        for route in ConsoleRoutes.all {
            let operation = try XCTUnwrap(root["paths"]?[route.pattern.description]?[route.method.openAPIKey])
            XCTAssertNotNil(operation["summary"]?.value.stringValue, "\(route.method) \(route.pattern)")
            let identifier = try XCTUnwrap(operation["operationId"]?.value.stringValue)
            XCTAssertTrue(operationIDs.insert(identifier).inserted, "operationId \(identifier) is unique")
            XCTAssertNotNil(operation["responses"]?["401"], "the access check's answer is documented")
            XCTAssertEqual(operation["security"].map { JSONWriter.compact($0.value) },
                           JSONWriter.compact(.arr([.obj([])] + route.scopes.map { .obj([($0.name, .arr([]))]) })))
        }
        // Every $ref to a component schema names one the document has (shared, or registered with a route).
        let refs = rendering.text.components(separatedBy: "\"#/components/schemas/").dropFirst().map { $0.prefix { $0 != "\"" } }
        for name in Set(refs) { XCTAssertNotNil(root["components"]?["schemas"]?[String(name)], "schema \(name)") }
        for scope in AccessScope.all { XCTAssertNotNil(root["components"]?["securitySchemes"]?[scope.name]) }
    }

    func testPathParametersAreDeclaredInTheDocument() throws {
        let rendering = OpenAPIDocument.render(Self.sample.routes)
        XCTAssertEqual(rendering.problems, [])
        let root = try XCTUnwrap(JSONReader.read(rendering.text).root)
        let item = try XCTUnwrap(root["paths"]?["/v1/activities/{id}/update"])
        XCTAssertEqual(item["parameters"].map { JSONWriter.compact($0.value) },
                       #"[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}]"#)
        XCTAssertNil(root["paths"]?["/v1/activities"]?["parameters"])
    }

    func testAnOperationThatIsNotJSONIsReported() {
        let broken = ConsoleRoute(.get, "/broken", operation: #"{ "summary": "x", }"#) { _, _ in .text(200, "") }
        XCTAssertEqual(OpenAPIDocument.render([broken]).problems.count, 1)
    }

    // MARK: Middleware

    private struct Recording: ConsoleMiddleware {
        let name: String
        let log: Log

        final class Log: Sendable {
            let entries = Mutex<[String]>([])
            func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        }

        func handle(_ context: ConsoleRequestContext,
                    next: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse {
            log.add("\(name) in")
            var response = await next(context)
            response.headers.append(("X-Seen", name))
            log.add("\(name) out")
            return response
        }
    }

    func testMiddlewareRunOutermostFirst() async {
        let log = Recording.Log()
        let chain = MiddlewareChain([Recording(name: "outer", log: log), Recording(name: "inner", log: log)])
        let context = ConsoleRequestContext(request: S.get("/"), path: "/", resolution: .notFound)
        let response = await chain.respond(to: context) { _ in
            log.add("endpoint")
            return .text(200, "")
        }
        XCTAssertEqual(log.entries.withLock { $0 }, ["outer in", "inner in", "endpoint", "inner out", "outer out"])
        XCTAssertEqual(response.headers.filter { $0.name == "X-Seen" }.map(\.value), ["inner", "outer"])
    }

    func testTheConsoleOrderHeadersThenMetricsThenAccess() async throws {
        let api = try S.api(token: "s3cret-token")
        XCTAssertEqual(api.middleware.middleware.map { String(describing: type(of: $0)) },
                       ["SecurityHeadersMiddleware", "RequestMetricsMiddleware", "AccessMiddleware"])
        // A refusal of the access check still gets the security headers and is counted under its route.
        let refused = await api.handle(S.get("/v1/types"))
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.header("X-Content-Type-Options"), "nosniff")
        XCTAssertEqual(refused.header("Cache-Control"), "no-store")
        let crossSite = await api.handle(S.get("/v1/types", headers: ["Origin": "https://evil.example", "Host": "127.0.0.1:8787",
                                                                          "Authorization": "Bearer s3cret-token"]))
        XCTAssertEqual(crossSite.status, 403)
        XCTAssertEqual(crossSite.header("X-Content-Type-Options"), "nosniff")
        // The 405 of a known path is counted under its pattern; a 404 under "other" (behind the token, too).
        let wrongMethod = await api.handle(HTTPRequest(method: "DELETE", path: "/v1/types", headers: ["Authorization": "Bearer s3cret-token"]))
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.header("Allow"), "GET, HEAD")
        let unknown = await api.handle(S.get("/v1/nothing"))
        XCTAssertEqual(unknown.status, 401, "an unauthenticated caller cannot tell served paths from others")
        let text = api.metrics.render(.init())
        for sample in ["route=\"/v1/types\",status=\"401\"} 1", "route=\"/v1/types\",status=\"403\"} 1",
                       "route=\"/v1/types\",status=\"405\"} 1", "route=\"other\",status=\"401\"} 1"] {
            XCTAssertTrue(text.contains("activity_push_http_requests_total{" + sample), "\(sample)\n\(text)")
        }
    }

    func testHeadIsAnsweredByTheGetRoute() async throws {
        let response = await (try S.api()).handle(HTTPRequest(method: "HEAD", path: "/v1/types"))
        XCTAssertEqual(response.status, 200)
    }
}

private extension RouteParameters {
    func parameterNames(of pattern: RoutePattern) -> [String] { pattern.parameterNames }
}
