import Foundation
import XCTest
@testable import ActivityPushCore

/// The reader's and validator's speed paths (SWAR string scan, scratch stacks, the known-strings table, byte
/// comparison of plain keys, the canonical-UUID shortcut) give exactly the answers of the plain paths.
final class JSONFastPathTests: XCTestCase {
    /// Every payload of the case corpus and the bench payload, as bytes.
    func corpus() throws -> [[UInt8]] {
        var bodies = try FixturePaths.caseFolders().compactMap { folder in
            try? Array(Data(contentsOf: folder.appendingPathComponent("payload.json")))
        }
        bodies.append(Array(try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("bench/start-1k.json"))))
        XCTAssertGreaterThan(bodies.count, 5)
        return bodies
    }

    func testKnownStringsTableChangesNothingTheReaderReturns() throws {
        let schema = try SwiftSourceReader.read(sources: [(file: "DeliveryAttributes.swift", text: String(
            contentsOf: FixturePaths.fixtures.appendingPathComponent("bench/DeliveryAttributes.swift"), encoding: .utf8))])
        let table = ExpectedStrings.table(for: schema)
        XCTAssertGreaterThan(table.count, 30)
        for body in try corpus() {
            let plain = JSONReader.read(body)
            let tabled = JSONReader.read(body, knownStrings: table)
            XCTAssertEqual(plain.root, tabled.root)
            XCTAssertEqual(plain.problems, tabled.problems)
        }
        // A key spelled like an entry but with an escape, or a prefix of one, is still read as written.
        let doc = JSONReader.read(Array(#"{"cour\u0069erName": "x", "courier": 1, "courierNameX": 2}"#.utf8), knownStrings: table)
        XCTAssertEqual(doc.root?.value.members?.map(\.key), ["courierName", "courier", "courierNameX"])
    }

    func testStringScanFindsQuotesEscapesControlsAndNonASCIIAtEveryOffset() throws {
        for offset in 0..<20 {
            let lead = String(repeating: "a", count: offset)
            let escaped = JSONReader.read("[\"\(lead)\\\"b\"]")
            XCTAssertEqual(escaped.root?.value.elements?.first?.value.stringValue, lead + "\"b", "offset \(offset)")
            let control = JSONReader.read("[\"\(lead)\u{01}b\"]")
            XCTAssertEqual(control.problems.first?.position.column, offset + 3, "offset \(offset)")
            // After a non-ASCII character columns count characters: the value after the string is at its column.
            let wide = JSONReader.read("[\"\(lead)é\", 7]")
            guard let elements = wide.root?.value.elements else { return XCTFail("offset \(offset)") }
            XCTAssertEqual(elements.first?.value.stringValue, lead + "é")
            XCTAssertEqual(elements.last?.position.column, offset + 7, "offset \(offset)")
            let closed = JSONReader.read("\"\(lead)\"")
            XCTAssertEqual(closed.root?.value.stringValue, lead)
        }
    }

    func testDuplicateKeysCompareAsStringsDo() {
        // Canonically equivalent keys are one key for Swift (and the reader said so before): U+212A KELVIN SIGN is
        // "K", an escaped "a" is "a", and "é" precomposed equals "e" + U+0301.
        for text in ["{\"K\": 1, \"\u{212A}\": 2}", #"{"a": 1, "\u0061": 2}"#, "{\"é\": 1, \"e\u{301}\": 2}", #"{"ab": 1, "ab": 2}"#] {
            let doc = JSONReader.read(text)
            XCTAssertEqual(doc.problems.map(\.kind), [.duplicateKey], text)
        }
        for text in [#"{"ab": 1, "ba": 2, "a": 3, "abc": 4}"#, "{\"K\": 1, \"k\": 2}"] {
            XCTAssertEqual(JSONReader.read(text).problems, [], text)
        }
    }

    func testTruncatedNestingStopsCleanly() {
        // Open containers' members stay on the scratch stacks when reading stops; they are freed, not returned.
        for text in [#"{"a": [{"b": [1, 2, {"c": "#, #"[[[{"x": 1}, {"y": [true"#, #"{"a": {"b": {"c": {}}, "d": [1,]}}"#] {
            let doc = JSONReader.read(text)
            XCTAssertNil(doc.root, text)
            XCTAssertEqual(doc.problems.first?.kind, .syntax, text)
        }
    }

    func testCanonicalUUIDShortcutAgreesWithFoundation() {
        let samples = ["6F1C2A9E-0000-4000-8000-000000000002", "6f1c2a9e-0000-4000-8000-000000000002",
                       "6F1C2A9E-0000-4000-8000-00000000000", "6F1C2A9E00000-4000-8000-000000000002",
                       "6F1C2A9E-0000-4000-8000-00000000000G", " 6F1C2A9E-0000-4000-8000-00000000002",
                       "6F1C2A9E-0000-4000-8000-0000000000022", "", "not a uuid", "+F1C2A9E-0000-4000-8000-000000000002"]
        for sample in samples {
            XCTAssertEqual(UUIDText.isValid(sample), UUID(uuidString: sample) != nil, sample)
            if UUIDText.isCanonical(sample) { XCTAssertNotNil(UUID(uuidString: sample), sample) }
        }
        XCTAssertTrue(UUIDText.isCanonical("6F1C2A9E-0000-4000-8000-000000000002"))
    }

    func testValidatorFindingsAreTheSameWithAndWithoutKnownStrings() throws {
        // The validator reads with its table; the findings must equal those of a validator whose table is empty.
        for folder in try FixturePaths.caseFolders() {
            guard let body = try? Array(Data(contentsOf: folder.appendingPathComponent("payload.json"))),
                  let text = try? String(contentsOf: folder.appendingPathComponent("Attributes.swift"), encoding: .utf8),
                  let schema = try? SwiftSourceReader.read(sources: [(file: "Attributes.swift", text: text)]) else { continue }
            let validator = Validator(schema: schema)
            var bare = validator
            bare.forgetExpectedStrings()
            XCTAssertEqual(validator.check(body: body, nowUnixSeconds: 1_767_225_600),
                           bare.check(body: body, nowUnixSeconds: 1_767_225_600), folder.lastPathComponent)
        }
    }
}

extension JSONValue {
    var elements: [JSONNode]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
