import XCTest
@testable import ActivityPushCore

/// One test per Swift feature the schema reader must handle, each on its own fixture in Fixtures/swift.
final class SchemaReaderFeatureTests: XCTestCase {
    private func type(_ fixture: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> ActivityAttributesType {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture(fixture)])
        return try XCTUnwrap(schema.type(named: name), "\(name) not found in \(fixture)", file: file, line: line)
    }

    private func shapes(_ shape: ValueShape) throws -> [String: String] {
        let object = try XCTUnwrap(shape.object, "expected an object, got \(shape.brief)")
        return Dictionary(uniqueKeysWithValues: object.properties.map { ($0.key, $0.shape.brief) })
    }

    func testCodingKeysRenameListAndOmit() throws {
        let t = try type("CodingKeys.swift", "DeliveryAttributes")
        XCTAssertEqual(try shapes(t.contentState), ["courier_name": "String", "eta": "Int", "stopsAway": "Int"])
        // lastRefresh is left out of CodingKeys: not decoded, not a key.
        XCTAssertNil(t.contentState.object?.properties.first { $0.name == "lastRefresh" })
        XCTAssertEqual(t.contentState.object?.properties.map(\.name), ["courierName", "etaMinutes", "stopsAway"])
        XCTAssertEqual(try shapes(t.attributes), ["order_id": "String", "storeName": "String"])
    }

    func testOptionalsMayBeOmitted() throws {
        let t = try type("Optionals.swift", "FlightAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        XCTAssertEqual(cs.properties.filter { !$0.isRequired }.map(\.key), ["gate", "delayMinutes", "boardingAt", "seat"])
        XCTAssertEqual(cs.properties.filter(\.isRequired).map(\.key), ["status"])
        XCTAssertEqual(try shapes(t.contentState)["delayMinutes"], "Int?")
        XCTAssertEqual(try shapes(t.contentState)["boardingAt"], "Date?")
        XCTAssertEqual(try shapes(t.attributes)["terminal"], "String?")
    }

    func testInitializersComputedLazyStaticObservers() throws {
        let t = try type("Initializers.swift", "RideAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        // let-with-value (schemaVersion), lazy, computed, static members are not keys; observers keep `score`.
        XCTAssertEqual(cs.properties.map(\.key),
                       ["driverName", "count", "ratio", "label", "isLate", "pickupID", "kind", "score"])
        XCTAssertTrue(cs.properties.allSatisfy(\.isRequired), "a var with an initial value is still required")
        XCTAssertEqual(try shapes(t.contentState),
                       ["driverName": "String", "count": "Int", "ratio": "Double", "label": "String", "isLate": "Bool",
                        "pickupID": "UUID", "kind": "String", "score": "Int"])
        // The class's `var createdAt = Date()` is inferred as Date; `class var` and `static func` are not keys.
        XCTAssertEqual(try shapes(t.attributes), ["rideID": "String", "createdAt": "Date"])
    }

    func testExtensionsAddConformanceContentStateAndNestedTypes() throws {
        let t = try type("Extensions.swift", "WorkoutAttributes")
        XCTAssertEqual(try shapes(t.attributes), ["workoutName": "String", "plannedMinutes": "Int"])
        XCTAssertEqual(try shapes(t.contentState),
                       ["heartRate": "Int", "zone": "enum WorkoutAttributes.ContentState.Zone", "elapsed": "TimeInterval"])
        XCTAssertEqual(t.contentState.object?.property(forKey: "zone")?.shape.enumeration?.cases.map(\.rawValue),
                       ["easy", "moderate", "hard"])
        let timer = try type("Extensions.swift", "KitchenTimerAttributes")
        XCTAssertEqual(try shapes(timer.contentState), ["remaining": "Int", "paused": "Bool"], "typealias ContentState = TimerState")
    }

    func testEnumsRawValuesAndKeyedForm() throws {
        let t = try type("Enums.swift", "TaskAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        func e(_ key: String) throws -> EnumShape { try XCTUnwrap(cs.property(forKey: key)?.shape.enumeration) }
        XCTAssertEqual(try e("phase").rawType, .string)
        XCTAssertEqual(try e("phase").cases.map(\.rawValue), ["queued", "in_progress", "done"])
        XCTAssertEqual(try e("priority").cases.map(\.rawValue), ["0", "5", "6", "7"], "implicit Int raw values continue after explicit ones")
        XCTAssertEqual(try e("level").rawType, .integer(IntegerKind.all["Int8"]!))
        XCTAssertEqual(try e("level").cases.map(\.rawValue), ["-1", "0", "1"])
        XCTAssertEqual(try e("ratio").rawType, .floating)
        XCTAssertEqual(try e("ratio").cases.map(\.rawValue), ["0.5", "1.0"])
        XCTAssertEqual(try e("mood").cases.map(\.rawValue), ["😌", "busy"])
        let step = try e("step")
        XCTAssertNil(step.rawType)
        XCTAssertEqual(step.cases.map(\.name), ["idle", "moving", "paused"])
        XCTAssertEqual(step.cases[1].associatedValues.map(\.key), ["speed", "heading"])
        XCTAssertEqual(step.cases[1].associatedValues.map(\.shape.brief), ["Double", "Int"])
        XCTAssertEqual(step.cases[2].associatedValues.map(\.key), ["_0", "_1"])
        XCTAssertTrue(step.cases[0].associatedValues.isEmpty)
    }

    func testTypealiases() throws {
        let t = try type("Typealiases.swift", "OvenAttributes")
        XCTAssertEqual(try shapes(t.contentState),
                       ["remaining": "Int", "temperature": "Double", "history": "[Double]", "label": "String",
                        "unit": "enum OvenAttributes.Unit"])
        XCTAssertEqual(try shapes(t.attributes), ["model": "String"])
    }

    func testCollections() throws {
        let t = try type("Collections.swift", "MatchdayAttributes")
        let s = try shapes(t.contentState)
        XCTAssertEqual(s["goals"], "[object Goal]")
        XCTAssertEqual(s["scorers"], "[String]")
        XCTAssertEqual(s["grid"], "[[Int]]")
        XCTAssertEqual(s["standings"], "[String: Int]")
        XCTAssertEqual(s["lookup"], "[String: [Double]]")
        XCTAssertEqual(s["tags"], "Set<String>")
        XCTAssertEqual(s["byMinute"], "[Int: String]")
        // A dictionary keyed by a plain enum is encoded as a flat array: not modelled, so unresolved.
        XCTAssertEqual(s["byTeam"], "unresolved")
    }

    func testPrimitivesEveryWidth() throws {
        let t = try type("Primitives.swift", "SensorAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        let expected = ["on": "Bool", "name": "String", "a": "Int", "b": "Int8", "c": "Int16", "d": "Int32",
                        "e": "Int64", "f": "UInt", "g": "UInt8", "h": "UInt16", "i": "UInt32", "j": "UInt64",
                        "k": "Double", "l": "Float", "m": "CGFloat", "n": "TimeInterval", "o": "Decimal", "at": "Date",
                        "link": "URL", "id": "UUID", "blob": "Data", "qualified": "Date", "swiftInt": "Int"]
        for (key, brief) in expected { XCTAssertEqual(cs.property(forKey: key)?.shape.brief, brief, key) }
        if case .integer(let k)? = cs.property(forKey: "b")?.shape { XCTAssertEqual(k.min, -128); XCTAssertEqual(k.maxUnsigned, 127) }
        else { XCTFail("Int8 expected") }
        // Character is not Codable in the standard library (checked with swiftc): not guessed.
        XCTAssertNotNil(cs.property(forKey: "initial")?.shape.unresolvedReason)
        XCTAssertEqual(try shapes(t.attributes), ["sensorID": "UUID"])
    }

    func testAttributesModifiersAndPropertyWrappers() throws {
        let t = try type("AttributesAndModifiers.swift", "ChargingAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        XCTAssertEqual(cs.properties.map(\.key), ["percent", "target", "chargerName", "watts"])
        // Changed deliberately (issue 13, item 4): a wrapper declared in the files decodes as its own type.
        XCTAssertEqual(cs.property(forKey: "target")?.shape.brief, "object Clamped", "property wrapper")
        XCTAssertEqual(try shapes(t.attributes), ["stationName": "String", "stationID": "String"])
        let meter = try type("AttributesAndModifiers.swift", "ParkingMeterAttributes")
        XCTAssertEqual(try shapes(meter.contentState), ["extra": "object SpelledOut"], "Decodable, Encodable spelling")
    }

    func testCommentsAndStringsWithBraces() throws {
        let t = try type("CommentsAndStrings.swift", "NoteAttributes")
        XCTAssertEqual(t.contentState.object?.properties.map(\.key), ["title", "body", "count"])
        XCTAssertEqual(t.attributes.object?.properties.map(\.key), ["author", "folder"])
    }

    func testConditionalCompilationKeys() throws {
        let t = try type("Conditional.swift", "StreamAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        XCTAssertEqual(cs.properties.map(\.key), ["viewers", "title"])
        XCTAssertEqual(cs.conditionalKeys, ["pipActive", "windowCount", "fallback"])
        XCTAssertEqual(t.attributes.object?.conditionalKeys, ["debugTag"])
        XCTAssertEqual(t.attributes.object?.properties.map(\.key), ["channel"])
    }

    func testSeveralTypesInOneFileAndRefinedProtocol() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("MultipleTypes.swift")])
        XCTAssertEqual(schema.types.map(\.name), ["PickupAttributes", "ReturnAttributes", "LoyaltyAttributes"])
        XCTAssertEqual(schema.type(named: "ReturnAttributes")?.attributes.object?.properties.map(\.key), ["shop"],
                       "computed `id` is not a key")
        XCTAssertEqual(schema.type(named: "LoyaltyAttributes")?.contentState.object?.properties.map(\.key), ["points"])
    }

    func testUnresolvedIsNeverGuessed() throws {
        let t = try type("Unresolved.swift", "TrackerAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        XCTAssertTrue(cs.property(forKey: "where_")?.shape.unresolvedReason?.contains("none of the files") == true)
        XCTAssertTrue(cs.property(forKey: "boxed")?.shape.unresolvedReason?.contains("generic") == true)
        // Changed deliberately (issue 13, item 4): a single-value init(from:) (here in an extension) is read.
        XCTAssertEqual(cs.property(forKey: "custom")?.shape.brief, "Int", "single-value init(from:) declared in an extension")
        XCTAssertTrue(cs.property(forKey: "derived")?.shape.unresolvedReason?.contains("subclasses") == true)
        XCTAssertEqual(cs.property(forKey: "pair")?.shape.brief, "unresolved")
        XCTAssertEqual(cs.property(forKey: "inferred")?.shape.brief, "unresolved")
        let tree = try XCTUnwrap(cs.property(forKey: "tree")?.shape.object)
        guard case .array(let element)? = tree.property(forKey: "children")?.shape else { return XCTFail("array expected") }
        XCTAssertTrue(element.unresolvedReason?.contains("recursive") == true)
    }

    /// Only single-value decoders whose meaning is certain are read; arithmetic, fallbacks and conversions are
    /// unresolved with the reason (README: "never guessed").
    func testCustomDecodersAreReadExactlyOrUnresolved() throws {
        let t = try type("GuessedDecoders.swift", "GuessAttributes")
        let cs = try XCTUnwrap(t.contentState.object)
        for key in ["slash", "times", "exp"] {
            guard case .customDate(.unixMilliseconds, _)? = cs.property(forKey: key)?.shape else {
                XCTFail("\(key): ÷ 1000 of timeIntervalSince1970 is UNIX milliseconds, got \(cs.property(forKey: key)?.shape.brief ?? "nothing")")
                continue
            }
        }
        let expected = ["refMillis": "milliseconds since 2001", "shifted": "arithmetic (`+ 978307200`)",
                        "stringNumber": "`??`", "lenient": "`try?`", "day": "calls `DateFormatter(…)`"]
        for (key, why) in expected {
            let reason = cs.property(forKey: key)?.shape.unresolvedReason ?? ""
            XCTAssertTrue(reason.contains(why), "\(key) must be unresolved because of \(why), got \(cs.property(forKey: key)?.shape.brief ?? "nothing") \(reason)")
        }
    }

    /// Per-case CodingKeys rename a keyed enum's associated values; messages name Swift types as written (QA item 2).
    func testPerCaseCodingKeysAndSwiftSpellingInMessages() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("QAAgreement.swift")])
        let lamp = try XCTUnwrap(schema.type(named: "LampAttributes"))
        let body = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {"light": {"blinking": {"rate": 2, "times": 3}}, "since": 1767225600000, "until": 1767225600000, "at": "2026-01-01T00:00:00.5Z", "integerMillis": 1767225600000}}}"#
        let report = Validator(schema: ActivitySchema(types: [lamp], files: [])).check(body: Array(body.utf8), nowUnixSeconds: 1_767_225_600)
        let missing = try XCTUnwrap(report.errors.first { $0.code.rawValue == "missing-required-key" && $0.path.hasPrefix("aps.content-state.light") })
        XCTAssertEqual(missing.path, "aps.content-state.light.blinking.hz")
        let text = missing.message + " " + (missing.fix ?? "")
        XCTAssertTrue(text.contains(": Double)") && !text.contains("floating(") && !text.contains("IntegerKind"), text)
        // The fix names the Swift label and the JSON key, and a payload that sends the label is told to rename it.
        XCTAssertTrue(missing.message.contains("Light.blinking.rate: Double"), missing.message)
        XCTAssertEqual(missing.fix, "rename \"rate\" to \"hz\" (CodingKeys encode rate as \"hz\"; keys must match exactly; no snake_case conversion)")
        let withoutRate = body.replacingOccurrences(of: #""rate": 2, "#, with: "")
        let bare = Validator(schema: ActivitySchema(types: [lamp], files: [])).check(body: Array(withoutRate.utf8), nowUnixSeconds: 1_767_225_600)
        let missingBare = try XCTUnwrap(bare.errors.first { $0.code.rawValue == "missing-required-key" && $0.path.hasPrefix("aps.content-state.light") })
        XCTAssertEqual(missingBare.fix, "send \"hz\" (Double, the JSON key of rate), or make rate Optional in the app")
        // The schema description keeps the label (check --schema reads it back).
        let light = try XCTUnwrap(ActivitySchemaDescription.read(ActivitySchemaDescription.json(schema)).type(named: "LampAttributes"))
        guard case .enumeration(let lightEnum)? = light.contentState.object?.property(forKey: "light")?.shape.unwrapped else { return XCTFail("light") }
        XCTAssertEqual(lightEnum.cases.first { $0.name == "blinking" }?.associatedValueLabels, ["rate", "times"])
        XCTAssertEqual(lightEnum.cases.first { $0.name == "blinking" }?.associatedValues.map(\.key), ["hz", "times"])
        // ISO 8601 with .withFractionalSeconds requires the fraction; an Int64 millisecond date keeps Int64's rules.
        let cs = try XCTUnwrap(lamp.contentState.object)
        XCTAssertEqual(cs.property(forKey: "at")?.shape.brief, "Date(iso8601 fractional)")
        XCTAssertEqual(cs.property(forKey: "integerMillis")?.shape.brief, "Date(unix-milliseconds Int64)")
        // Extension of the content state through its typealias: its CodingKeys apply.
        // Float16 raw enums take the keyed form; Decimal's range and UInt8-keyed flat arrays are judged (QA 13, 14).
        let edges = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {"light": {"off": {}}, "since": 1767225600000, "until": 1767225600000, "at": "2026-01-01T00:00:00.5Z", "integerMillis": 1767225600000, "edges": {"amount": 1e300, "bytes": [256, "a"], "step": 0.5, "tier": 18446744073709551615, "speed": 0.10000000149011612}}}}"#
        let edgeReport = Validator(schema: ActivitySchema(types: [lamp], files: [])).check(body: Array(edges.utf8), nowUnixSeconds: 1_767_225_600)
        XCTAssertEqual(edgeReport.errors.map { "\($0.code)@\($0.path)" },
                       ["type-mismatch@aps.content-state.edges.amount", "integer-out-of-range@aps.content-state.edges.bytes.0",
                        "type-mismatch@aps.content-state.edges.step"])
        let score = try XCTUnwrap(schema.type(named: "ScoreAttributes")?.contentState.object)
        XCTAssertEqual(score.properties.map(\.key), ["home", "away"])
    }

    /// A `KeyedDecodingContainer.decode(_: X.Type, forKey:)` overload makes X-typed properties unresolved and never
    /// required (QA item 5): an absent `count` decodes (the overload's default).
    func testKeyedDecodingContainerOverloadIsNotRequired() throws {
        let t = try type("DecodeOverload.swift", "DefaultsAttributes")
        let count = try XCTUnwrap(t.contentState.object?.property(forKey: "count"))
        XCTAssertFalse(count.isRequired)
        XCTAssertTrue(count.shape.unwrapped.unresolvedReason?.contains("overloads KeyedDecodingContainer.decode(_: DefaultZero.Type") == true,
                      count.shape.unwrapped.unresolvedReason ?? "resolved")
        let body = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {"p": {"wrappedValue": 1}}}}"#
        let report = Validator(schema: ActivitySchema(types: [t], files: [])).check(body: Array(body.utf8), nowUnixSeconds: 1_767_225_600)
        XCTAssertEqual(report.errors.map(\.code.rawValue), [])
    }

    /// `extension ([Player])` (a parenthesised type) is the type itself, as swiftc reads it (QA item 15).
    func testParenthesisedExtendedType() throws {
        let schema = try SchemaTestSupport.read("""
        struct Player: Codable, Hashable { var name: String }
        extension ([Player]) { var names: [String] { map(\\.name) } }
        extension ((Player)) { var upper: String { name.uppercased() } }
        struct GameAttributes: ActivityAttributes { struct ContentState: Codable, Hashable { var players: [Player] } }
        """)
        XCTAssertEqual(try shapes(try XCTUnwrap(schema.type(named: "GameAttributes")).contentState), ["players": "[object Player]"])
        XCTAssertThrowsError(try SchemaTestSupport.read("extension (Player, Player) {}\nstruct A: ActivityAttributes { struct ContentState: Codable, Hashable {} }"))
    }

    func testCustomDecoderOnContentStateC09() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.cases.appendingPathComponent("C09").path])
        let t = try XCTUnwrap(schema.type(named: "TimerAttributes"))
        guard case .unresolved(let name, let reason) = t.contentState else { return XCTFail("C09 content-state must be unresolved") }
        XCTAssertEqual(name, "TimerAttributes.ContentState")
        XCTAssertTrue(reason.contains("init(from:)"))
        XCTAssertEqual(t.attributes.object?.properties.map(\.key), ["tag"])
    }

    func testInlineSpellings() throws {
        let schema = try SchemaTestSupport.read("""
        import ActivityKit
        struct A: ActivityKit.ActivityAttributes {
            struct ContentState: Codable & Hashable { var a, b: Int; var c: [String]? ; var `default`: Bool }
            var x: Array<Int>, y: Dictionary<String, URL>
            var notCodableKey: Int { get { 1 } set { } }
        }
        struct Outer { struct Inner: Codable { var v: Int } }
        struct B: ActivityAttributes {
            typealias ContentState = Outer.Inner
            let fixed: Int = 3
            var later: Outer.Inner
        }
        struct NoState: ActivityAttributes { var z: Int }
        """)
        let a = try XCTUnwrap(schema.type(named: "A"))
        XCTAssertEqual(try shapes(a.contentState), ["a": "Int", "b": "Int", "c": "[String]?", "default": "Bool"])
        XCTAssertEqual(try shapes(a.attributes), ["x": "[Int]", "y": "[String: URL]"])
        let b = try XCTUnwrap(schema.type(named: "B"))
        XCTAssertEqual(try shapes(b.contentState), ["v": "Int"])
        XCTAssertEqual(try shapes(b.attributes), ["later": "object Outer.Inner"])
        let none = try XCTUnwrap(schema.type(named: "NoState"))
        XCTAssertTrue(none.contentState.unresolvedReason?.contains("no ContentState") == true)
        XCTAssertEqual(schema.type(named: "A")?.location.line, 2)
    }

    func testLocationsNameFileAndLine() throws {
        let path = SchemaTestSupport.fixture("Optionals.swift")
        let t = try type("Optionals.swift", "FlightAttributes")
        XCTAssertEqual(t.location, SwiftSourceLocation(file: path, line: 4))
        XCTAssertEqual(t.contentState.object?.property(forKey: "gate")?.location, SwiftSourceLocation(file: path, line: 6))
        XCTAssertEqual(t.contentState.object?.property(forKey: "gate")?.typeName, "String?")
    }

    func testLarge500ReadsEveryType() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.fixture("Large500.swift")])
        XCTAssertEqual(schema.types.map(\.name),
                       ["FoodOrderAttributes", "RideAttributes", "MatchAttributes", "ParcelAttributes", "WorkoutAttributes"])
        let food = try XCTUnwrap(schema.type(named: "FoodOrderAttributes"))
        XCTAssertEqual(food.attributes.object?.properties.map(\.key),
                       ["order_id", "restaurant_name", "restaurant_logo", "total", "placed_at", "items"])
        XCTAssertEqual(food.contentState.object?.property(forKey: "urgency")?.shape.enumeration?.cases.map(\.rawValue),
                       ["0", "1", "10", "11"])
        let ride = try XCTUnwrap(schema.type(named: "RideAttributes"))
        XCTAssertEqual(ride.contentState.object?.conditionalKeys, ["debugTrace"])
        XCTAssertEqual(ride.contentState.object?.property(forKey: "banner")?.shape.brief, "String?", "didSet keeps it stored")
    }
}
