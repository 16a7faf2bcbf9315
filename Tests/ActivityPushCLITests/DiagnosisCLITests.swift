import Foundation
import XCTest

/// `audit` and `logs` on hostile input, as a user runs them: skipped files fail the `--max-sites` guard,
/// unreadable parts of a log are warned about, impossible `--since` values are usage errors.
final class DiagnosisCLITests: XCTestCase {
    private func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = CLITests.executable
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    private func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("diag-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    func testMaxSitesFailsWhenFilesWereSkippedUnlessAllowed() throws {
        let dir = try temporaryFolder()
        let site = #"const body = { aps: { event: "start", "content-state": {}, "attributes-type": "A", timestamp: 1, alert: { title: "t", body: "b" } } };"#
        try Data(site.utf8).write(to: dir.appendingPathComponent("send.js"))
        try Data(([UInt8](repeating: 120, count: 2_100_000)) + Array((";" + site).utf8)).write(to: dir.appendingPathComponent("bundle.min.js"))
        let guarded = try run(["audit", dir.path, "--max-sites", "1"])
        XCTAssertEqual(guarded.status, 1, guarded.stdout + guarded.stderr)
        XCTAssertTrue(guarded.stdout.contains("skipped: 1 file(s)") && guarded.stdout.contains("bundle.min.js: larger than 2 MB"), guarded.stdout)
        XCTAssertTrue(guarded.stderr.contains("1 file(s) were skipped") && guarded.stderr.contains("--allow-skipped"), guarded.stderr)
        let allowed = try run(["audit", dir.path, "--max-sites", "1", "--allow-skipped"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
        let json = try run(["audit", dir.path, "--format", "json"])
        XCTAssertEqual(json.status, 0)
        XCTAssertTrue(json.stdout.contains("\"skipped\"") && json.stdout.contains("\"bundle.min.js\""), json.stdout)
    }

    func testLogsWarnsAboutUnreadablePartsAndKeepsTheExitStatus() throws {
        let dir = try temporaryFolder()
        let element = #"{"timestamp" : "2026-11-25 09:10:37.970000-0800", "process" : "liveactivitiesd", "eventMessage" : "Incoming message contains two forms of push input"}"#
        let log = dir.appendingPathComponent("cut.json")
        try Data(("[" + element + ",\n{ garbage }\n,{\"timestamp\" : \"20").utf8).write(to: log)
        let r = try run(["logs", log.path])
        XCTAssertEqual(r.status, 1, r.stderr)  // one rejection, as without the damage
        XCTAssertTrue(r.stderr.contains("element 1 is not JSON") && r.stderr.contains("ends inside element 2"), r.stderr)
        XCTAssertTrue(r.stdout.contains("2 part(s) of the log could not be read"), r.stdout)
    }

    func testSinceRejectsImpossibleDatesAndHugeNumbers() throws {
        let dir = try temporaryFolder()
        let log = dir.appendingPathComponent("l.json")
        try Data("[]".utf8).write(to: log)
        for since in ["2026-02-30 11:00:00", "1e300", "-1e300", "inf", "nan", "0x10", "9223372036854775807"] {
            let r = try run(["logs", log.path, "--since", since])
            XCTAssertEqual(r.status, 2, "\(since): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--since"), r.stderr)
        }
    }

    func testJournalWithAnInfiniteTimeIsAUsageError() throws {
        let dir = try temporaryFolder()
        let journal = dir.appendingPathComponent("j.ndjson")
        try Data("{\"time\":1e999,\"body\":\"{}\"}\n".utf8).write(to: journal)
        let log = dir.appendingPathComponent("l.json")
        try Data("[]".utf8).write(to: log)
        let r = try run(["logs", log.path, "--journal", journal.path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("j.ndjson:1: time") && r.stderr.contains("out of range"), r.stderr)
    }
}
