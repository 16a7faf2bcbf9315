import XCTest
@testable import ActivityPushCore

/// The kinds of mistake where `check` disagreed with the real `JSONDecoder` (issue 13), each for its whole kind.
/// Every expectation here was taken from the real decoder (Swift 6.3.1, swift-foundation); the decoder-oracle
/// test (`DecoderOracleTests`) checks the same against the compiler on every fixture type.
final class DecoderAgreementTests: XCTestCase {
    static let now: Double = 1_767_225_600

    /// Judges `{"aps": {… "content-state": CS}}` (an update) against a schema read from `swift`.
    private func codes(_ swift: String, contentState: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let schema = try SwiftSourceReader.read(sources: [("T.swift", swift)])
        let body = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": "# + contentState + "}}"
        let report = Validator(schema: schema).check(body: Array(body.utf8), nowUnixSeconds: Self.now)
        return report.findings.filter { $0.severity != .info }.map { "\($0.code)" + ($0.severity == .warning ? "?" : "") }
    }

    private func attributesSwift(_ contentState: String, _ extra: String = "") -> String {
        """
        import ActivityKit
        \(extra)
        struct A: ActivityAttributes {
            \(contentState)
        }
        """
    }

    // MARK: 1. enums without raw values (keyed form)

    private let keyedEnums = """
        enum Stage: Codable, Hashable {
            case delivered
            case moving(speed: Double, heading: Int?)
            case paused(String, Int)
        }
        enum Renamed: Codable, Hashable {
            case idle, busy(level: Int)
            enum CodingKeys: String, CodingKey { case idle = "Idle", busy = "Busy" }
        }
        """

