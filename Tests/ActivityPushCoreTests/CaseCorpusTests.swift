import XCTest
@testable import ActivityPushCore

/// The real failure cases (copied from shared/cases): each verdict, each expected (code, path), and no
/// unexpected error — the same criteria as shared/tools/score-cases, through the library API.
final class CaseCorpusTests: XCTestCase {
    struct Expected: Decodable {
        struct F: Decodable { let code: String; let path: String; let severity: String }
        struct Context: Decodable { let now: Double? }
        let accept: Bool
        let findings: [F]
        let context: Context?
    }

    struct LoadedCase {
        let name: String
        let folder: URL
        let body: [UInt8]
        let headers: APNsHeaders?
        let schema: ActivitySchema
        let expected: Expected
    }

    static func load(_ folder: URL) throws -> LoadedCase {
        let fm = FileManager.default
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: folder.appendingPathComponent("expected.json")))
        let body = Array(try Data(contentsOf: folder.appendingPathComponent("payload.json")))
        var headers: APNsHeaders? = nil
        let headersURL = folder.appendingPathComponent("headers.json")
        if fm.fileExists(atPath: headersURL.path) {
            let obj = try JSONSerialization.jsonObject(with: Data(contentsOf: headersURL)) as! [String: Any]
            headers = APNsHeaders(obj.map { ($0.key, "\($0.value)") }.sorted { $0.0 < $1.0 })
        }
        let swiftFiles = try fm.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
            .map { folder.appendingPathComponent($0).path }
        let schema = try SwiftSourceReader.read(paths: swiftFiles)
        return LoadedCase(name: folder.lastPathComponent, folder: folder, body: body, headers: headers, schema: schema, expected: expected)
    }

    func testEveryCaseIsJudgedAsExpected() throws {
        let folders = try FixturePaths.caseFolders()
        XCTAssertGreaterThanOrEqual(folders.count, 20)
        for folder in folders {
            let c = try Self.load(folder)
            let report = Validator(schema: c.schema).check(body: c.body, headers: c.headers, nowUnixSeconds: c.expected.context?.now)
            XCTAssertEqual(report.accept, c.expected.accept, "\(c.name): verdict; findings \(report.findings.map { "\($0.code)@\($0.path)" })")
            let got = Set(report.findings.map { "\($0.code)@\($0.path)" })
            let wanted = Set(c.expected.findings.map { "\($0.code)@\($0.path)" })
            for w in wanted.sorted() { XCTAssertTrue(got.contains(w), "\(c.name): missing \(w); got \(got.sorted())") }
            for f in report.errors where !wanted.contains("\(f.code)@\(f.path)") {
                XCTFail("\(c.name): unexpected error \(f.code)@\(f.path): \(f.message)")
            }
            for f in report.findings where !f.path.hasPrefix("headers.") {
                XCTAssertNotNil(f.line, "\(c.name): \(f.code)@\(f.path) has no line")
            }
        }
    }

    /// `check --schema` reads back `schema --format json`: the round trip judges every case identically.
    func testSchemaDescriptionRoundTripJudgesIdentically() throws {
        for folder in try FixturePaths.caseFolders() {
            let c = try Self.load(folder)
            let description = ActivitySchemaDescription.json(c.schema)
            let text = JSONWriter.pretty(description)
            let reread = try ActivitySchemaDescription.read(try XCTUnwrap(JSONReader.read(text).root).value)
            XCTAssertEqual(JSONWriter.compact(ActivitySchemaDescription.json(reread)), JSONWriter.compact(description), c.name)
            let now = c.expected.context?.now
            let a = Validator(schema: c.schema).check(body: c.body, headers: c.headers, nowUnixSeconds: now)
            let b = Validator(schema: reread).check(body: c.body, headers: c.headers, nowUnixSeconds: now)
            XCTAssertEqual(a.findings.map { "\($0.code)@\($0.path)" }, b.findings.map { "\($0.code)@\($0.path)" }, c.name)
        }
        XCTAssertThrowsError(try ActivitySchemaDescription.read(.obj([("types", .arr([.obj([("name", .string("X"))])]))])))
    }
}
