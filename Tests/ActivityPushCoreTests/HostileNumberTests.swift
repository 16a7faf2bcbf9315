import XCTest
@testable import ActivityPushCore

/// Numbers at and beyond the edges of Swift's types (from the QA report): never a trap, always the decoder's answer.
final class HostileNumberTests: XCTestCase {
    static let schema: ActivitySchema = {
        let cs = StructShape(name: "ContentState", properties: [
            StoredProperty(name: "big", key: "big", shape: .optional(.integer(IntegerKind.all["UInt64"]!)), typeName: "UInt64?"),
            StoredProperty(name: "count", key: "count", shape: .optional(.integer(.int)), typeName: "Int?"),
            StoredProperty(name: "ratio", key: "ratio", shape: .optional(.floating(name: "Float")), typeName: "Float?"),
            StoredProperty(name: "value", key: "value", shape: .optional(.floating(name: "Double")), typeName: "Double?"),
            StoredProperty(name: "at", key: "at", shape: .optional(.date), typeName: "Date?"),
            StoredProperty(name: "byLevel", key: "byLevel", shape: .optional(.dictionary(key: .integer(IntegerKind.all["UInt8"]!), value: .string)), typeName: "[UInt8: String]?"),
            StoredProperty(name: "byIndex", key: "byIndex", shape: .optional(.dictionary(key: .integer(.int), value: .string)), typeName: "[Int: String]?"),
        ])
        return ActivitySchema(types: [ActivityAttributesType(name: "T", location: .init(file: "T.swift", line: 1),
                                                             attributes: .object(StructShape(name: "T", properties: [])),
                                                             contentState: .object(cs))], files: [])
    }()

    func check(_ cs: String, timestamp: String = "1767225600", now: Double? = 1_767_225_600) -> ValidationReport {
        let body = "{\"aps\": {\"timestamp\": \(timestamp), \"event\": \"update\", \"content-state\": {\(cs)}}}"
        return Validator(schema: Self.schema).check(body: Array(body.utf8), nowUnixSeconds: now)
    }

    func codes(_ r: ValidationReport) -> [String] { r.errors.map { "\($0.code)@\($0.path)" } }

    func testNonFiniteAndHugeTimesAreFindingsNotTraps() {
        for ts in ["1e999", "1e30", "-1e999", "\"nan\"", "\"1e999\"", "-5", "1.7e308"] {
            let r = check("", timestamp: ts)
            XCTAssertFalse(r.accept, ts)
            XCTAssertTrue(r.errors.contains { $0.path == "aps.timestamp" }, "\(ts): \(codes(r))")
        }
        XCTAssertEqual(check("", timestamp: "1767225600000").errors.first?.code, .timestampInMilliseconds)
        XCTAssertTrue(check("", now: 1e10).findings.allSatisfy { $0.severity != .error })
    }

    func testIntegersAtTheEdgesAgreeWithJSONDecoder() {
        // JSONDecoder accepts these (checked with the real decoder): integral values written with an exponent.
        XCTAssertTrue(check("\"big\": 1e19").accept, codes(check("\"big\": 1e19")).description)
        XCTAssertTrue(check("\"big\": 18446744073709551615").accept)
        XCTAssertTrue(check("\"count\": 9.2e18").accept, codes(check("\"count\": 9.2e18")).description)
        XCTAssertTrue(check("\"count\": 3.0").accept)
        // And refuses these.
        XCTAssertEqual(codes(check("\"big\": 18446744073709551616")), ["integer-out-of-range@aps.content-state.big"])
        XCTAssertEqual(codes(check("\"big\": -1")), ["integer-out-of-range@aps.content-state.big"])
        XCTAssertEqual(codes(check("\"count\": 1e999999")), ["integer-out-of-range@aps.content-state.count"])
        XCTAssertEqual(codes(check("\"count\": 9223372036854775808")), ["integer-out-of-range@aps.content-state.count"])
        XCTAssertEqual(codes(check("\"count\": 1.5e300")), ["integer-out-of-range@aps.content-state.count"])
        XCTAssertEqual(codes(check("\"count\": 2.5")), ["type-mismatch@aps.content-state.count"])
    }

    func testFloatingRanges() {
        XCTAssertTrue(check("\"ratio\": 3.4e38, \"value\": 1e308").accept)
        XCTAssertEqual(codes(check("\"ratio\": 1e39")), ["type-mismatch@aps.content-state.ratio"])
        XCTAssertEqual(codes(check("\"ratio\": 1e-50")), ["type-mismatch@aps.content-state.ratio"])
        XCTAssertEqual(codes(check("\"value\": 1e999")), ["type-mismatch@aps.content-state.value"])
    }

    func testDatesBeyondAnyUsefulTime() {
        XCTAssertEqual(codes(check("\"at\": 1e300")), ["type-mismatch@aps.content-state.at"])
        XCTAssertEqual(codes(check("\"at\": 1e999")), ["type-mismatch@aps.content-state.at"])
        XCTAssertEqual(codes(check("\"at\": 1767225600000")), ["date-not-reference-epoch@aps.content-state.at"])
        XCTAssertTrue(check("\"at\": 788918400").accept)
    }

    func testOnlyStringAndIntKeyedDictionariesAreObjects() {
        XCTAssertTrue(check("\"byIndex\": {\"1\": \"a\"}").accept)
        XCTAssertEqual(codes(check("\"byIndex\": {\"x\": \"a\"}")), ["type-mismatch@aps.content-state.byIndex.x"])
        XCTAssertEqual(codes(check("\"byLevel\": {\"1\": \"a\"}")), ["type-mismatch@aps.content-state.byLevel"])
    }

    func testOversizedBodiesAreJudgedWithoutParsing() {
        let huge = "{\"aps\": {\"x\": \"" + String(repeating: "y", count: 2 << 20) + "\"}}"
        let r = Validator().check(body: Array(huge.utf8))
        XCTAssertEqual(r.findings.map(\.code), [.payloadTooLarge])
    }

    func testUTF16IsNamedAsSuch() {
        let r = Validator().check(body: [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00])
        XCTAssertTrue(r.findings.first?.message.contains("UTF-16") ?? false)
    }

    /// Changed deliberately (issue 13): present title/body keys with empty text keep the start (the device
    /// drops it only when a key is missing) — a silent start, said as a warning.
    func testEmptyAlertTextIsASilentStart() {
        let body = #"{"aps": {"timestamp": 1767225600, "event": "start", "content-state": {}, "attributes-type": "T", "attributes": {}, "alert": {"title": "", "body": " "}}}"#
        let r = Validator(schema: Self.schema).check(body: Array(body.utf8), nowUnixSeconds: 1_767_225_600)
        XCTAssertEqual(r.errors.map(\.code), [])
        XCTAssertEqual(r.findings.map(\.code), [.silentStart])
    }
}
