import Foundation
import XCTest
@testable import ActivityPushCore

/// `[E: V]` where `E` adopts `CodingKeyRepresentable` (Fixtures/swift/EnumKeyedDictionaries.swift): a JSON object
/// keyed by raw values. Each expectation was checked with Swift 6.3.1's `JSONDecoder` ("Could not convert key to
/// type …" for any other key; an array for such a dictionary is a type mismatch); the decoder-oracle test
/// covers the same fixture on every build with `swiftc`.
final class EnumKeyedDictionaryTests: XCTestCase {
    func schema() throws -> ActivitySchema {
        try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("EnumKeyedDictionaries.swift")])
    }

    func errors(_ contentState: String) throws -> [String] {
        let body = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": "# + contentState + "}}"
        return Validator(schema: try schema()).check(body: Array(body.utf8)).errors.map { "\($0.code)@\($0.path)" }
    }

    func testRawValueKeysDecodeAndOthersDoNot() throws {
        XCTAssertEqual(try errors(#"{"minutesByStage": {"prep": 1, "clean-up": 2}, "labels": {"1": "a", "2": "b"}}"#), [])
        XCTAssertEqual(try errors(#"{"minutesByStage": {}, "labels": {}, "notes": {"service": ["x"]}}"#), [])
        XCTAssertEqual(try errors(#"{"minutesByStage": {"prep": 1, "zz": 2}, "labels": {}}"#),
                       ["enum-value-invalid@aps.content-state.minutesByStage.zz"])
        // A case name is not a raw value: "cleanUp" fails where "clean-up" decodes.
        XCTAssertEqual(try errors(#"{"minutesByStage": {"cleanUp": 1}, "labels": {}}"#),
                       ["enum-value-invalid@aps.content-state.minutesByStage.cleanUp"])
        XCTAssertEqual(try errors(#"{"minutesByStage": {}, "labels": {"3": "a", "low": "b"}}"#),
                       ["enum-value-invalid@aps.content-state.labels.3", "enum-value-invalid@aps.content-state.labels.low"])
        XCTAssertEqual(try errors(#"{"minutesByStage": ["prep", 1], "labels": {}}"#), ["type-mismatch@aps.content-state.minutesByStage"])
        XCTAssertEqual(try errors(#"{"minutesByStage": {"prep": "1"}, "labels": {}}"#), ["type-mismatch@aps.content-state.minutesByStage.prep"])
    }

    func testJSONSchemaNamesTheRawValuesAsPropertyNames() throws {
        let document = JSONSchemaExporter.document(for: try schema())
        let text = JSONWriter.compact(document)
        XCTAssertTrue(text.contains(#""propertyNames":{"enum":["prep","service","clean-up"]}"#), text)
        XCTAssertTrue(text.contains(#""propertyNames":{"enum":["1","2"]}"#), text)
    }
}
