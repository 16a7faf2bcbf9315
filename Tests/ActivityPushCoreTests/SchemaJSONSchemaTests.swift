import Foundation
import XCTest
@testable import ActivityPushCore

/// The exported JSON Schema is usable by Python `jsonschema` (Draft 2020-12) and `fastjsonschema`:
/// every case's valid control validates, shape mistakes fail (S02's unknown attribute keys, C14's missing
/// `id`…). Skipped only when python3 or those packages are absent (`pip install jsonschema fastjsonschema`).
final class SchemaJSONSchemaTests: XCTestCase {
    /// Arguments: SCHEMA=PAYLOAD pairs. Prints {"SCHEMA=PAYLOAD": {"errors": [...], "fast": bool}}.
    private static let checker = #"""
    import json, sys
    import jsonschema, fastjsonschema
    compiled = {}
    out = {}
    for pair in sys.argv[1:]:
        schema_path, payload_path = pair.split("=", 1)
        if schema_path not in compiled:
            schema = json.load(open(schema_path))
            jsonschema.Draft202012Validator.check_schema(schema)
            compiled[schema_path] = (jsonschema.Draft202012Validator(schema), fastjsonschema.compile(schema))
        slow, fast = compiled[schema_path]
        payload = json.load(open(payload_path))
        errors = sorted("/".join(map(str, e.absolute_path)) + ": " + e.message for e in slow.iter_errors(payload))
        try:
            fast(payload); fast_ok = True
        except fastjsonschema.JsonSchemaException:
            fast_ok = False
        out[pair] = {"errors": errors, "fast": fast_ok}
    print(json.dumps(out))
    """#

    private func python() throws -> String {
        guard let python = SchemaTestSupport.which("python3") else { throw XCTSkip("python3 is not on PATH") }
        let probe = try SchemaTestSupport.run(python, ["-c", "import jsonschema, fastjsonschema"])
        if probe.status != 0 { throw XCTSkip("python3 lacks jsonschema/fastjsonschema (pip install jsonschema fastjsonschema)") }
        return python
    }

    /// Validates each payload against the schema exported for it; one python3 run for all pairs.
    private func check(_ jobs: [(schema: ActivitySchema, payload: String)]) throws -> [(errors: [String], fast: Bool)] {
        let python = try python()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("schema-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var pairs: [String] = []
        for (i, job) in jobs.enumerated() {
            let schemaFile = dir.appendingPathComponent("schema\(i).json")
            let document = JSONSchemaExporter.document(for: job.schema, id: "urn:activitypush:test:\(i)")
            try Data(JSONWriter.pretty(document).utf8).write(to: schemaFile)
            pairs.append(schemaFile.path + "=" + job.payload)
        }
        let script = dir.appendingPathComponent("check.py")
        try Data(Self.checker.utf8).write(to: script)
        let r = try SchemaTestSupport.run(python, [script.path] + pairs)
        XCTAssertEqual(r.status, 0, r.err)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: r.out) as? [String: [String: Any]])
        return try pairs.map { pair in
            let entry = try XCTUnwrap(parsed[pair])
            return (entry["errors"] as? [String] ?? [], entry["fast"] as? Bool ?? false)
        }
    }

    private func check(_ schema: ActivitySchema, payloads: [String]) throws -> [String: (errors: [String], fast: Bool)] {
        let results = try check(payloads.map { (schema, $0) })
        return Dictionary(uniqueKeysWithValues: zip(payloads, results).map { ($0, $1) })
    }

    func testEveryCaseAgainstPythonValidators() throws {
        var jobs: [(schema: ActivitySchema, payload: String)] = []
        var meta: [(name: String, accept: Bool, codes: Set<String>)] = []
        for folder in try SchemaTestSupport.caseFolders() {
            let payload = folder.appendingPathComponent("payload.json")
            // C05 is invalid JSON on purpose (a trailing comma Foundation accepts): judged by the strict reader.
            guard JSONReader.read(Array(try Data(contentsOf: payload))).problems.isEmpty else { continue }
            let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("expected.json"))) as? [String: Any])
            let codes = Set(((expected["findings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String })
            jobs.append((try SwiftSourceReader.read(paths: [folder.path]), payload.path))
            meta.append((folder.lastPathComponent, expected["accept"] as? Bool ?? false, codes))
        }
        XCTAssertGreaterThanOrEqual(jobs.count, 20)
        // Shape mistakes the schema can express must fail it.
        let shapeCodes: Set<String> = ["missing-required-key", "unknown-attribute-key", "missing-event", "missing-alert-for-start",
                                       "attributes-type-mismatch", "date-not-numeric", "null-value", "date-not-reference-epoch",
                                       "attributes-outside-aps", "content-state-outside-aps"]
        for (m, result) in zip(meta, try check(jobs)) {
            XCTAssertEqual(result.errors.isEmpty, result.fast, "\(m.name): jsonschema and fastjsonschema disagree: \(result.errors)")
            if m.accept { XCTAssertEqual(result.errors, [], "\(m.name) is a valid control") }
            if !m.codes.isDisjoint(with: shapeCodes) {
                XCTAssertFalse(result.errors.isEmpty, "\(m.name) (\(m.codes.sorted())) should fail the schema")
            }
        }
    }

    /// A dictionary keyed by a non-Int integer is a flat array [key, value, …] in JSON Schema too, as `check`
    /// judges it (QA item 14).
    func testNonIntIntegerKeyedDictionaryIsAFlatArray() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("QAAgreement.swift")])
        let text = JSONWriter.compact(JSONSchemaExporter.document(for: schema))
        XCTAssertTrue(text.contains(#""bytes":{"type":"array""#), String(text.prefix(400)))
        XCTAssertTrue(text.contains("encoded as a flat array"))
    }

    func testS02UnknownAttributeKeysFail() throws {
        let folder = SchemaTestSupport.cases.appendingPathComponent("S02")
        let payload = folder.appendingPathComponent("payload.json").path
        let result = try XCTUnwrap(try check(try SwiftSourceReader.read(paths: [folder.path]), payloads: [payload])[payload])
        XCTAssertTrue(result.errors.contains { $0.hasPrefix("aps/attributes:") && $0.contains("alert_title") }, "\(result.errors)")
        XCTAssertFalse(result.fast)
    }

    func testShapesOfLarge500() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("Large500.swift")])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("schema-l500-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func payload(_ name: String, _ text: String) throws -> String {
            let url = dir.appendingPathComponent(name + ".json")
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let good = try payload("good", """
        {"aps": {"event": "update", "timestamp": 1767225600, "content-state": {
          "homeScore": 1, "awayScore": 0, "stats": {"xg": 1.2}, "events": [],
          "clock": {"period": 1, "minute": 23, "running": true}, "possession": "home"}}}
        """)
        let badEnum = try payload("badEnum", """
        {"aps": {"event": "update", "timestamp": 1767225600, "attributes-type": "MatchAttributes", "content-state": {
          "homeScore": 1, "awayScore": 0, "stats": {}, "events": [],
          "clock": {"period": 7, "minute": 23, "running": true}}}}
        """)
        let overflow = try payload("overflow", """
        {"aps": {"event": "update", "timestamp": 1767225600, "attributes-type": "MatchAttributes", "content-state": {
          "homeScore": 1, "awayScore": 0, "stats": {}, "events": [],
          "clock": {"period": 1, "minute": 300, "running": true}}}}
        """)
        let rideStart = try payload("ride", """
        {"aps": {"event": "start", "timestamp": 1767225600, "attributes-type": "RideAttributes",
          "alert": {"title": "Ride", "body": "Driver found"},
          "attributes": {"id": "6F1C2A9E-0000-4000-8000-000000000002", "product": "xl", "requestedAt": 788918400,
            "pickup": {"name": "Home", "point": {"latitude": 1, "longitude": 2}},
            "dropoff": {"name": "Work", "point": {"latitude": 1, "longitude": 2}}},
          "content-state": {"phase": {"arriving": {"_0": 120, "distanceMeters": 300}}, "route": []}}}
        """)
        let badUUID = try payload("badUUID", String(decoding: try Data(contentsOf: URL(fileURLWithPath: rideStart)), as: UTF8.self)
            .replacingOccurrences(of: "6F1C2A9E-0000", with: "nope"))
        // The exported schema agrees with `check` on aps times: any number of UNIX seconds, not milliseconds.
        let msTimestamp = try payload("ms", String(decoding: try Data(contentsOf: URL(fileURLWithPath: good)), as: UTF8.self)
            .replacingOccurrences(of: "1767225600", with: "1767225600000"))
        let fractional = try payload("fraction", String(decoding: try Data(contentsOf: URL(fileURLWithPath: good)), as: UTF8.self)
            .replacingOccurrences(of: "1767225600", with: "1767225600.5"))
        let results = try check(schema, payloads: [good, badEnum, overflow, rideStart, badUUID, msTimestamp, fractional])
        XCTAssertFalse(results[msTimestamp]?.errors.isEmpty ?? true, "a millisecond timestamp is refused")
        XCTAssertEqual(results[fractional]?.errors, [], "a fractional UNIX timestamp is accepted, as check does")
        XCTAssertEqual(results[good]?.errors, [])
        XCTAssertEqual(results[rideStart]?.errors, [])
        XCTAssertEqual(results[rideStart]?.fast, true)
        XCTAssertFalse(results[badEnum]?.errors.isEmpty ?? true, "period 7 is not a raw value")
        XCTAssertFalse(results[overflow]?.errors.isEmpty ?? true, "UInt8 minute 300 is out of range")
        XCTAssertFalse(results[badUUID]?.errors.isEmpty ?? true, "id must be a UUID")
        XCTAssertEqual(results[badUUID]?.fast, false)
    }
}
