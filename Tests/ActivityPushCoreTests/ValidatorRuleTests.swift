import XCTest
@testable import ActivityPushCore

/// Every finding code with an input that raises it and a corrected input that does not.
final class ValidatorRuleTests: XCTestCase {
    static let now: Double = 1_767_225_600

    /// A hand-built schema (independent of the Swift source reader) exercising every shape.
    static let schema: ActivitySchema = {
        let level = EnumShape(name: "Level", rawType: .string,
                              cases: [.init(name: "low", rawValue: "low"), .init(name: "high", rawValue: "HIGH")])
        let rank = EnumShape(name: "Rank", rawType: .integer(.int),
                             cases: [.init(name: "one", rawValue: "1"), .init(name: "two", rawValue: "2")])
        let route = EnumShape(name: "Route", rawType: nil, cases: [
            .init(name: "walk", rawValue: nil),
            .init(name: "bus", rawValue: nil, associatedValues: [("line", .integer(.int))]),
        ])
        let attributes = StructShape(name: "KoraAttributes", properties: [
            StoredProperty(name: "eventID", key: "eventID", shape: .string, typeName: "String"),
            StoredProperty(name: "venue", key: "venue_name", shape: .string, typeName: "String"),
            StoredProperty(name: "seats", key: "seats", shape: .optional(.integer(IntegerKind.all["UInt8"]!)), typeName: "UInt8?"),
            StoredProperty(name: "id", key: "id", shape: .optional(.uuid), typeName: "UUID?"),
            StoredProperty(name: "site", key: "site", shape: .optional(.url), typeName: "URL?"),
            StoredProperty(name: "logo", key: "logo", shape: .optional(.data), typeName: "Data?"),
            StoredProperty(name: "route", key: "route", shape: .optional(.enumeration(route)), typeName: "Route?"),
            StoredProperty(name: "extra", key: "extra", shape: .optional(.unresolved(typeName: "CLLocation", reason: "declared in no file given")), typeName: "CLLocation?"),
        ], conditionalKeys: ["debugTag"])
        let contentState = StructShape(name: "ContentState", properties: [
            StoredProperty(name: "phase", key: "phase", shape: .string, typeName: "String"),
            StoredProperty(name: "minutesLeft", key: "minutesLeft", shape: .integer(.int), typeName: "Int"),
            StoredProperty(name: "startsAt", key: "startsAt", shape: .optional(.date), typeName: "Date?"),
            StoredProperty(name: "level", key: "level", shape: .optional(.enumeration(level)), typeName: "Level?"),
            StoredProperty(name: "rank", key: "rank", shape: .optional(.enumeration(rank)), typeName: "Rank?"),
            StoredProperty(name: "live", key: "live", shape: .optional(.bool), typeName: "Bool?"),
            StoredProperty(name: "scores", key: "scores", shape: .optional(.dictionary(key: .string, value: .floating(name: "Double"))), typeName: "[String: Double]?"),
            StoredProperty(name: "tags", key: "tags", shape: .optional(.array(.string)), typeName: "[String]?"),
            StoredProperty(name: "doorsAt", key: "doorsAt", shape: .optional(.customDate(.unixMilliseconds, CustomDateDecoding(integer: IntegerKind.all["Int64"]!))), typeName: "EpochMillisecondsDate?"),
        ])
        return ActivitySchema(types: [ActivityAttributesType(name: "KoraAttributes", location: .init(file: "Kora.swift", line: 1),
                                                             attributes: .object(attributes), contentState: .object(contentState))],
                              files: ["Kora.swift"])
    }()

    static let validStart = """
    {"aps": {"timestamp": 1767225600, "event": "start",
      "content-state": {"phase": "open", "minutesLeft": 30},
      "attributes-type": "KoraAttributes",
      "attributes": {"eventID": "e1", "venue_name": "Hall B"},
      "alert": {"title": "Doors open", "body": "Starts in 30"}}}
    """
    static let validUpdate = """
    {"aps": {"timestamp": 1767225600, "event": "update", "content-state": {"phase": "open", "minutesLeft": 20}}}
    """
    static let validHeaders = APNsHeaders([("apns-push-type", "liveactivity"),
                                           ("apns-topic", "com.example.kora.push-type.liveactivity"),
                                           ("apns-priority", "10")])

