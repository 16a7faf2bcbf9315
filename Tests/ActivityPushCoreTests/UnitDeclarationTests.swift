import XCTest
@testable import ActivityPushCore

/// Units the reader cannot see (issue 13, item 4): single-value custom decoders are read, and
/// `activity-push.units` next to the sources declares the rest, so `check` judges them instead of skipping.
final class UnitDeclarationTests: XCTestCase {
    private let units = SchemaTestSupport.repository.appendingPathComponent("Fixtures/units").path

    private func codes(_ schema: ActivitySchema, _ contentState: String, attributes: String? = nil) -> [String] {
        let body: String
        if let attributes {
            body = #"{"aps": {"timestamp": 1767225600, "event": "start", "attributes-type": "\#(schema.types[0].name)", "attributes": \#(attributes), "content-state": \#(contentState), "alert": {"title": "t", "body": "b"}}}"#
        } else {
            body = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": "# + contentState + "}}"
        }
        return Validator(schema: schema).check(body: Array(body.utf8), nowUnixSeconds: 1_767_225_600).findings.map(\.code.rawValue)
    }

    func testSingleValueCustomDecodersAreRead() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("CustomDecoders.swift")])
        let t = try XCTUnwrap(schema.type(named: "CourierAttributes"))
        let cs = try XCTUnwrap(t.contentState.object)
        XCTAssertEqual(cs.properties.map { "\($0.key): \($0.shape.brief)" },
                       ["departedAt: Date(unix-seconds)", "eta: Date(unix-milliseconds Int64)?", "updated: Date(iso8601)", "gate: String"])
        XCTAssertEqual(t.attributes.object?.properties.map(\.shape.brief), ["String"])
        let valid = #"{"departedAt": 1767225600, "eta": 1767229200000, "updated": "2026-01-01T00:00:00Z", "gate": "B4"}"#
        XCTAssertEqual(codes(schema, valid), [])
        XCTAssertEqual(codes(schema, #"{"departedAt": 788918400, "eta": 1767229200, "updated": 1767225600, "gate": 4}"#),
                       ["custom-date-implausible", "custom-date-implausible", "type-mismatch", "type-mismatch"])
        // Changed deliberately (QA item 8): implausible but decodable dates are warnings under their own code.
        // An Int64-backed date keeps the integer rules of decode(Int64.self) (QA item 6).
        XCTAssertEqual(codes(schema, #"{"departedAt": 1767225600, "eta": 1767229200000.5, "updated": "2026-01-01T00:00:00Z", "gate": "B4"}"#), ["type-mismatch"])
        XCTAssertEqual(codes(schema, #"{"departedAt": 1767225600, "eta": 9223372036854775808, "updated": "2026-01-01T00:00:00Z", "gate": "B4"}"#), ["integer-out-of-range"])
        // ISO8601DateFormatter() reads exactly yyyy-MM-ddTHH:mm:ssZ / ±hh:mm (QA item 7).
        for text in ["2026-01-01T00:00:00.123Z", "2026-01-01", "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "2026-01-01t00:00:00z"] {
            XCTAssertEqual(codes(schema, #"{"departedAt": 1767225600, "updated": ""# + text + #"", "gate": "B4"}"#), ["type-mismatch"], text)
        }
        XCTAssertEqual(codes(schema, #"{"departedAt": 1767225600, "updated": "2026-01-01T01:00:00+01:00", "gate": "B4"}"#), [])
        XCTAssertEqual(codes(schema, #"{"departedAt": "2026-01-01T00:00:00Z", "updated": "yesterday", "gate": "B4"}"#),
                       ["date-not-numeric", "type-mismatch"])
    }

    func testDeclaredUnitsAreJudged() throws {
        let schema = try SwiftSourceReader.read(paths: [units])
        let t = try XCTUnwrap(schema.type(named: "HomeAttributes"))
        XCTAssertEqual(t.contentState.object?.properties.map { "\($0.key): \($0.shape.brief)" },
                       ["state: String", "last_changed: Date(unix-seconds)"])
        XCTAssertEqual(t.attributes.object?.properties.map { "\($0.key): \($0.shape.brief)" },
                       ["entityID: String", "expiresAt: Date(unix-seconds)"])
        XCTAssertEqual(codes(schema, #"{"state": "on", "last_changed": 1767225600}"#), [])
        // Changed deliberately (QA item 8): seconds since 2001 for a UNIX-seconds date decode; a warning, not an error.
        XCTAssertEqual(codes(schema, #"{"state": "on", "last_changed": 788918400}"#), ["custom-date-implausible"])
        XCTAssertEqual(codes(schema, #"{"state": "on", "last_changed": 1767225600}"#, attributes: #"{"entityID": "light.kitchen", "expiresAt": "soon"}"#),
                       ["date-not-numeric"])
        // Without the declarations the same types are not judged (info only).
        let swift = try String(contentsOfFile: units + "/HomeAttributes.swift", encoding: .utf8)
        let bare = try SwiftSourceReader.read(sources: [("HomeAttributes.swift", swift)])
        XCTAssertEqual(Set(codes(bare, #"{"state": "on", "last_changed": 788918400}"#)), ["schema-unresolved"])
        XCTAssertTrue(bare.types[0].contentState.unresolvedReason?.contains(UnitDeclarations.fileName) ?? false)
    }

    func testBadDeclarationsAreNamedWithFileAndLine() {
        var declarations = UnitDeclarations()
        XCTAssertThrowsError(try declarations.add(text: "# ok\nEpochSecondsDate seconds\n", file: "activity-push.units")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("activity-push.units:2") && text.contains("unix-seconds"), text)
        }
        XCTAssertThrowsError(try declarations.add(text: "A unix-seconds extra\n", file: "u")) { error in
            XCTAssertEqual((error as? SchemaReadError)?.kind, .badUnits)
            XCTAssertEqual((error as? SchemaReadError)?.file, "u")
            XCTAssertEqual((error as? SchemaReadError)?.line, 1)
        }
        XCTAssertThrowsError(try declarations.add(text: "A: string\nA bool\n", file: "u")) { error in
            XCTAssertEqual((error as? SchemaReadError)?.line, 2)
            XCTAssertEqual((error as? SchemaReadError)?.fix, "keep one declaration")
            XCTAssertTrue((error as? SchemaReadError)?.reason.hasSuffix("already declared at u:1") ?? false, "\(error)")
        }
        var unknown = UnitDeclarations()
        XCTAssertNoThrow(try unknown.add(text: "Nowhere.at unix-seconds\n", file: "u"))
        XCTAssertThrowsError(try SwiftSourceReader.read(sources: [("A.swift", "struct A: ActivityAttributes { struct ContentState: Codable, Hashable {} }")], units: unknown)) {
            XCTAssertTrue("\($0)".contains("u:1: Nowhere.at names no type"), "\($0)")
        }
    }

    /// CRLF line endings and `NAME:SHAPE` without a space read as the README promises (QA item 12).
    func testCRLFAndColonWithoutSpace() throws {
        var declarations = UnitDeclarations()
        try declarations.add(text: "# units\r\nEpochSecondsDate unix-seconds\r\nMoney:string\r\nA.b : integer\r\n", file: "u")
        XCTAssertEqual(declarations["EpochSecondsDate"]?.shape, .date(.unixSeconds))
        XCTAssertEqual(declarations["Money"]?.shape, .string)
        XCTAssertEqual(declarations["Money"]?.location.line, 3)
        XCTAssertEqual(declarations["A.b"]?.shape, .integer)
    }

    /// `schema --format json` then `check --schema` keeps what is new here: custom dates, types that store
    /// nothing, renamed keyed-enum cases.
    func testSchemaDescriptionRoundTripKeepsTheNewShapes() throws {
        let swift = """
            import ActivityKit
            struct Marker: Codable, Hashable {}
            enum Mode: Codable, Hashable { case idle, busy(level: Int); enum CodingKeys: String, CodingKey { case idle = "Idle", busy = "Busy" } }
            struct Stamp: Codable, Hashable {
                var date: Date
                init(from decoder: Decoder) throws { date = Date(timeIntervalSince1970: try decoder.singleValueContainer().decode(Double.self)) }
            }
            struct R: ActivityAttributes { struct ContentState: Codable, Hashable { var marker: Marker; var mode: Mode; var at: Stamp } }
            """
        let schema = try SwiftSourceReader.read(sources: [("R.swift", swift)])
        let reread = try ActivitySchemaDescription.read(JSONReader.read(Array(JSONWriter.compact(ActivitySchemaDescription.json(schema)).utf8)).root!.value)
        for cs in [#"{"marker": "x", "mode": {"Busy": {"level": 1}}, "at": 1767225600}"#,
                   #"{"marker": 1, "mode": {"busy": {"level": 1}}, "at": 788918400}"#,
                   #"{"marker": [], "mode": {"Idle": {}, "note": 1}, "at": "2026-01-01"}"#] {
            XCTAssertEqual(codes(schema, cs), codes(reread, cs), cs)
        }
        XCTAssertEqual(codes(schema, #"{"marker": "x", "mode": {"Busy": {"level": 1}}, "at": 1767225600}"#), [])
    }
}
