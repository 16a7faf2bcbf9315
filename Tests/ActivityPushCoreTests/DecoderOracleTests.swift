import Foundation
import XCTest
@testable import ActivityPushCore

/// The real decoder as the test oracle. Every fixture type (`Fixtures/swift`, `Fixtures/units`, `Fixtures/cases`) is compiled with
/// `swiftc` against a stand-in `ActivityAttributes` protocol, in one harness (`Fixtures/oracle/OracleHarness.swift`)
/// for all of them. From the schema the reader produced, the test writes a valid `content-state` and `attributes`
/// and a battery of mutations (each required key dropped, each optional dropped, wrong JSON kinds, `null`, extra
/// keys, ISO and UNIX dates, bad enum values, out-of-range integers at both ends, fractions and exponents for
/// integers, float overflow and underflow, non-objects for types that store nothing), decodes each with
/// `JSONDecoder`, and requires `check`'s verdict to agree — except where the device is stricter than the decoder,
/// as the spec documents (``stricterDeviceRules``). It also re-encodes each decoded valid value and requires the
/// schema's keys among the encoded ones.
final class DecoderOracleTests: XCTestCase {
    /// Codes where `check` rejects what `JSONDecoder` accepts, on purpose (spec §0 and findings.md): unknown keys in
    /// `attributes` reject the whole start on the device; `null` is refused even for an optional; a `Date` in UNIX
    /// seconds decodes, 31 years late; ActivityKit refuses data over 4 KB.
    static let stricterDeviceRules: Set<String> = ["unknown-attribute-key", "null-value", "date-not-reference-epoch", "payload-too-large"]

    /// Files that cannot be compiled on their own here, with the reason (they test the reader's `unresolved` paths).
    static let notCompilable: [String: String] = [
        "Primitives.swift": "declares a Character property, which is not Codable (the reader reports it unresolved)",
        "Unresolved.swift": "imports CoreLocation, which Linux does not have",
    ]

    private struct Group {
        var id: String
        var files: [String]
        var schema: ActivitySchema
    }

    private struct Request {
        var entry: String
        var json: String
        var label: String
        var type: ActivityAttributesType
        var region: String  // "content-state" or "attributes"
        var isValidInstance: Bool
        var expectedKeys: [String]
    }

