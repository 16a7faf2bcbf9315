import Foundation
import XCTest

/// The `activity-push` executable as a user runs it: exit statuses, output formats, one-line errors.
final class CLITests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The `activity-push` under test: `$ACTIVITY_PUSH_CLI` when set (`make test` runs these tests once more
    /// against the release binary, which is what users run), else the one built alongside this test bundle
    /// (`.build/<triple>/<config>/`).
    static var executable: URL {
        if let chosen = ProcessInfo.processInfo.environment["ACTIVITY_PUSH_CLI"], !chosen.isEmpty {
            return URL(fileURLWithPath: chosen, relativeTo: repository).standardizedFileURL
        }
        let bundle = Bundle(for: CLITests.self).bundleURL
        let candidates = [bundle, bundle.deletingLastPathComponent(), bundle.appendingPathComponent("debug"),
                          repository.appendingPathComponent(".build/debug")]
            .map { $0.appendingPathComponent("activity-push") }
        return candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) ?? candidates[0]
    }
    static let kora = repository.appendingPathComponent("examples/kora").path

    struct Result { let status: Int32; let stdout: String; let stderr: String }

    func run(_ args: [String], stdin: String? = nil) throws -> Result { try Self.run(args, stdin: stdin) }

    /// Runs the executable with `args` in the repository folder and waits for it.
    static func run(_ args: [String], stdin: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = Self.executable
        p.arguments = args
        p.currentDirectoryURL = Self.repository
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let stdin {
            let inPipe = Pipe()
            p.standardInput = inPipe
            try p.run()
            inPipe.fileHandleForWriting.write(Data(stdin.utf8))
            inPipe.fileHandleForWriting.closeFile()
        } else {
            try p.run()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    override func setUpWithError() throws {
        // Not a skip: `make test` builds the executable first, so a missing one is a failure.
        if !FileManager.default.isExecutableFile(atPath: Self.executable.path) {
            XCTFail("activity-push is not built next to the tests (\(Self.executable.path)); run `swift build` first")
            throw CancellationError()
        }
    }

    func testCheckExitStatusesAndCompilerStyleText() throws {
        let bad = try run(["check", "\(Self.kora)/trap2-alert-in-attributes.json", "--attributes", "\(Self.kora)/KORAActivityAttributes.swift", "--now", "1767225600"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stdout.contains("trap2-alert-in-attributes.json:10:7: error: aps.attributes.alert_title:"), bad.stdout)
        XCTAssertTrue(bad.stdout.contains("[unknown-attribute-key]\n    fix: move \"alert_title\" to aps.alert.title"), bad.stdout)
        let good = try run(["check", "\(Self.kora)/corrected-start.json", "--attributes", Self.kora, "--headers", "\(Self.kora)/headers.json", "--now", "1767225600"])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
    }

    func testCheckJSONContract() throws {
        let r = try run(["check", "\(Self.kora)/trap3-type-name-case.json", "--attributes", "\(Self.kora)/KORAActivityAttributes.swift", "--format", "json", "--now", "1767225600"])
        XCTAssertEqual(r.status, 1)
        let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(obj["accept"] as? Bool, false)
        let f = try XCTUnwrap((obj["findings"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(f.keys), ["code", "severity", "path", "line", "column", "message", "fix"])
        XCTAssertEqual(f["code"] as? String, "attributes-type-mismatch")
        XCTAssertEqual(f["path"] as? String, "aps.attributes-type")
        XCTAssertEqual(f["line"] as? Int, 6)
        XCTAssertEqual(f["fix"] as? String, "write \"attributes-type\": \"KORAActivityAttributes\"")
    }

    func testCheckSARIF() throws {
        let r = try run(["check", "\(Self.kora)/trap1-attributes-outside-aps.json", "--format", "sarif", "--now", "1767225600"])
        XCTAssertEqual(r.status, 1)
        let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(obj["version"] as? String, "2.1.0")
        let run0 = try XCTUnwrap((obj["runs"] as? [[String: Any]])?.first)
        let results = try XCTUnwrap(run0["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["ruleId"] as? String }, ["attributes-outside-aps", "attributes-outside-aps"])
        let region = ((results[0]["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["region"] as? [String: Any]
        XCTAssertEqual(region?["startLine"] as? Int, 8)
    }

    func testInvalidJSONIsAVerdictNotAUsageError() throws {
        let r = try run(["check", "-", "--format", "json"], stdin: "{\"aps\": {\"event\": \"update\",}}")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("\"invalid-json\""))
    }

    func testCouldNotJudgeIsExit2WithOneLine() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("ap-cli-\(getpid())")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let plain = tmp.appendingPathComponent("Plain.swift")
        try "struct Plain: Codable { var a: Int }\n".write(to: plain, atomically: true, encoding: .utf8)
        let empty = tmp.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let payload = "\(Self.kora)/corrected-start.json"
        for args in [["check", tmp.appendingPathComponent("missing.json").path],
                     ["check", payload, "--attributes", plain.path],
                     ["check", payload, "--attributes", empty.path],
                     ["check", payload, "--format", "yaml"],
                     ["check"],
                     ["no-such-command"]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stdout)")
            XCTAssertFalse(r.stderr.isEmpty, "\(args)")
            XCTAssertTrue(r.stdout.isEmpty || args == ["no-such-command"], "\(args): \(r.stdout)")
        }
    }

    func testBuildPrintsHeadersAndPayloadOrFindings() throws {
        let ok = try run(["build", "--attributes", Self.kora, "--bundle-id", "com.example.kora", "--event", "start",
                          "--attributes-json", "{\"eventID\": \"ev-1042\", \"venueName\": \"Hall B\"}",
                          "--content-state-json", "{\"phase\": \"doors-open\", \"minutesLeft\": 30}",
                          "--alert-title", "Doors are open", "--alert-body", "Starts in 30", "--timestamp", "1767225600"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let obj = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((obj["headers"] as? [String: String])?["apns-topic"], "com.example.kora.push-type.liveactivity")
        let aps = try XCTUnwrap((obj["payload"] as? [String: Any])?["aps"] as? [String: Any])
        XCTAssertEqual(aps["attributes-type"] as? String, "KORAActivityAttributes")
        XCTAssertEqual(aps["timestamp"] as? Int, 1767225600)
        // The built body re-checks clean through `check`.
        let payload = try JSONSerialization.data(withJSONObject: obj["payload"]!)
        let recheck = try run(["check", "-", "--attributes", Self.kora, "--now", "1767225600"], stdin: String(decoding: payload, as: UTF8.self))
        XCTAssertEqual(recheck.status, 0, recheck.stdout)

        let refused = try run(["build", "--attributes", Self.kora, "--bundle-id", "com.example.kora", "--event", "start",
                               "--attributes-json", "{\"eventID\": \"ev-1042\", \"venueName\": \"Hall B\", \"alert_body\": \"x\"}",
                               "--content-state-json", "{\"phase\": \"doors-open\", \"minutesLeft\": 30}",
                               "--alert-title", "T", "--alert-body", "B"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stdout.contains("\"unknown-attribute-key\""), refused.stdout)
        let noAlert = try run(["build", "--event", "start", "--type", "X", "--attributes-json", "{}", "--content-state-json", "{}"])
        XCTAssertEqual(noAlert.status, 1)
        XCTAssertTrue(noAlert.stdout.contains("\"missing-alert-for-start\"") && noAlert.stdout.contains("--alert-title"), noAlert.stdout)
        let badFlag = try run(["build", "--event", "start", "--priority", "soon"])
        XCTAssertEqual(badFlag.status, 2)
    }
}