    struct Case {
        let code: FindingCode
        let path: String
        var severity: Severity = .error
        let failing: String
        let passing: String
        var headers: APNsHeaders? = nil
        var passingHeaders: APNsHeaders? = nil
        var strict = false
        /// Words the message or fix must contain.
        var says: [String] = []
    }

    static func start(_ replace: [String: String]) -> String {
        var s = validStart
        for (a, b) in replace { s = s.replacingOccurrences(of: a, with: b) }
        return s
    }
    static func update(_ replace: [String: String]) -> String {
        var s = validUpdate
        for (a, b) in replace { s = s.replacingOccurrences(of: a, with: b) }
        return s
    }

    static let broadcastHeaders = APNsHeaders([("apns-push-type", "liveactivity"), ("apns-channel-id", "dHN0LTEyMw=="),
                                               ("apns-expiration", "0"), ("apns-priority", "10")])

    static let cases: [Case] = [
        // Body and placement
        Case(code: "invalid-json", path: "$", failing: update(["20}}}": "20,}}}"]), passing: validUpdate, says: ["trailing comma"]),
        Case(code: "json-too-deep", path: "$", failing: update(["\"phase\": \"open\"": "\"phase\": " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300)]),
             passing: validUpdate),
        Case(code: "duplicate-key", path: "aps.event", failing: update(["\"event\": \"update\"": "\"event\": \"update\", \"event\": \"end\""]), passing: validUpdate),
        Case(code: "missing-aps", path: "aps", failing: #"{"timestamp": 1767225600}"#, passing: validUpdate),
        Case(code: "attributes-not-object", path: "aps.attributes", failing: start(["{\"eventID\": \"e1\", \"venue_name\": \"Hall B\"}": "\"{\\\"eventID\\\": \\\"e1\\\"}\""]), passing: validStart),
        Case(code: "content-state-not-object", path: "aps.content-state", failing: update(["{\"phase\": \"open\", \"minutesLeft\": 20}": "[1]"]), passing: validUpdate),
        Case(code: "attributes-outside-aps", path: "attributes", failing: start(["\"attributes\": {\"eventID\": \"e1\", \"venue_name\": \"Hall B\"},": "", "}}}": "}}, \"attributes\": {\"eventID\": \"e1\", \"venue_name\": \"Hall B\"}}"]),
             passing: validStart, says: ["move"]),
        Case(code: "content-state-outside-aps", path: "content-state", failing: #"{"aps": {"timestamp": 1767225600, "event": "update"}, "content-state": {"phase": "open", "minutesLeft": 20}}"#, passing: validUpdate),
        Case(code: "aps-key-outside-aps", path: "timestamp", failing: #"{"timestamp": 1767225600, "aps": {"event": "update", "content-state": {"phase": "open", "minutesLeft": 20}}}"#, passing: validUpdate),
        Case(code: "unknown-aps-key", path: "aps.state-date", severity: .warning, failing: update(["\"event\"": "\"state-date\": 1767229200, \"event\""]), passing: validUpdate, says: ["stale-date"]),
        Case(code: "null-value", path: "aps.content-state.startsAt", failing: update(["20}": "20, \"startsAt\": null}"]), passing: validUpdate, says: ["omit"]),
        Case(code: "payload-too-large", path: "$", failing: update(["\"open\"": "\"" + String(repeating: "x", count: 4100) + "\""]), passing: validUpdate),
        // Events and times
        Case(code: "missing-event", path: "aps.event", failing: update(["\"event\": \"update\",": ""]), passing: validUpdate),
        Case(code: "invalid-event", path: "aps.event", failing: update(["\"update\"": "\"Update\""]), passing: validUpdate, says: ["\"update\""]),
        Case(code: "missing-timestamp", path: "aps.timestamp", failing: update(["\"timestamp\": 1767225600,": ""]), passing: validUpdate),
        Case(code: "invalid-timestamp", path: "aps.timestamp", failing: update(["1767225600": "\"1767225600\""]), passing: validUpdate),
        Case(code: "timestamp-in-milliseconds", path: "aps.timestamp", failing: update(["1767225600": "1767225600000"]), passing: validUpdate, says: ["1767225600"]),
        Case(code: "timestamp-stale", path: "aps.timestamp", severity: .warning, failing: update(["1767225600": "1767220000"]), passing: validUpdate),
        Case(code: "timestamp-in-future", path: "aps.timestamp", severity: .warning, failing: update(["1767225600": "1767240000"]), passing: validUpdate),
        Case(code: "missing-content-state", path: "aps.content-state", failing: #"{"aps": {"timestamp": 1767225600, "event": "end"}}"#, passing: #"{"aps": {"timestamp": 1767225600, "event": "end", "content-state": {"phase": "done", "minutesLeft": 0}}}"#),
        Case(code: "dismissal-date-ignored", path: "aps.dismissal-date", severity: .warning, failing: update(["\"event\"": "\"dismissal-date\": 1767229200, \"event\""]), passing: update(["\"update\"": "\"end\"", "\"event\"": "\"dismissal-date\": 1767229200, \"event\""])),
        Case(code: "dismissal-date-reference-epoch", path: "aps.dismissal-date", severity: .warning,
             failing: update(["\"update\"": "\"end\"", "\"event\"": "\"dismissal-date\": 788922000, \"event\""]),
             passing: update(["\"update\"": "\"end\"", "\"event\"": "\"dismissal-date\": 1767229200, \"event\""]), says: ["1767229200"]),
        Case(code: "stale-date-in-past", path: "aps.stale-date", failing: start(["\"event\"": "\"stale-date\": 788918400, \"event\""]), passing: start(["\"event\"": "\"stale-date\": 1767229200, \"event\""]), says: ["978307200"]),
        Case(code: "custom-date-implausible", path: "aps.content-state.doorsAt", severity: .warning,
             failing: update(["20}": "20, \"doorsAt\": 1767225600}"]), passing: update(["20}": "20, \"doorsAt\": 1767225600000}"]),
             says: ["1767225600000", "looks like seconds"]),
        Case(code: "fcm-envelope-invalid", path: "message.apns", failing: #"{"message": {"apns": "x"}}"#,
             passing: #"{"message": {"apns": {"live_activity_token": "L", "headers": {"apns-priority": "10"}, "payload": "# + validUpdate + "}}}",
             says: ["message.apns.payload"]),
        Case(code: "fcm-missing-live-activity-token", path: "message.apns.live_activity_token",
             failing: #"{"message": {"apns": {"payload": "# + validUpdate + "}}}",
             passing: #"{"message": {"apns": {"live_activity_token": "L", "payload": "# + validUpdate + "}}}",
             says: ["ordinary notification"]),
        Case(code: "relevance-score-invalid", path: "aps.relevance-score", failing: update(["\"event\"": "\"relevance-score\": \"high\", \"event\""]), passing: update(["\"event\"": "\"relevance-score\": 75, \"event\""])),
        // Push-to-start
        Case(code: "missing-attributes-type", path: "aps.attributes-type", failing: start(["\"attributes-type\": \"KoraAttributes\",": ""]), passing: validStart),
        Case(code: "missing-attributes", path: "aps.attributes", failing: start(["\"attributes\": {\"eventID\": \"e1\", \"venue_name\": \"Hall B\"},": ""]), passing: validStart),
        Case(code: "attributes-type-mismatch", path: "aps.attributes-type", failing: start(["\"KoraAttributes\"": "\"koraAttributes\""]), passing: validStart, says: ["letter case", "KoraAttributes"]),
        Case(code: "missing-alert-for-start", path: "aps.alert", failing: start(["\"body\": \"Starts in 30\"": "\"subtitle\": \"x\""]), passing: validStart),
        Case(code: "silent-start", path: "aps.alert", severity: .warning,
             failing: start(["\"title\": \"Doors open\", \"body\": \"Starts in 30\"": "\"title\": \"\", \"body\": \"\""]),
             passing: validStart, says: ["without a visible alert"]),
        Case(code: "timestamp-not-integer", path: "aps.timestamp", severity: .warning,
             failing: update(["1767225600": "1767225600.437"]), passing: validUpdate, says: ["1767225600"]),
        Case(code: "unknown-header", path: "headers.apns-relevance-score", severity: .warning, failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders(validHeaders.fields.map { ($0.name, $0.value) } + [("apns-relevance-score", "10")]),
             passingHeaders: validHeaders, says: ["relevance-score"]),
        Case(code: "alert-incomplete", path: "aps.alert", severity: .warning, failing: update(["\"event\"": "\"alert\": {\"title\": \"Hi\"}, \"event\""]), passing: update(["\"event\"": "\"alert\": {\"title\": \"Hi\", \"body\": {\"loc-key\": \"K\", \"loc-args\": []}}, \"event\""])),
        Case(code: "misplaced-sound", path: "aps.sound", severity: .warning, failing: update(["\"event\"": "\"sound\": \"a.caf\", \"event\""]), passing: update(["\"event\"": "\"alert\": {\"title\": \"T\", \"body\": \"B\", \"sound\": \"a.caf\"}, \"event\""])),
        Case(code: "start-only-key", path: "aps.attributes-type", severity: .warning, failing: update(["\"event\"": "\"attributes-type\": \"KoraAttributes\", \"event\""]), passing: validUpdate),
        Case(code: "two-push-inputs", path: "aps.input-push-channel", failing: start(["\"event\"": "\"input-push-token\": 1, \"input-push-channel\": \"dHN0LTEyMw==\", \"event\""]), passing: start(["\"event\"": "\"input-push-token\": 1, \"event\""])),
        Case(code: "invalid-input-push-token", path: "aps.input-push-token", failing: start(["\"event\"": "\"input-push-token\": true, \"event\""]), passing: start(["\"event\"": "\"input-push-token\": 1, \"event\""])),
        Case(code: "invalid-input-push-channel", path: "aps.input-push-channel", failing: start(["\"event\"": "\"input-push-channel\": \"not base64!\", \"event\""]), passing: start(["\"event\"": "\"input-push-channel\": \"dHN0LTEyMw==\", \"event\""])),
        // Schema
        Case(code: "missing-required-key", path: "aps.attributes.venue_name", failing: start(["\"venue_name\"": "\"venueName\""]), passing: validStart, says: ["rename \"venueName\" to \"venue_name\""]),
        Case(code: "unknown-attribute-key", path: "aps.attributes.alert_title", failing: start(["\"Hall B\"}": "\"Hall B\", \"alert_title\": \"Doors open\"}"]), passing: validStart, says: ["aps.alert.title"]),
        Case(code: "unknown-content-state-key", path: "aps.content-state.minutes", severity: .warning, failing: update(["20}": "20, \"minutes\": 3}"]), passing: validUpdate),
        Case(code: "type-mismatch", path: "aps.content-state.minutesLeft", failing: update(["20}": "1.5}"]), passing: update(["20}": "2e1}"])),
        Case(code: "integer-out-of-range", path: "aps.attributes.seats", failing: start(["\"Hall B\"}": "\"Hall B\", \"seats\": 256}"]), passing: start(["\"Hall B\"}": "\"Hall B\", \"seats\": 255}"])),
        Case(code: "enum-value-invalid", path: "aps.content-state.level", failing: update(["20}": "20, \"level\": \"high\"}"]), passing: update(["20}": "20, \"level\": \"HIGH\"}"]), says: ["\"HIGH\""]),
        Case(code: "date-not-numeric", path: "aps.content-state.startsAt", failing: update(["20}": "20, \"startsAt\": \"2026-01-01T00:00:00Z\"}"]), passing: update(["20}": "20, \"startsAt\": 788918400}"]), says: ["788918400"]),
        Case(code: "date-not-reference-epoch", path: "aps.content-state.startsAt", failing: update(["20}": "20, \"startsAt\": 1767225600}"]), passing: update(["20}": "20, \"startsAt\": 788918400}"]), says: ["788918400"]),
        Case(code: "schema-unresolved", path: "aps.attributes.extra", severity: .info, failing: start(["\"Hall B\"}": "\"Hall B\", \"extra\": {\"lat\": 1}}"]), passing: validStart),
        // Headers
        Case(code: "missing-push-type", path: "headers.apns-push-type", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-topic", "com.example.kora.push-type.liveactivity")]), passingHeaders: validHeaders),
        Case(code: "wrong-push-type", path: "headers.apns-push-type", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "alert"), ("apns-topic", "com.example.kora.push-type.liveactivity")]), passingHeaders: validHeaders),
        Case(code: "missing-topic", path: "headers.apns-topic", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity")]), passingHeaders: validHeaders),
        Case(code: "wrong-topic-suffix", path: "headers.apns-topic", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora")]), passingHeaders: validHeaders,
             says: ["com.example.kora.push-type.liveactivity"]),
        Case(code: "invalid-priority", path: "headers.apns-priority", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-priority", "1")]), passingHeaders: validHeaders),
        Case(code: "expiration-zero-for-start", path: "headers.apns-expiration", severity: .warning, failing: validStart, passing: validStart,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-expiration", "0")]),
             passingHeaders: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-expiration", "1767226200")])),
        Case(code: "invalid-expiration", path: "headers.apns-expiration", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-expiration", "soon")]), passingHeaders: validHeaders),
        Case(code: "invalid-apns-id", path: "headers.apns-id", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-id", "123")]),
             passingHeaders: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-id", "6f1c2a9e-0000-4000-8000-000000000002")])),
        Case(code: "collapse-id-too-long", path: "headers.apns-collapse-id", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-collapse-id", String(repeating: "c", count: 65))]),
             passingHeaders: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.kora.push-type.liveactivity"), ("apns-collapse-id", String(repeating: "c", count: 64))])),
        Case(code: "start-via-broadcast", path: "aps.event", failing: validStart, passing: validUpdate, headers: broadcastHeaders, passingHeaders: broadcastHeaders),
        Case(code: "missing-channel-id", path: "headers.apns-channel-id", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), (":path", "/4/broadcasts/apps/com.example.kora"), ("apns-expiration", "0"), ("apns-priority", "10")]),
             passingHeaders: broadcastHeaders),
        Case(code: "missing-expiration", path: "headers.apns-expiration", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-channel-id", "dHN0LTEyMw=="), ("apns-priority", "10")]), passingHeaders: broadcastHeaders),
        Case(code: "missing-priority", path: "headers.apns-priority", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-channel-id", "dHN0LTEyMw=="), ("apns-expiration", "0")]), passingHeaders: broadcastHeaders),
        Case(code: "topic-on-broadcast", path: "headers.apns-topic", failing: validUpdate, passing: validUpdate,
             headers: APNsHeaders([("apns-push-type", "liveactivity"), ("apns-channel-id", "dHN0LTEyMw=="), ("apns-expiration", "0"), ("apns-priority", "10"), ("apns-topic", "com.example.kora")]),
             passingHeaders: broadcastHeaders),
    ]

    func check(_ text: String, headers: APNsHeaders?, strict: Bool = false) -> ValidationReport {
        Validator(schema: Self.schema, strict: strict).check(body: Array(text.utf8), headers: headers, nowUnixSeconds: Self.now)
    }

    func testEveryCodeHasAFailingAndAPassingInput() {
        for c in Self.cases {
            let failing = check(c.failing, headers: c.headers, strict: c.strict)
            let hit = failing.findings.first(where: { $0.code == c.code && $0.path == c.path })
            XCTAssertNotNil(hit, "\(c.code) @ \(c.path) not reported; got \(failing.findings.map { "\($0.code)@\($0.path)" })")
            XCTAssertEqual(hit?.severity, c.severity, "\(c.code) severity")
            XCTAssertFalse(hit?.message.isEmpty ?? true)
            if c.severity != .info { XCTAssertNotNil(hit?.fix, "\(c.code) has no fix") }
            for word in c.says {
                XCTAssertTrue((hit?.message ?? "").contains(word) || (hit?.fix ?? "").contains(word),
                              "\(c.code): '\(word)' not in \(hit?.message ?? "") / \(hit?.fix ?? "")")
            }
            if c.severity == .error { XCTAssertFalse(failing.accept, "\(c.code): failing input accepted") }
            let passing = check(c.passing, headers: c.passingHeaders ?? c.headers, strict: c.strict)
            XCTAssertFalse(passing.findings.contains(where: { $0.code == c.code }),
                           "\(c.code) raised on the passing input: \(passing.findings.filter { $0.code == c.code })")
            XCTAssertTrue(passing.accept, "\(c.code): passing input rejected: \(passing.errors.map { "\($0.code)@\($0.path)" })")
        }
    }

    func testEveryCatalogCodeIsCovered() {
        let covered = Set(Self.cases.map(\.code))
        for e in FindingCatalog.entries {
            XCTAssertTrue(covered.contains(e.code), "no rule test for \(e.code)")
        }
    }

    func testStrictMakesUnknownContentStateKeysErrors() {
        let text = Self.update(["20}": "20, \"minutes\": 3}"])
        XCTAssertTrue(check(text, headers: nil).accept)
        let strict = check(text, headers: nil, strict: true)
        XCTAssertFalse(strict.accept)
        XCTAssertEqual(strict.errors.first?.code, .unknownContentStateKey)
    }

    func testStaleDateInPastIsOnlyAWarningOnUpdate() {
        let r = check(Self.update(["\"event\"": "\"stale-date\": 1767220000, \"event\""]), headers: nil)
        XCTAssertEqual(r.findings.first(where: { $0.code == .staleDateInPast })?.severity, .warning)
        XCTAssertTrue(r.accept)
    }

    func testAllCausesInOneRunIncludingMisplacedContents() {
        // attributes at the root AND holding an alert-like key AND a wrong-case type: every cause is named.
        let text = """
        {"aps": {"timestamp": 1767225600, "event": "start", "content-state": {"phase": "open", "minutesLeft": 30}},
         "attributes-type": "koraattributes",
         "attributes": {"eventID": "e1", "venue_name": "Hall B", "alert_body": "Hi"}}
        """
        let r = check(text, headers: nil)
        let got = Set(r.findings.map { "\($0.code)@\($0.path)" })
        for want in ["attributes-outside-aps@attributes", "attributes-outside-aps@attributes-type",
                     "attributes-type-mismatch@attributes-type", "unknown-attribute-key@attributes.alert_body",
                     "missing-alert-for-start@aps.alert"] {
            XCTAssertTrue(got.contains(want), "missing \(want) in \(got.sorted())")
        }
        XCTAssertFalse(got.contains("missing-attributes@aps.attributes"), "a misplaced key is not also missing")
    }

    func testPositionsPointAtTheOffendingKey() throws {
        let text = Self.start(["\"Hall B\"}": "\"Hall B\",\n \"alert_title\": \"x\"}"])
        let f = try XCTUnwrap(check(text, headers: nil).findings.first(where: { $0.code == .unknownAttributeKey }))
        XCTAssertEqual(f.line, 5)
        XCTAssertEqual(f.column, 2)
    }

    func testKeyedEnumsAndAssociatedValues() {
        let good = Self.start(["\"Hall B\"}": "\"Hall B\", \"route\": {\"bus\": {\"line\": 12}}}"])
        XCTAssertTrue(check(good, headers: nil).accept)
        let bare = Self.start(["\"Hall B\"}": "\"Hall B\", \"route\": \"walk\"}"])
        let r = check(bare, headers: nil)
        XCTAssertEqual(r.errors.first?.code, .typeMismatch)
        XCTAssertTrue(r.errors.first?.fix?.contains("{\"walk\": {}}") ?? false)
        let missingField = Self.start(["\"Hall B\"}": "\"Hall B\", \"route\": {\"bus\": {}}}"])
        XCTAssertEqual(check(missingField, headers: nil).errors.first?.path, "aps.attributes.route.bus.line")
    }

    func testConditionalKeysAreNeitherRequiredNorUnknown() {
        let text = Self.start(["\"Hall B\"}": "\"Hall B\", \"debugTag\": \"x\"}"])
        XCTAssertTrue(check(text, headers: nil).findings.isEmpty)
    }

    func testUpdateWithSeveralTypesPicksTheOneThatFits() {
        var schema = Self.schema
        schema.types.insert(ActivityAttributesType(
            name: "Other", location: .init(file: "o.swift", line: 1),
            attributes: .object(StructShape(name: "Other", properties: [])),
            contentState: .object(StructShape(name: "ContentState", properties: [
                StoredProperty(name: "x", key: "x", shape: .bool, typeName: "Bool")]))), at: 0)
        let r = Validator(schema: schema).check(body: Array(Self.validUpdate.utf8), nowUnixSeconds: Self.now)
        XCTAssertTrue(r.findings.isEmpty, "\(r.findings)")
    }
}
