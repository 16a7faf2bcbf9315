import Foundation
import XCTest
@testable import ActivityPushCore

/// The quiet scan (`QuietPushScan`) only ever skips the full check for a body the full check finds nothing in:
/// on every corpus payload and on thousands of mutations of each (keys dropped, renamed, doubled, added; values
/// replaced by other JSON kinds, edge numbers and strings; bytes deleted or replaced), `check` with the scan gives
/// exactly the report `check` without it gives.
final class QuietPushScanTests: XCTestCase {
    struct Subject {
        let name: String
        let body: [UInt8]
        let headers: APNsHeaders?
        let schema: ActivitySchema
        let now: Double?
    }

    func subjects() throws -> [Subject] {
        var subjects = try FixturePaths.caseFolders().map { folder in
            let loaded = try CaseCorpusTests.load(folder)
            return Subject(name: loaded.name, body: loaded.body, headers: loaded.headers, schema: loaded.schema,
                           now: loaded.expected.context?.now)
        }
        subjects.append(Subject(name: "bench", body: try benchBody(), headers: nil, schema: try benchSchema(), now: 1_767_225_600))
        return subjects
    }

    func benchSchema() throws -> ActivitySchema {
        try SwiftSourceReader.read(sources: [(file: "DeliveryAttributes.swift", text: String(
            contentsOf: FixturePaths.fixtures.appendingPathComponent("bench/DeliveryAttributes.swift"), encoding: .utf8))])
    }