    func testKeyedEnumReadsOnlyCaseKeysAndNeedsExactlyOne() throws {
        let swift = attributesSwift("struct ContentState: Codable, Hashable { var stage: Stage; var renamed: Renamed? }", keyedEnums)
        let table: [(String, [String])] = [
            (#"{"delivered": {}}"#, []),
            (#"{"delivered": {}, "somethingElse": {}}"#, ["unknown-content-state-key?"]),  // decodes as .delivered
            (#"{"delivered": {}, "moving": {"speed": 1}}"#, ["type-mismatch"]),            // two case keys
            (#"{}"#, ["type-mismatch"]),
            (#"{"Delivered": {}}"#, ["enum-value-invalid"]),
            (#"{"delivered": 1}"#, ["type-mismatch"]),                                     // a case's value is an object
            (#"{"delivered": []}"#, ["type-mismatch"]),
            (#""delivered""#, ["type-mismatch"]),
            (#"{"moving": {"speed": 1, "extra": 2}}"#, ["unknown-content-state-key?"]),     // optional heading omitted
            (#"{"moving": {"heading": 1}}"#, ["missing-required-key"]),
            (#"{"paused": {"_0": "a", "_1": 2}}"#, []),
            (#"{"paused": {"_1": 2}}"#, ["missing-required-key"]),
        ]
        for (value, expected) in table {
            XCTAssertEqual(try codes(swift, contentState: #"{"stage": "# + value + "}"), expected, value)
        }
        // CodingKeys rename the case keys.
        XCTAssertEqual(try codes(swift, contentState: #"{"stage": {"delivered": {}}, "renamed": {"Busy": {"level": 1}}}"#), [])
        XCTAssertEqual(try codes(swift, contentState: #"{"stage": {"delivered": {}}, "renamed": {"busy": {"level": 1}}}"#), ["enum-value-invalid"])
    }

    func testContentStateThatIsAKeyedEnumWarnsOnAnOrdinaryUnknownKey() throws {
        let swift = attributesSwift("enum ContentState: Codable, Hashable { case waiting; case live(score: Int) }")
        XCTAssertEqual(try codes(swift, contentState: #"{"live": {"score": 1}, "note": "x"}"#), ["unknown-content-state-key?"])
        XCTAssertEqual(try codes(swift, contentState: #"{"live": {"score": 1}, "waiting": {}}"#), ["type-mismatch"])
    }

    func testRawValueEnumsCompareWhatTheDecoderReadsForTheRawType() throws {
        let swift = attributesSwift("struct ContentState: Codable, Hashable { var f: FR?; var d: DR?; var i: IR?; var u: UR?; var s: SR? }", """
            enum FR: Float, Codable, Hashable { case third = 0.333, half = 0.5 }
            enum DR: Double, Codable, Hashable { case third = 0.333, half = 0.5 }
            enum IR: Int8, Codable, Hashable { case zero = 0, big = 127 }
            enum UR: UInt64, Codable, Hashable { case top = 18446744073709551615, small = 9007199254740993 }
            enum SR: String, Codable, Hashable { case low, high = "HIGH" }
            """)
        let table: [(String, String, Bool)] = [
            ("f", "0.333", true), ("f", "0.33300001", true), ("f", "333e-3", true), ("f", "1e39", false), ("f", "0.334", false),
            ("d", "0.333", true), ("d", "0.33300001", false), ("d", "333e-3", true),
            ("i", "0", true), ("i", "-0", true), ("i", "0.0", true), ("i", "1.27e2", true), ("i", "127.0", true), ("i", "300", false),
            ("u", "18446744073709551615", true), ("u", "9007199254740993", true), ("u", "9007199254740992", false),
            ("u", "9007199254740993.0", true), ("u", "1.8446744073709551615e19", false),
            ("s", #""low""#, true), ("s", #""HIGH""#, true), ("s", #""high""#, false), ("s", #""Low""#, false),
        ]
        for (key, value, accepted) in table {
            let found = try codes(swift, contentState: #"{""# + key + #"": "# + value + "}")
            XCTAssertEqual(found.isEmpty, accepted, "\(key) \(value): \(found)")
        }
    }

    // MARK: 2. integers on the exact lexeme, every width at both ends

    func testEveryIntegerWidthAtBothEnds() throws {
        let bounds: [(String, min: String, max: String, belowMin: String, aboveMax: String)] = [
            ("Int", "-9223372036854775808", "9223372036854775807", "-9223372036854775809", "9223372036854775808"),
            ("Int64", "-9223372036854775808", "9223372036854775807", "-9223372036854775809", "9223372036854775808"),
            ("Int32", "-2147483648", "2147483647", "-2147483649", "2147483648"),
            ("Int16", "-32768", "32767", "-32769", "32768"),
            ("Int8", "-128", "127", "-129", "128"),
            ("UInt", "0", "18446744073709551615", "-1", "18446744073709551616"),
            ("UInt64", "0", "18446744073709551615", "-1", "18446744073709551616"),
            ("UInt32", "0", "4294967295", "-1", "4294967296"),
            ("UInt16", "0", "65535", "-1", "65536"),
            ("UInt8", "0", "255", "-1", "256"),
        ]
        for b in bounds {
            let swift = attributesSwift("struct ContentState: Codable, Hashable { var n: \(b.0) }")
            for ok in [b.min, b.max, "-0"] {
                XCTAssertEqual(try codes(swift, contentState: #"{"n": "# + ok + "}"), [], "\(b.0) \(ok)")
            }
            for bad in [b.belowMin, b.aboveMax, "1" + b.max.filter(\.isNumber)] {
                XCTAssertEqual(try codes(swift, contentState: #"{"n": "# + bad + "}"), ["integer-out-of-range"], "\(b.0) \(bad)")
            }
        }
    }

    func testIntegersWrittenWithFractionOrExponentReadAsTheDecoderReadsThem() throws {
        let table: [(String, String, [String])] = [
            ("Int8", "127.0", []), ("Int8", "-128.0", []), ("Int8", "1.27e2", []), ("Int8", "128.0", ["integer-out-of-range"]),
            ("Int8", "127.5", ["type-mismatch"]), ("UInt8", "2.55e2", []), ("Int32", "2.147483648e9", ["integer-out-of-range"]),
            ("Int", "1e2", []), ("Int", "-0.0", []), ("Int", "1.5", ["type-mismatch"]),
            // Beyond 2^53 the decoder reads a Decimal; a negative one at most Int64.max in magnitude.
            ("Int64", "9223372036854775295.0", []), ("Int64", "9223372036854775296.0", ["integer-out-of-range"]),
            ("Int64", "9223372036854775807.0", ["integer-out-of-range"]), ("Int64", "-9223372036854775808.0", ["integer-out-of-range"]),
            ("Int64", "-9223372036854775807.0", []), ("Int64", "9223372036854775000.0", []), ("Int64", "9007199254740993.5", []),
            ("Int64", "9.2233720368547758e18", ["integer-out-of-range"]),
            ("UInt64", "1e19", []), ("UInt64", "18446744073709551615.0", ["integer-out-of-range"]),
            ("UInt64", "1.8446744073709552e19", ["integer-out-of-range"]), ("UInt64", "10000000000000000000.5", ["integer-out-of-range"]),
        ]
        for (type, lexeme, expected) in table {
            let swift = attributesSwift("struct ContentState: Codable, Hashable { var n: \(type) }")
            XCTAssertEqual(try codes(swift, contentState: #"{"n": "# + lexeme + "}"), expected, "\(type) \(lexeme)")
        }
    }

    // MARK: 3. every extension spelling

    func testEveryExtensionSpellingReads() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("ExtensionSpellings.swift")])
        let match = try XCTUnwrap(schema.type(named: "Match"))
        XCTAssertEqual(match.contentState.object?.properties.map(\.key), ["players", "round"])
        for spelling in ["[Player]", "[String: Player]", "Player?", "Array<Player>", "Swift.Array<Player>",
                         "Array where Element == Player", "Dictionary<String, Int>", "Optional where Wrapped == Int",
                         "Set<String>", "Match.ContentState", "[[Player]]", "[Player]: Scored", "Swift.Optional<Int>"] {
            let text = "import ActivityKit\nstruct Player: Codable, Hashable { var n: Int }\nprotocol Scored {}\nextension \(spelling) {\n  var x: Int { 0 }\n}\nstruct M: ActivityAttributes { struct ContentState: Codable, Hashable { var p: Player } }\n"
            XCTAssertNoThrow(try SchemaTestSupport.read(text), spelling)
        }
        XCTAssertThrowsError(try SchemaTestSupport.read("extension {\n}\nstruct M: ActivityAttributes {}"))
    }

    // MARK: 4. types that store nothing decode from any value

    func testAStructThatStoresNothingDecodesFromAnyJSONValue() throws {
        let extra = """
            struct Marker: Codable, Hashable {}
            struct OnlyComputed: Codable, Hashable { static var shared = 1; var twice: Int { 2 } }
            struct EmptyKeys: Codable, Hashable { enum CodingKeys: CodingKey {} }
            struct OnlyLet: Codable, Hashable { let version = 1 }
            """
        let swift = attributesSwift("struct ContentState: Codable, Hashable { var marker: Marker; var computed: OnlyComputed?; var keys: EmptyKeys?; var onlyLet: OnlyLet? }", extra)
        for value in [#""x""#, "1", "[]", "{}", "true"] {
            XCTAssertEqual(try codes(swift, contentState: #"{"marker": "# + value + #", "computed": "# + value + #", "keys": "# + value + "}"), [], value)
        }
        // A `let` with a value is a coding key: the decoder still opens an object.
        XCTAssertEqual(try codes(swift, contentState: #"{"marker": {}, "onlyLet": "x"}"#), ["type-mismatch"])
    }

    // MARK: 5. floats by what rounding gives, at both ends and for subnormals

    func testFloatsAreJudgedByRounding() throws {
        let table: [(String, String, Bool)] = [
            ("Float", "3.4028235e38", true), ("Float", "-3.4028235e38", true), ("Float", "3.40282357e38", false),
            ("Float", "1e39", false), ("Float", "1e-45", true), ("Float", "8e-46", true), ("Float", "7e-46", false),
            ("Float", "-1e-50", false), ("Float", "0.0", true), ("Float", "0e-999", true),
            ("Float16", "65504", true), ("Float16", "65519", true), ("Float16", "-65519", true), ("Float16", "65520", false),
            ("Float16", "1e-9", true), ("Float16", "6e-8", true), ("Float16", "1e-50", false),
            ("Double", "1.7976931348623158e308", true), ("Double", "-1.7976931348623158e308", true),
            ("Double", "1.7976931348623159e308", false), ("Double", "1e309", false),
            ("Double", "5e-324", true), ("Double", "3e-324", true), ("Double", "2e-324", false), ("Double", "1e-400", false),
            ("CGFloat", "3e-324", true), ("TimeInterval", "1e309", false),
        ]
        for (type, lexeme, accepted) in table {
            let swift = attributesSwift("struct ContentState: Codable, Hashable { var x: \(type) }")
            XCTAssertEqual(try codes(swift, contentState: #"{"x": "# + lexeme + "}"), accepted ? [] : ["type-mismatch"], "\(type) \(lexeme)")
        }
    }

    // MARK: silent start, timestamp-not-integer, unknown-header

    private func startCodes(alert: String, timestamp: String = "1767225600", headers: APNsHeaders? = nil) -> [String] {
        let body = #"{"aps": {"timestamp": "# + timestamp + #", "event": "start", "content-state": {}, "attributes-type": "A", "attributes": {}, "alert": "# + alert + "}}"
        return Validator().check(body: Array(body.utf8), headers: headers, nowUnixSeconds: Self.now).findings.map {
            "\($0.code)" + ($0.severity == .warning ? "?" : "")
        }
    }

    func testPresentEmptyAlertKeysAreASilentStart() {
        XCTAssertEqual(startCodes(alert: #"{"title": "", "body": ""}"#), ["silent-start?"])
        XCTAssertEqual(startCodes(alert: #"{"title": " ", "body": ""}"#), ["silent-start?"])
        XCTAssertEqual(startCodes(alert: #"{"title": "Hi", "body": ""}"#), [])
        XCTAssertEqual(startCodes(alert: #"{"title": ""}"#), ["missing-alert-for-start"])
        XCTAssertEqual(startCodes(alert: #"{"title": "", "body": 1}"#), ["missing-alert-for-start"])
        XCTAssertEqual(startCodes(alert: #"{}"#), ["missing-alert-for-start"])
        XCTAssertEqual(startCodes(alert: #""""#), ["missing-alert-for-start"])
    }

    /// Blank alert text is described as it is: empty or whitespace only, on a start and on an update (QA item 11).
    func testBlankAlertTextIsNamedExactly() {
        func messages(_ event: String, _ alert: String) -> [String] {
            let extra = event == "start" ? #", "attributes-type": "A", "attributes": {}"# : ""
            let body = #"{"aps": {"timestamp": 1767225600, "event": ""# + event + #"", "content-state": {}"# + extra + #", "alert": "# + alert + "}}"
            return Validator().check(body: Array(body.utf8), nowUnixSeconds: Self.now).findings.map { "\($0.code): \($0.message)" }
        }
        XCTAssertTrue(messages("start", #"{"title": " ", "body": " "}"#).first?.contains("both whitespace only") == true)
        let update = messages("update", #"{"title": "", "body": ""}"#)
        XCTAssertEqual(update.count, 1)
        XCTAssertTrue(update.first?.hasPrefix("alert-incomplete: aps.alert has title and body, both empty") == true, "\(update)")
        XCTAssertFalse(update.first?.contains("no usable") == true)
    }

    func testFractionalTimesWarn() {
        XCTAssertEqual(startCodes(alert: #"{"title": "a", "body": "b"}"#, timestamp: "1767225600.123"), ["timestamp-not-integer?"])
        XCTAssertEqual(startCodes(alert: #"{"title": "a", "body": "b"}"#, timestamp: "1767225600.0"), [])
        let body = #"{"aps": {"timestamp": 1767225600, "event": "end", "content-state": {}, "dismissal-date": 1767229200.5, "stale-date": 1767229200.25}}"#
        let report = Validator().check(body: Array(body.utf8), nowUnixSeconds: Self.now)
        XCTAssertEqual(Set(report.findings.filter { $0.code == "timestamp-not-integer" }.map(\.path)), ["aps.dismissal-date", "aps.stale-date"])
        XCTAssertTrue(report.accept)
    }

    func testUnknownAPNsHeaderNamesTheKeyOrHeaderMeant() {
        var headers = APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "a.push-type.liveactivity"),
                                   ("apns-relevance-score", "50"), ("apns-expiry", "0"), ("apns-priority", "10"),
                                   ("authorization", "bearer x")])
        let report = Validator().check(body: Array(#"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}}"#.utf8),
                                       headers: headers, nowUnixSeconds: Self.now)
        let unknown = report.findings.filter { $0.code == "unknown-header" }
        XCTAssertEqual(unknown.map(\.path), ["headers.apns-relevance-score", "headers.apns-expiry"])
        XCTAssertTrue(unknown[0].fix?.contains("\"relevance-score\" inside aps") ?? false, unknown[0].fix ?? "")
        XCTAssertTrue(unknown[1].fix?.contains("apns-expiration") ?? false, unknown[1].fix ?? "")
        XCTAssertTrue(report.accept)
        headers["apns-relevance-score"] = nil
        headers["apns-expiry"] = nil
        XCTAssertEqual(Validator().check(body: Array(#"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}}"#.utf8),
                                         headers: headers, nowUnixSeconds: Self.now).findings.map(\.code), [])
    }
}
