import XCTest
@testable import ActivityPushCore

final class JSONReaderTests: XCTestCase {
    func testPositionsAndLexemes() throws {
        let text = "{\n  \"a\": 1.50,\n  \"b\": [true, 1767225600000, -0, 2e3],\n  \"é\": \"ü\", \"c\": null\n}"
        let doc = JSONReader.read(text)
        XCTAssertTrue(doc.problems.isEmpty)
        let root = try XCTUnwrap(doc.root)
        XCTAssertEqual(root.position, SourcePosition(line: 1, column: 1, offset: 0))
        let a = try XCTUnwrap(root["a"])
        XCTAssertEqual(a.position.line, 2)
        XCTAssertEqual(a.position.column, 8)
        XCTAssertEqual(a.value.numberValue?.lexeme, "1.50")
        XCTAssertFalse(a.value.numberValue!.isIntegerLexeme)
        guard case .array(let b) = root["b"]!.value else { return XCTFail("b is not an array") }
        XCTAssertEqual(b[1].value.numberValue?.lexeme, "1767225600000")
        XCTAssertEqual(b[1].value.numberValue?.int64Value, 1_767_225_600_000)
        XCTAssertEqual(b[3].value.numberValue?.integralValue, 2000)
        XCTAssertTrue(b[3].value.numberValue!.hasExponent)
        XCTAssertEqual(b[1].position.column, 15)
        // Columns count characters, not bytes: "é" is two bytes.
        let c = try XCTUnwrap(root.member("c"))
        XCTAssertEqual(c.keyPosition.line, 4)
        XCTAssertEqual(c.keyPosition.column, 13)
        XCTAssertEqual(root["é"]?.value.stringValue, "ü")
    }

    func testEscapesAndSurrogates() throws {
        let doc = JSONReader.read(#"{"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00"}"#)
        XCTAssertTrue(doc.problems.isEmpty, "\(doc.problems)")
        XCTAssertEqual(doc.root?["s"]?.value.stringValue, "a\"b\\c/d\né😀")
    }

    func testRFC8259ViolationsAreSyntaxProblemsWithPositions() {
        let bad: [(String, Int, Int, String)] = [
            ("{\"a\": 1,}", 1, 9, "trailing comma"),
            ("[1, 2,]", 1, 7, "trailing comma"),
            ("{\"aps\": }", 1, 9, "give the key a value"),
            ("{\"aps\":\n}", 2, 1, "give the key a value"),
            ("{\"a\": NaN}", 1, 7, "NaN"),
            ("{\"a\": Infinity}", 1, 7, "Infinity"),
            ("{\"a\": -Infinity}", 1, 8, "Infinity"),
            ("// c\n{}", 1, 1, "comments"),
            ("{\"a\": 1 /* c */}", 1, 9, "expected ','"),
            ("{'a': 1}", 1, 2, "expected a key"),
            ("{\"a\": 01}", 1, 7, "leading zeros"),
            ("{\"a\": .5}", 1, 7, "digit before"),
            ("{\"a\": +1}", 1, 7, "'+'"),
            ("{\"a\": \"\\x\"}", 1, 8, "invalid escape"),
            ("{\"a\": \"tab\there\"}", 1, 11, "control character"),
            ("{\"a\": True}", 1, 7, "lowercase"),
            ("{\"a\": 1} {}", 1, 10, "exactly one value"),
            ("", 1, 1, "empty"),
            ("{\"a\": \"\\ud800\"}", 1, 14, "surrogate"),
            ("{\"a\" 1}", 1, 6, "':'"),
        ]
        for (text, line, column, words) in bad {
            let doc = JSONReader.read(text)
            XCTAssertNil(doc.root, text)
            let p = doc.problems.first
            XCTAssertEqual(p?.kind, .syntax, text)
            XCTAssertEqual(p?.position.line, line, text)
            XCTAssertEqual(p?.position.column, column, "\(text): \(p?.message ?? "")")
            XCTAssertTrue(p?.message.contains(words) ?? false, "\(text): \(p?.message ?? "")")
        }
    }

    func testInvalidUTF8IsRejected() {
        let doc = JSONReader.read([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])
        XCTAssertNil(doc.root)
        XCTAssertTrue(doc.problems.first?.message.contains("UTF-8") ?? false)
    }

    func testDuplicateKeysAreReportedAndReadingContinues() throws {
        var keys = (0..<20).map { "\"k\($0)\": \($0)" }
        keys.append("\"k7\": 99")
        let doc = JSONReader.read("{\"aps\": {\"event\": \"start\", \"event\": \"end\"}, \"big\": {\(keys.joined(separator: ","))}}")
        XCTAssertNotNil(doc.root)
        XCTAssertEqual(doc.problems.map(\.kind), [.duplicateKey, .duplicateKey])
        XCTAssertEqual(doc.problems.map(\.path), ["aps.event", "big.k7"])
    }

    func testDeepNestingGivesAProblemNotACrash() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let doc = JSONReader.read(text)
        XCTAssertNil(doc.root)
        XCTAssertEqual(doc.problems.first?.kind, .tooDeep)
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertNotNil(JSONReader.read(ok).root)
    }

    func testWriterRoundTripsAndKeepsLexemes() throws {
        let text = #"{"b":[1.50,-0,2e3,"x\n\"y"],"a":{"é":null,"t":true}}"#
        let root = try XCTUnwrap(JSONReader.read(text).root)
        XCTAssertEqual(JSONWriter.compact(root.value), text)
        let pretty = JSONWriter.pretty(root.value)
        XCTAssertEqual(JSONWriter.compact(try XCTUnwrap(JSONReader.read(pretty).root).value), text)
        XCTAssertEqual(JSONWriter.quoted("\u{01}"), "\"\\u0001\"")
    }
}
