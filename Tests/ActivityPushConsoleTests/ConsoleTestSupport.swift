@testable import ActivityPushConsole
import ActivityPushCore
import Foundation
import XCTest

/// Shared inputs for the console tests: the test app's schema (read from the same Swift file the browser test
/// serves), request helpers, and JSON access.
enum ConsoleTestSupport {
    static let attributesFile: String = {
        // Tests/ActivityPushConsoleTests/<this file> → Tests/browser/fixtures/PizzaDeliveryAttributes.swift
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return here.appendingPathComponent("browser/fixtures/PizzaDeliveryAttributes.swift").path
    }()

    static func schema() throws -> ActivitySchema { try SwiftSourceReader.read(paths: [attributesFile]) }

    static func api(token: String? = nil, strict: Bool = false) throws -> ConsoleAPI {
        ConsoleAPI(configuration: ConsoleConfiguration(schema: try schema(), bundleID: "com.example.pizza",
                                                       environment: .sandbox, apiToken: token, strict: strict))
    }

    static let apple2001: Double = 978_307_200

    /// Attributes of a valid start (Dates are seconds since 2001-01-01).
    static var startAttributes: JSONValue {
        .obj([("orderNumber", .string("A-1042")), ("restaurantName", .string("Luigi's")), ("itemCount", .int(3)),
              ("placedAt", .int(Int(Date().timeIntervalSince1970 - apple2001)))])
    }

    static var contentState: JSONValue {
        .obj([("status", .string("baking")), ("vehicle", .string("bike")), ("etaMinutes", .int(25)),
              ("expectedAt", .int(Int(Date().timeIntervalSince1970 - apple2001 + 1500)))])
    }

    /// The typed fields of a valid start.
    static var startFields: [(String, JSONValue)] {
        [("event", .string("start")), ("type", .string("PizzaDeliveryAttributes")), ("attributes", startAttributes),
         ("contentState", contentState), ("alert", .obj([("title", .string("Order placed")), ("body", .string("Luigi's is on it"))]))]
    }

    static func post(_ path: String, _ body: JSONValue) -> HTTPRequest {
        HTTPRequest(method: "POST", path: path, headers: ["Content-Type": "application/json"],
                    body: Array(JSONWriter.compact(body).utf8))
    }

    static func post(_ path: String, text: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: path, body: Array(text.utf8))
    }

    static func get(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) -> HTTPRequest {
        HTTPRequest(method: "GET", path: path, query: query, headers: headers)
    }

    /// The response body as a JSON tree (fails the test when it is not strict JSON).
    static func json(_ r: HTTPResponse, file: StaticString = #filePath, line: UInt = #line) throws -> JSONNode {
        let doc = JSONReader.read(r.body)
        XCTAssertEqual(doc.problems.count, 0, "not strict JSON: \(r.bodyText)", file: file, line: line)
        return try XCTUnwrap(doc.root, file: file, line: line)
    }

    static func findings(_ node: JSONNode) -> [JSONNode] {
        if case .array(let items)? = node["findings"]?.value { return items }
        return []
    }

    static func codes(_ node: JSONNode) -> [String] {
        findings(node).compactMap { $0["code"]?.value.stringValue }
    }

    static func errorCode(_ node: JSONNode) -> String? { node["error"]?["code"]?.value.stringValue }
}

extension Array where Element == (String, JSONValue) {
    func replacing(_ key: String, with value: JSONValue?) -> [(String, JSONValue)] {
        var out = filter { $0.0 != key }
        if let value { out.append((key, value)) }
        return out
    }
}