    func testCheckAgreesWithTheRealDecoderOnEveryFixtureType() throws {
        guard let swiftc = SchemaTestSupport.which("swiftc") else { throw XCTSkip("swiftc is not on PATH") }
        let groups = try fixtureGroups()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("decoder-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // Names declared at the top level of more than one group are renamed per group (`Name__g3`), so all
        // groups compile into one module.
        var declaredBy: [String: Set<String>] = [:]
        var texts: [String: [(String, String)]] = [:]
        for g in groups {
            var list: [(String, String)] = []
            for f in g.files {
                let text = try String(contentsOfFile: f, encoding: .utf8)
                list.append((f, text))
                for name in Self.topLevelNames(text) { declaredBy[name, default: []].insert(g.id) }
            }
            texts[g.id] = list
        }
        let colliding = Set(declaredBy.filter { $0.value.count > 1 }.keys)
        var sources: [URL] = []
        var entries: [String] = []
        var requests: [Request] = []
        var skipped: [String] = []
        for g in groups {
            let local = colliding.filter { declaredBy[$0]?.contains(g.id) ?? false }
            for (index, (_, text)) in (texts[g.id] ?? []).enumerated() {
                // The stand-in protocol replaces ActivityKit (`#if canImport(ActivityKit)` holds as on the device).
                var out = text.replacingOccurrences(of: #"(?m)^\s*import\s+ActivityKit\s*$"#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: "canImport(ActivityKit)", with: "true")
                for name in local {
                    out = out.replacingOccurrences(of: "\\b\(name)\\b", with: "\(name)__\(g.id)", options: .regularExpression)
                }
                let url = work.appendingPathComponent("\(g.id)_\(index).swift")
                try out.write(to: url, atomically: true, encoding: .utf8)
                sources.append(url)
            }
            let topLevel = Set((texts[g.id] ?? []).flatMap { Self.topLevelNames($0.1) })
            for type in g.schema.types {
                guard topLevel.contains(type.name) else { skipped.append("\(g.id) \(type.name): not declared at the top level"); continue }
                let swiftName = local.contains(type.name) ? "\(type.name)__\(g.id)" : type.name
                let csEntry = "\(g.id).\(type.name).cs"
                let atEntry = "\(g.id).\(type.name).at"
                entries.append("  \"\(csEntry)\": { try OracleHarness.roundTrip(\(swiftName).ContentState.self, $0) },")
                entries.append("  \"\(atEntry)\": { try OracleHarness.roundTrip(\(swiftName).self, $0) },")
                for (region, shape, entry) in [("content-state", type.contentState, csEntry), ("attributes", type.attributes, atEntry)] {
                    guard let valid = Generator.valid(shape), region == "content-state" || Generator.valid(type.contentState) != nil else {
                        skipped.append("\(g.id) \(type.name) \(region): holds an unresolved type")
                        continue
                    }
                    var generator = Generator()
                    generator.mutations(shape, valid: valid)
                    requests.append(Request(entry: entry, json: valid, label: "valid", type: type, region: region,
                                            isValidInstance: true, expectedKeys: Generator.keys(shape)))
                    for m in generator.results.prefix(400) {
                        requests.append(Request(entry: entry, json: m.json, label: m.label, type: type, region: region,
                                                isValidInstance: false, expectedKeys: []))
                    }
                }
            }
        }
        let stub = work.appendingPathComponent("stub.swift")
        try "import Foundation\nprotocol ActivityAttributes: Codable { associatedtype ContentState: Codable & Hashable }\n"
            .write(to: stub, atomically: true, encoding: .utf8)
        let main = work.appendingPathComponent("main.swift")
        try ("import Foundation\nlet table: [String: (Data) throws -> Data] = [\n" + entries.joined(separator: "\n") + "\n]\nOracleHarness.run(table)\n")
            .write(to: main, atomically: true, encoding: .utf8)
        let harness = SchemaTestSupport.repository.appendingPathComponent("Fixtures/oracle/OracleHarness.swift")
        let executable = work.appendingPathComponent("oracle")
        let compile = try SchemaTestSupport.run(swiftc, ["-Onone", "-module-name", "Oracle", "-o", executable.path, stub.path, harness.path, main.path]
                                                + sources.map(\.path))
        guard compile.status == 0 else {
            return XCTFail("swiftc could not compile the fixture types: \(compile.err.split(separator: "\n").filter { $0.contains("error:") }.prefix(30).joined(separator: "\n"))")
        }

        let input = work.appendingPathComponent("requests.txt")
        try requests.map { $0.entry + "\t" + $0.json }.joined(separator: "\n").appending("\n").write(to: input, atomically: true, encoding: .utf8)
        let answers = try runHarness(executable.path, input: input)
        XCTAssertEqual(answers.count, requests.count, "the harness answered \(answers.count) of \(requests.count) requests")

        var disagreements: [String] = []
        var stricter: [String: Int] = [:]
        var agreed = 0
        for (request, answer) in zip(requests, answers) {
            XCTAssertFalse(answer.hasPrefix("error\tunknown-entry"), answer)
            let decoded = answer.hasPrefix("ok\t")
            let report = check(request)
            // Only what is said about the region judged (the rest of the payload is a fixed valid frame).
            let regionPath = "aps." + request.region
            let errors = Set(report.errors.filter { $0.path == "$" || $0.path == regionPath || $0.path.hasPrefix(regionPath + ".") }
                .map(\.code.rawValue))
            let accepted = errors.isEmpty
            if decoded == accepted {
                agreed += 1
            } else if decoded, !errors.isEmpty, errors.isSubset(of: Self.stricterDeviceRules) {
                for code in errors { stricter[code, default: 0] += 1 }
            } else {
                disagreements.append("\(request.entry) \(request.region) [\(request.label)] \(request.json.prefix(160)) — decoder: \(decoded ? "ok" : String(answer.prefix(160))); check: \(accepted ? "accept" : errors.sorted().joined(separator: ","))")
            }
            if request.isValidInstance {
                XCTAssertTrue(decoded, "\(request.entry): the valid instance does not decode: \(answer.prefix(300)) — \(request.json.prefix(300))")
                if decoded, let data = answer.dropFirst(3).data(using: .utf8),
                   let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                    let encoded = Set(object.keys)
                    let missing = Set(request.expectedKeys).subtracting(encoded)
                    XCTAssertTrue(missing.isEmpty, "\(request.entry): re-encoded keys \(encoded.sorted()) lack the schema's \(missing.sorted())")
                }
            }
        }
        XCTAssertTrue(disagreements.isEmpty, "\(disagreements.count) disagreements with JSONDecoder:\n" + disagreements.prefix(40).joined(separator: "\n"))
        XCTAssertGreaterThan(requests.count, 1000, "too few payloads; is the fixture set there?")
        print("decoder oracle: \(requests.count) payloads over \(groups.count) groups; agreed \(agreed), stricter device rules \(stricter.sorted { $0.key < $1.key }), skipped \(skipped.count): \(skipped.joined(separator: "; "))")
    }

    // MARK: check side

    private func check(_ request: Request) -> ValidationReport {
        let schema = ActivitySchema(types: [request.type], files: [])
        let body: String
        if request.region == "content-state" {
            body = #"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": "# + request.json + "}}"
        } else {
            let cs = Generator.valid(request.type.contentState) ?? "{}"
            body = #"{"aps": {"timestamp": 1767225600, "event": "start", "attributes-type": ""# + request.type.name
                + #"", "attributes": "# + request.json + #", "content-state": "# + cs + #", "alert": {"title": "t", "body": "b"}}}"#
        }
        return Validator(schema: schema).check(body: Array(body.utf8), nowUnixSeconds: 1_767_225_600)
    }

    // MARK: fixtures

    private func fixtureGroups() throws -> [Group] {
        var groups: [Group] = []
        var n = 0
        for file in SwiftSourceReader.swiftFiles(below: SchemaTestSupport.swiftFixtures.path).sorted()
        where Self.notCompilable[(file as NSString).lastPathComponent] == nil {
            n += 1
            groups.append(Group(id: "g\(n)", files: [file], schema: try SwiftSourceReader.read(paths: [file])))
        }
        // Declared units (Fixtures/units/activity-push.units) against the app's own decoders.
        n += 1
        let units = SchemaTestSupport.repository.appendingPathComponent("Fixtures/units").path
        groups.append(Group(id: "g\(n)", files: SwiftSourceReader.swiftFiles(below: units), schema: try SwiftSourceReader.read(paths: [units])))
        for folder in try FixturePaths.caseFolders() {
            let files = SwiftSourceReader.swiftFiles(below: folder.path)
            guard !files.isEmpty else { continue }
            n += 1
            groups.append(Group(id: "g\(n)", files: files, schema: try SwiftSourceReader.read(paths: files)))
        }
        return groups
    }

    static func topLevelNames(_ text: String) -> [String] {
        let pattern = #"(?m)^(?:(?:public|internal|fileprivate|private|final|indirect|package)\s+)*(?:struct|enum|class|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } }
    }

    private func runHarness(_ executable: String, input: URL) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.standardInput = try FileHandle(forReadingFrom: input)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "the harness stopped (a trap in the decoder?)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    // MARK: payloads from a schema

    struct Generator {
        struct Mutation { var label: String; var json: String }
        var results: [Mutation] = []

        /// A valid JSON text for `shape`, or nil when it holds an unresolved type that must be present.
        static func valid(_ shape: ValueShape, depth: Int = 0) -> String? {
            guard depth < 12 else { return nil }
            switch shape {
            case .bool: return "true"
            case .string: return #""s""#
            case .character: return #""c""#
            case .integer(let kind): return kind.min < 0 ? "-3" : "3"
            case .floating: return "1.5"
            case .date: return "788918400"
            case .customDate(let e, let decoding):
                switch e {
                case .iso8601 where decoding.fractionalSeconds: return #""2026-01-01T00:00:00.250Z""#
                case .referenceSeconds: return "788918400"
                case .unixSeconds: return "1767225600"
                case .unixMilliseconds: return "1767225600000"
                case .iso8601: return #""2026-01-01T00:00:00Z""#
                }
            case .url: return #""https://example.com/a""#
            case .uuid: return #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#
            case .data: return #""AAEC""#
            case .array(let e), .set(let e): return valid(e, depth: depth + 1).map { "[\($0)]" }
            case .dictionary(let key, let value):
                guard let v = valid(value, depth: depth + 1) else { return nil }
                // Keys that are not String / Int (CodingKeyRepresentable) encode as a flat array [key, value, …].
                if isFlatArrayKey(key) { return valid(key, depth: depth + 1).map { "[\($0), \(v)]" } }
                return "{\(dictionaryKey(key)): \(v)}"
            case .optional(let inner): return valid(inner, depth: depth + 1)
            case .object(let s):
                if s.decodesFromAnyValue && s.properties.isEmpty { return "{}" }
                var parts: [String] = []
                for p in s.properties {
                    guard let v = valid(p.shape, depth: depth + 1) else {
                        if p.shape.isOptional { continue }
                        return nil
                    }
                    parts.append("\(JSONWriter.quoted(p.key)): \(v)")
                }
                return "{" + parts.joined(separator: ", ") + "}"
            case .enumeration(let e):
                guard let first = e.cases.first else { return nil }
                if e.rawType == .string { return JSONWriter.quoted(first.rawValue ?? first.name) }
                if e.rawType != nil { return first.rawValue }
                guard let payload = valid(.object(fields(first)), depth: depth + 1) else { return nil }
                return "{\(JSONWriter.quoted(first.key)): \(payload)}"
            case .unresolved: return nil
            }
        }

        /// A dictionary key type that is not `CodingKeyRepresentable` (an integer other than `Int`): a flat array.
        static func isFlatArrayKey(_ key: ValueShape) -> Bool {
            if case .integer(let kind) = key.unwrapped { return kind.name != "Int" }
            return false
        }

        static func dictionaryKey(_ key: ValueShape) -> String {
            switch key.unwrapped {
            case .integer: return #""1""#
            case .enumeration(let e): return JSONWriter.quoted(e.cases.first?.rawValue ?? e.cases.first?.name ?? "k")
            default: return #""k""#
            }
        }

        static func fields(_ c: EnumShape.Case) -> StructShape {
            StructShape(name: c.name, properties: c.associatedValues.map {
                StoredProperty(name: $0.key, key: $0.key, shape: $0.shape, typeName: "")
            })
        }

        /// The JSON keys a valid instance's encoding carries at the top level (optionals included, as generated).
        static func keys(_ shape: ValueShape) -> [String] {
            guard case .object(let s) = shape.unwrapped else { return [] }
            return s.properties.filter { valid($0.shape) != nil }.map(\.key)
        }

        /// Every mutation of the value `valid` of `shape`, as whole JSON texts of that value.
        mutating func mutations(_ shape: ValueShape, valid: String, depth: Int = 0) {
            guard depth < 6 else { return }
            for (label, text) in Self.localMutations(shape) { results.append(Mutation(label: label, json: text)) }
            switch shape {
            case .optional(let inner):
                mutations(inner, valid: valid, depth: depth)
            case .array(let e), .set(let e):
                guard let element = Self.valid(e) else { return }
                var inner = Generator()
                inner.mutations(e, valid: element, depth: depth + 1)
                for m in inner.results { results.append(Mutation(label: "[0] " + m.label, json: "[\(m.json)]")) }
                results.append(Mutation(label: "empty array", json: "[]"))
            case .dictionary(let key, let value) where Self.isFlatArrayKey(key):
                guard let v = Self.valid(value), let k = Self.valid(key) else { return }
                var keys = Generator()
                keys.mutations(key, valid: k, depth: depth + 1)
                for m in keys.results { results.append(Mutation(label: "[key] " + m.label, json: "[\(m.json), \(v)]")) }
                var values = Generator()
                values.mutations(value, valid: v, depth: depth + 1)
                for m in values.results { results.append(Mutation(label: "[value] " + m.label, json: "[\(k), \(m.json)]")) }
                results.append(Mutation(label: "key without value", json: "[\(k), \(v), \(k)]"))
                results.append(Mutation(label: "object for a flat-array dictionary", json: "{\"1\": \(v)}"))
            case .dictionary(let key, let value):
                guard let v = Self.valid(value) else { return }
                var inner = Generator()
                inner.mutations(value, valid: v, depth: depth + 1)
                for m in inner.results { results.append(Mutation(label: "[k] " + m.label, json: "{\(Self.dictionaryKey(key)): \(m.json)}")) }
                if case .integer = key.unwrapped { results.append(Mutation(label: "non-integer key", json: "{\"x\": \(v)}")) }
                if case .enumeration = key.unwrapped {
                    results.append(Mutation(label: "key not a raw value", json: "{\"notACase\": \(v)}"))
                    results.append(Mutation(label: "second key not a raw value", json: "{\(Self.dictionaryKey(key)): \(v), \"9\": \(v)}"))
                }
            case .object(let s):
                objectMutations(s, depth: depth)
            case .enumeration(let e) where e.rawType == nil:
                guard let first = e.cases.first, let payload = Self.valid(.object(Self.fields(first))) else { return }
                let key = JSONWriter.quoted(first.key)
                results.append(Mutation(label: "unknown case key", json: #"{"zz_not_a_case": {}}"#))
                results.append(Mutation(label: "extra key beside the case", json: "{\(key): \(payload), \"zz_extra\": {}}"))
                results.append(Mutation(label: "no key", json: "{}"))
                results.append(Mutation(label: "case value not an object", json: "{\(key): 1}"))
                if e.cases.count > 1, let second = Self.valid(.object(Self.fields(e.cases[1]))) {
                    results.append(Mutation(label: "two case keys", json: "{\(key): \(payload), \(JSONWriter.quoted(e.cases[1].key)): \(second)}"))
                }
                for c in e.cases.dropFirst().prefix(3) {
                    if let p = Self.valid(.object(Self.fields(c))) { results.append(Mutation(label: "case \(c.name)", json: "{\(JSONWriter.quoted(c.key)): \(p)}")) }
                }
                var inner = Generator()
                inner.objectMutations(Self.fields(first), depth: depth + 1)
                for m in inner.results { results.append(Mutation(label: "\(first.key): " + m.label, json: "{\(key): \(m.json)}")) }
            default:
                break
            }
        }

        /// Each property dropped, set to null, mutated in place; an extra key.
        mutating func objectMutations(_ s: StructShape, depth: Int) {
            var present: [(StoredProperty, String)] = []
            for p in s.properties { if let v = Self.valid(p.shape) { present.append((p, v)) } }
            func render(_ replaced: Int?, with text: String?) -> String {
                var parts: [String] = []
                for (i, (p, v)) in present.enumerated() {
                    if i == replaced {
                        guard let text else { continue }
                        parts.append("\(JSONWriter.quoted(p.key)): \(text)")
                    } else {
                        parts.append("\(JSONWriter.quoted(p.key)): \(v)")
                    }
                }
                return "{" + parts.joined(separator: ", ") + "}"
            }
            for (i, (p, v)) in present.enumerated() {
                results.append(Mutation(label: "\(p.key) dropped", json: render(i, with: nil)))
                results.append(Mutation(label: "\(p.key) null", json: render(i, with: "null")))
                var inner = Generator()
                inner.mutations(p.shape, valid: v, depth: depth + 1)
                for m in inner.results.prefix(60) { results.append(Mutation(label: "\(p.key): " + m.label, json: render(i, with: m.json))) }
            }
            if !s.decodesFromAnyValue || !present.isEmpty {
                let base = render(nil, with: nil)
                results.append(Mutation(label: "extra key", json: base == "{}" ? #"{"zz_extra": 1}"# : String(base.dropLast()) + #", "zz_extra": 1}"#))
            }
        }

        /// Replacements for a value of `shape` itself: other JSON kinds, edges, dates, bad enum values.
        static func localMutations(_ shape: ValueShape) -> [(String, String)] {
            switch shape {
            case .bool: return [("string for Bool", #""true""#), ("number for Bool", "1")]
            case .string: return [("number for String", "1"), ("bool for String", "true"), ("empty string", #""""#)]
            case .character: return [("two characters", #""ab""#), ("number for Character", "1")]
            case .integer(let kind):
                let max = String(kind.maxUnsigned)
                let min = String(kind.min)
                var list = [("max", max), ("min", min), ("max + 1", increment(max)), ("string for \(kind.name)", #""3""#),
                            ("fraction", "1.5"), ("whole with .0", "2.0"), ("exponent", "1e2"), ("max.0", max + ".0"),
                            ("-0", "-0")]
                list.append(kind.min < 0 ? ("min - 1", "-" + increment(String(min.dropFirst()))) : ("-1", "-1"))
                if kind.min < 0 { list.append(("min.0", min + ".0")) }
                return list
            case .floating(let name):
                var list = [("string for \(name)", #""1.5""#), ("integer", "2"), ("overflow", "1e309"), ("underflow", "1e-400"),
                            ("Float max", "3.4028235e38"), ("past Float max", "3.4028236e38"), ("Float subnormal", "1e-45"),
                            ("below Float subnormal", "7e-46"), ("Float16 max rounding", "65519"), ("Float16 overflow", "65520"),
                            ("Float16 underflow", "1e-9"), ("Double max rounding", "1.7976931348623158e308"), ("Double subnormal", "3e-324")]
                if name == "Decimal" { list = list.filter { !$0.1.contains("e") } }
                return list
            case .date: return [("ISO 8601 date", #""2026-01-01T00:00:00Z""#), ("UNIX seconds", "1767225600"), ("fraction", "788918400.5"),
                                ("string number", #""788918400""#)]
            case .customDate: return [("string for a custom date", #""x""#), ("bool for a custom date", "true")]
            case .url: return [("number for URL", "1")]
            case .uuid: return [("not a UUID", #""not-a-uuid""#), ("lowercase UUID", #""e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#)]
            case .data: return [("not base64", #""***""#), ("number for Data", "1")]
            case .array, .set: return [("object for array", "{}"), ("string for array", #""x""#)]
            case .dictionary: return [("array for dictionary", "[]"), ("string for dictionary", #""x""#)]
            case .optional: return []
            case .object(let s): return [("string for \(s.name)", #""x""#), ("array for \(s.name)", "[]"), ("number for \(s.name)", "1")]
            case .enumeration(let e):
                switch e.rawType {
                case .string?:
                    var list = [("bad enum value", #""zz_not_a_case""#), ("number for enum", "1")]
                    if let raw = e.cases.first?.rawValue, raw.uppercased() != raw { list.append(("wrong case", JSONWriter.quoted(raw.uppercased()))) }
                    return list
                case .integer?:
                    var list = [("bad enum value", "999983"), ("string for enum", #""1""#)]
                    if let raw = e.cases.first?.rawValue { list += [("raw value as x.0", raw + ".0"), ("raw value with exponent", raw + "e0")] }
                    return list
                case .floating?:
                    var list = [("bad enum value", "999983"), ("string for enum", #""1""#)]
                    if let raw = e.cases.first?.rawValue { list.append(("raw value with exponent", raw + "e0")) }
                    return list
                case nil: return [("string for keyed enum", JSONWriter.quoted(e.cases.first?.key ?? "x"))]
                }
            case .unresolved: return []
            }
        }

        /// A decimal digit string plus one.
        static func increment(_ digits: String) -> String {
            var bytes = Array(digits.utf8)
            var i = bytes.count - 1
            while i >= 0 {
                if bytes[i] == UInt8(ascii: "9") { bytes[i] = UInt8(ascii: "0"); i -= 1 } else { bytes[i] += 1; return String(decoding: bytes, as: UTF8.self) }
            }
            return "1" + String(decoding: bytes, as: UTF8.self)
        }
    }
}