    func benchBody() throws -> [UInt8] {
        Array(try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("bench/start-1k.json")))
    }

    /// Checks `body` with and without the scan; true when the scan answered alone.
    @discardableResult
    func assertSame(_ body: [UInt8], _ subject: Subject, now: Double?, headers: APNsHeaders?, _ label: @autoclosure () -> String,
                    file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let scanning = Validator(schema: subject.schema)
        var full = scanning
        full.usesQuietScan = false
        let fast = scanning.check(body: body, headers: headers, nowUnixSeconds: now)
        let slow = full.check(body: body, headers: headers, nowUnixSeconds: now)
        if Self.comparable(fast) != Self.comparable(slow) {
            XCTFail("\(label()): with the scan \(fast.findings.map { "\($0.code)@\($0.path)" }), without \(slow.findings.map { "\($0.code)@\($0.path)" }): \(String(decoding: body, as: UTF8.self))",
                    file: file, line: line)
        }
        guard let plan = scanning.quietPlan else { return false }
        return QuietPushScan.quietEvent(of: body, plan: plan, now: now) != nil
    }

    /// The report with the random example UUID of a UUID fix ("such as \"…\"") blanked out.
    static func comparable(_ report: ValidationReport) -> [Finding] {
        report.findings.map { finding in
            var copy = finding
            copy.fix = finding.fix?.replacingOccurrences(of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}",
                                                         with: "<uuid>", options: .regularExpression)
            return copy
        }
    }

    func testTheBenchPayloadIsProvedQuietAndMatchesTheFullCheck() throws {
        let subject = try subjects().last!
        let compact = Array(JSONWriter.compact(try XCTUnwrap(JSONReader.read(subject.body).root).value).utf8)
        XCTAssertTrue(assertSame(subject.body, subject, now: subject.now, headers: nil, "bench pretty"))
        XCTAssertTrue(assertSame(compact, subject, now: subject.now, headers: nil, "bench compact"))
        XCTAssertTrue(assertSame(compact, subject, now: nil, headers: nil, "bench without a clock"))
        // Headers are judged by the header rules as before (the event is known to them).
        let headers = APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                                   ("apns-priority", "5")])
        assertSame(compact, subject, now: subject.now, headers: headers, "bench with headers")
        // A broadcast always gets the full check.
        assertSame(compact, subject, now: subject.now, headers: APNsHeaders([("apns-channel-id", "dGVzdA==")]), "broadcast")
    }

    func testEveryCorpusPayloadAndItsValueMutationsMatchTheFullCheck() throws {
        var quiet = 0
        var total = 0
        for subject in try subjects() {
            guard let root = JSONReader.read(subject.body).root else {
                assertSame(subject.body, subject, now: subject.now, headers: subject.headers, subject.name)
                continue
            }
            var bodies = [subject.body]
            // The bench payload with every replacement; the (many) cases with a few of each kind.
            let replacements = subject.name == "bench" ? Self.replacements : Self.fewReplacements
            bodies += Self.mutations(of: root.value, replacements).map { Array(JSONWriter.compact($0).utf8) }
            for (offset, body) in bodies.enumerated() {
                // Every clock on the bench payload; the case corpus at its own clock (the cases are many).
                let clocks = subject.name == "bench" ? [subject.now, nil, subject.now.map { $0 + 7200 }] : [subject.now]
                for now in clocks {
                    total += 1
                    if assertSame(body, subject, now: now, headers: subject.headers, "\(subject.name) mutation \(offset) now \(now.map { String($0) } ?? "nil")") {
                        quiet += 1
                    }
                }
            }
        }
        // The scan answers a real share of them (the clean ones), and is checked on the rest.
        XCTAssertGreaterThan(quiet, 20)
        XCTAssertGreaterThan(total, 2000)
    }

    func testByteMutationsOfTheBenchPayloadMatchTheFullCheck() throws {
        let subject = try subjects().last!
        let compact = Array(JSONWriter.compact(try XCTUnwrap(JSONReader.read(subject.body).root).value).utf8)
        let replacements: [UInt8] = Array("\"\\ x}]0-.e{[,:\u{7F}".utf8) + [0x00, 0x0A, 0xC3, 0xE2, 0xFF]
        for offset in compact.indices {
            var deleted = compact
            deleted.remove(at: offset)
            assertSame(deleted, subject, now: subject.now, headers: nil, "byte \(offset) deleted")
            for byte in replacements where byte != compact[offset] {
                var replaced = compact
                replaced[offset] = byte
                assertSame(replaced, subject, now: subject.now, headers: nil, "byte \(offset) replaced by \(byte)")
            }
        }
    }

    func testSpellingsTheScanReadsItself() throws {
        let subject = try subjects().last!
        var text = String(decoding: try benchBody(), as: UTF8.self)
        // Escaped slashes (PHP's json_encode), non-ASCII text, a \u escape in a plain string, CRLF and tabs.
        text = text.replacingOccurrences(of: "https://track.example.com/o/7Q2K-19F3", with: #"https:\/\/track.example.com\/o\/7Q2K-19F3"#)
        text = text.replacingOccurrences(of: "Ji-woo picked up", with: "지우 picked up \\u00e9\\ud83d\\ude00")
        text = text.replacingOccurrences(of: "\n", with: "\r\n\t")
        assertSame(Array(text.utf8), subject, now: subject.now, headers: nil, "escapes and UTF-8")
        for (title, label) in [("\\n", "escaped newline only"), (" \u{3000} ", "ideographic space only"), ("주문", "Hangul only"),
                               ("", "empty"), ("\\u0041", "escaped letter only")] {
            let changed = text.replacingOccurrences(of: "Your order is on its way", with: title)
            assertSame(Array(changed.utf8), subject, now: subject.now, headers: nil, label)
        }
        for bad in ["\u{01}", "\\x", "\\ud800", "\\udc00", "\\ud800\\u0041"] {
            let changed = text.replacingOccurrences(of: "Leave at the door", with: bad)
            XCTAssertFalse(assertSame(Array(changed.utf8), subject, now: subject.now, headers: nil, "bad string \(bad)"))
        }
        for invalid: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80]] {
            var body = Array(text.utf8)
            let at = body.firstIndex(of: UInt8(ascii: "L"))!
            body.insert(contentsOf: invalid, at: at)
            XCTAssertFalse(assertSame(body, subject, now: subject.now, headers: nil, "invalid UTF-8 \(invalid)"))
        }
    }

    /// The URL shortcut accepts only what `URL(string:)` accepts (on a spread of spellings, plain and odd).
    func testPlainWebURLShortcutAgreesWithFoundation() {
        let pieces = ["https://", "http://", "ftp://", "https:/", "a", "example.com", "-", ".", "..", "/o/7Q2K-19F3", "/", "?q=1&r=2",
                      "%20", " ", "#frag", ":443", "@", "[::1]", "é", "_", "~", "!$'()*+,;=", "//", "?", "\\"]
        var accepted = 0
        for first in pieces {
            for second in pieces {
                for third in pieces {
                    let text = first + second + third
                    let plain = Array(text.utf8).withUnsafeBufferPointer(ShapeJudge.isPlainWebURL)
                    if plain {
                        accepted += 1
                        XCTAssertNotNil(URL(string: text), text)
                    }
                    XCTAssertEqual(ShapeJudge.decodesAsURL(text), !text.isEmpty && URL(string: text) != nil, text)
                }
            }
        }
        XCTAssertGreaterThan(accepted, 100)
    }

    /// The floating-point shortcut (no exponent, at most 38 characters) answers as parsing would.
    func testFloatingShortcutAgreesWithParsing() {
        let lexemes = ["0", "-0", "0.0", "0.42", "1", "-1.5", String(repeating: "9", count: 38), "-" + String(repeating: "9", count: 37),
                       "0." + String(repeating: "0", count: 35) + "1", "65519", "65520", "3.4028235", "123456789.123456789"]
        for lexeme in lexemes {
            let number = JSONNumber(lexeme: lexeme)
            for name in ["Double", "Float", "Float32", "CGFloat", "TimeInterval"] {
                let value = ["Float", "Float32"].contains(name) ? Float(lexeme).map(Double.init) : Double(lexeme)
                let nonZero = lexeme.contains(where: { ("1"..."9").contains($0) })
                let expected = value.map { $0.isFinite && !($0 == 0 && nonZero) } ?? false
                XCTAssertEqual(DecodedNumber.floatingFits(number, name: name), expected, "\(lexeme) as \(name)")
            }
        }
    }

    /// Each object member dropped, renamed, doubled; a key added to each object; each value (and array element)
    /// replaced by each of `replacements`; each array element dropped.
    static func mutations(of value: JSONValue, _ replacements: [JSONValue]) -> [JSONValue] {
        var results: [JSONValue] = []
        switch value {
        case .object(let members):
            results.append(.object(members + [JSONMember(key: "extraKey", value: JSONNode(.number(JSONNumber(1))))]))
            for index in members.indices {
                var dropped = members
                dropped.remove(at: index)
                results.append(.object(dropped))
                var renamed = members
                renamed[index].key = members[index].key.uppercased()
                results.append(.object(renamed))
                var doubled = members
                doubled.insert(members[index], at: index + 1)
                results.append(.object(doubled))
                for replacement in replacements {
                    var replaced = members
                    replaced[index].value = JSONNode(replacement)
                    results.append(.object(replaced))
                }
                for inner in mutations(of: members[index].value.value, replacements) {
                    var nested = members
                    nested[index].value = JSONNode(inner)
                    results.append(.object(nested))
                }
            }
        case .array(let elements):
            for index in elements.indices {
                var dropped = elements
                dropped.remove(at: index)
                results.append(.array(dropped))
                for replacement in replacements {
                    var replaced = elements
                    replaced[index] = JSONNode(replacement)
                    results.append(.array(replaced))
                }
                for inner in mutations(of: elements[index].value, replacements) {
                    var nested = elements
                    nested[index] = JSONNode(inner)
                    results.append(.array(nested))
                }
            }
        default:
            break
        }
        return results
    }

    static let fewReplacements: [JSONValue] = [
        .null, .string("x"), .number(JSONNumber(lexeme: "1.5")), .number(JSONNumber(lexeme: "-1")),
        .number(JSONNumber(lexeme: "1767225600")), .object([]),
    ]

    static let replacements: [JSONValue] = [
        .null, .bool(true), .string(""), .string(" "), .string("x"), .string("start"), .string("end"),
        .string("https://e.example/a b"), .string("6F1C2A9E-0000-4000-8000-00000000000G"),
        .string("6f1c2a9e-0000-4000-8000-000000000002"), .string("1767225600"),
        .number(JSONNumber(lexeme: "0")), .number(JSONNumber(lexeme: "-1")), .number(JSONNumber(lexeme: "1.5")),
        .number(JSONNumber(lexeme: "1e3")), .number(JSONNumber(lexeme: "9223372036854775808")),
        .number(JSONNumber(lexeme: "1767225600")), .number(JSONNumber(lexeme: "1767225600000")),
        .number(JSONNumber(lexeme: "1767229200.5")), .number(JSONNumber(lexeme: "788919480")),
        .number(JSONNumber(lexeme: "3.5e38")), .object([]), .array([]),
    ]
}
