import ActivityPushCore
import ActivityPushDiagnosis
import Foundation
import XCTest

/// Payload-site audit over the shared repos and Fixtures/audit-extra (one small repo per language), plus
/// decoys, schema-based judgement and output formats.
final class DiagnosisAuditTests: XCTestCase {
    static func repos() throws -> [URL] {
        var out: [URL] = []
        for folder in ["audit", "audit-extra"] {
            let dir = FixturePaths.fixtures.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
                let repo = dir.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: repo.appendingPathComponent("expected.json").path) { out.append(repo) }
            }
        }
        return out
    }

    func testEveryRepoGivesItsExpectedSitesProblemsAndNoDecoy() throws {
        let repos = try Self.repos()
        XCTAssertGreaterThanOrEqual(repos.count, 10)
        var languages = Set<String>()
        for repo in repos {
            let name = repo.lastPathComponent
            let expected = try XCTUnwrap(JSONReader.read([UInt8](try Data(contentsOf: repo.appendingPathComponent("expected.json")))).root)
            let report = try PayloadSiteAudit().run(root: repo.path)
            var used = Set<Int>()
            for s in expected["sites"]?.value.array ?? [] {
                let file = try XCTUnwrap(s["file"]?.value.stringValue)
                let line = Int(try XCTUnwrap(s["line"]?.value.numberValue?.int64Value))
                let end = Int(s["end_line"]?.value.numberValue?.int64Value ?? Int64(line))
                let hit = report.sites.indices.first { !used.contains($0) && report.sites[$0].file == file && (line...end).contains(report.sites[$0].line) }
                guard let hit else { XCTFail("\(name): missing site \(file):\(line)"); continue }
                used.insert(hit)
                let want = Set((s["problems"]?.value.array ?? []).compactMap { $0.value.stringValue })
                XCTAssertEqual(Set(report.sites[hit].problems.map(\.code.rawValue)), want, "\(name) \(file):\(line)")
                if let ev = s["event"]?.value.stringValue { XCTAssertEqual(report.sites[hit].event, ev, "\(name) \(file):\(line)") }
                if let lang = SourceLanguageName.of(file) { languages.insert(lang) }
            }
            for (i, s) in report.sites.enumerated() where !used.contains(i) {
                XCTFail("\(name): unexpected site \(s.file):\(s.line)")
            }
            for d in expected["decoys"]?.value.array ?? [] {
                let file = d["file"]?.value.stringValue ?? ""
                let line = Int(d["line"]?.value.numberValue?.int64Value ?? 0)
                XCTAssertFalse(report.sites.contains { $0.file == file && abs($0.line - line) <= 2 }, "\(name): decoy \(file):\(line)")
            }
        }
        XCTAssertEqual(languages, ["ts", "js", "py", "go", "kt", "java", "swift", "rb", "php", "json"])
    }

    enum SourceLanguageName {
        static func of(_ file: String) -> String? {
            guard let ext = file.split(separator: ".").last.map(String.init) else { return nil }
            return ["ts", "js", "py", "go", "kt", "java", "swift", "rb", "php", "json"].contains(ext) ? ext : nil
        }
    }

    func testCommentsDocsTestsAndDeclarationsAreNotSites() {
        let files: [(path: String, text: String)] = [
            ("src/a.ts", """
            // const body = { aps: { event: "start", "content-state": {}, timestamp: 1 } };
            /* { aps: { event: "update", "content-state": {}, timestamp: 1 } } */
            export interface Aps { event: "start" | "update"; timestamp: number; "content-state": object }
            export function read(body: { aps: { event: string; "content-state": object } }) { return body.aps.event; }
            """),
            ("src/a.test.ts", "const x = { aps: { event: 'start', timestamp: 1, 'content-state': {} } };"),
            ("tests/test_x.py", "x = {'aps': {'event': 'start', 'timestamp': 1, 'content-state': {}}}"),
            ("README.md", "{\"aps\": {\"event\": \"start\", \"timestamp\": 1, \"content-state\": {}}}"),
            ("m.py", "\"\"\"Doc: {\"aps\": {\"event\": \"update\", \"timestamp\": 1, \"content-state\": {}}}\"\"\"\nclass A(BaseModel):\n    content_state: dict = Field(alias=\"content-state\")\n"),
        ]
        XCTAssertEqual(PayloadSiteAudit().run(files: files).sites.map { "\($0.file):\($0.line)" }, [])
    }

    func testSchemaJudgesTypeNamesAndAttributeKeys() throws {
        let schema = try SwiftSourceReader.read(sources: [("Tide.swift", """
        import ActivityKit
        struct TideAttributes: ActivityAttributes {
            public struct ContentState: Codable, Hashable { var level: Double }
            var harbor: String
        }
        """)])
        let files: [(path: String, text: String)] = [("send.py", """
        def a():
            return {"aps": {"event": "start", "timestamp": 1, "attributes-type": "TideAttribute",
                            "attributes": {"harbor": "x"}, "content-state": {"level": 1},
                            "alert": {"title": "t", "body": "b"}}}
        def b():
            return {"aps": {"event": "start", "timestamp": 1, "attributes-type": "TideAttributes",
                            "attributes": {"harbor": "x", "colour": "red"}, "content-state": {"level": 1},
                            "alert": {"title": "t", "body": "b"}}}
        """)]
        let report = PayloadSiteAudit(schema: schema).run(files: files)
        XCTAssertEqual(report.sites.map { $0.problems.map(\.code.rawValue) }, [["attributes-type-mismatch"], ["unknown-attribute-key"]])
        // Without the schema neither is visible (no other spelling in the code, no alert-like key).
        XCTAssertEqual(PayloadSiteAudit().run(files: files).sites.map { $0.problems.count }, [0, 0])
    }

    func testStartSitesAreCountedForTheOneBuilderGuard() throws {
        let repo = FixturePaths.fixtures.appendingPathComponent("audit/ts-node-kora-dispatch")
        let report = try PayloadSiteAudit().run(root: repo.path)
        XCTAssertEqual(report.startSites.count, 4)
        XCTAssertEqual(report.sites.count, 5)
    }

    func testOutputsAreWellFormed() throws {
        let report = try PayloadSiteAudit().run(root: FixturePaths.fixtures.appendingPathComponent("audit/python-kora-notify").path)
        let json = try XCTUnwrap(JSONReader.read(JSONWriter.pretty(report.json)).root)
        XCTAssertEqual(json["sites"]?.value.array?.count, 5)
        let sarif = try XCTUnwrap(JSONReader.read(report.sarif).root)
        XCTAssertEqual(sarif["version"]?.value.stringValue, "2.1.0")
        let results = sarif["runs"]?.value.array?.first?["results"]?.value.array ?? []
        XCTAssertEqual(results.count, 5 + report.sites.reduce(0) { $0 + $1.problems.count })
        XCTAssertTrue(report.text.contains("kora_notify/tasks/retry.py:13: start payload built here"))
    }

    func testNotADirectoryIsAnError() {
        XCTAssertThrowsError(try PayloadSiteAudit().run(root: "/nonexistent-dir"))
    }
}

private extension JSONValue {
    var array: [JSONNode]? {
        if case .array(let a) = self { return a }
        return nil
    }
}
