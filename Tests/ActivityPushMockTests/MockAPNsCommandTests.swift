import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `activity-push mock-apns` as a process: machine-readable first line, serving, clean stop on SIGTERM/SIGINT,
/// usage errors. Uses the executable SwiftPM builds next to the test bundle.
final class MockAPNsCommandTests: XCTestCase {
    private func executable() throws -> URL {
        // On Linux the test bundle is an executable in the build products folder, next to activity-push.
        let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let exe = bundle.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("activity-push")
        guard FileManager.default.isExecutableFile(atPath: exe.path) else {
            throw XCTSkip("activity-push is not built next to the test bundle (run `swift build` first)")
        }
        return exe
    }

    private func startCLI(_ args: [String]) throws -> (Process, FileHandle, Pipe) {
        let p = Process()
        p.executableURL = try executable()
        p.arguments = ["mock-apns"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return (p, out.fileHandleForReading, err)
    }

    /// Reads stdout until `count` full lines arrived (the banner is written at once, unbuffered).
    private func lines(_ h: FileHandle, _ count: Int) -> [String] {
        var data = Data()
        while true {
            let text = String(decoding: data, as: UTF8.self)
            let parts = text.split(separator: "\n", omittingEmptySubsequences: false)
            if parts.count > count { return parts.prefix(count).map(String.init) }
            let chunk = h.availableData
            if chunk.isEmpty { return parts.map(String.init) }
            data += chunk
        }
    }

    func testPrintsURLServesAndStopsOnSIGTERM() throws {
        let (p, out, err) = try startCLI(["--port", "0", "--h2c", "--faults", "503:next=1"])
        let line = lines(out, 1).first ?? ""
        XCTAssertTrue(line.hasPrefix("mock-apns listening on http://127.0.0.1:"), line)
        let base = String(line.dropFirst("mock-apns listening on ".count))
        let url = "\(base)/3/device/\(pushToStartToken)"
        let body = payload(event: "start", timestamp: Int(Date().timeIntervalSince1970))
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: body).status, 503)
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: body).status, 200)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains("503 ServiceUnavailable [fault 503]"), log)
        XCTAssertTrue(log.contains("200 → device: started"), log)
        XCTAssertTrue(log.contains("stopped on SIGTERM after 2 requests"), log)
    }

    func testTLSPrintsCAPathAndStopsOnSIGINT() throws {
        let dir = temporaryDirectory()
        let (p, out, _) = try startCLI(["--port", "0", "--tls-dir", dir, "--quiet"])
        let banner = lines(out, 2)
        let line = banner.first ?? ""
        XCTAssertTrue(line.hasPrefix("mock-apns listening on https://127.0.0.1:"), line)
        XCTAssertEqual(banner.last, "mock-apns ca \(URL(fileURLWithPath: dir).standardizedFileURL.path)/ca.pem")
        let base = String(line.dropFirst("mock-apns listening on ".count))
        let r = try curl("\(base)/3/device/\(pushToStartToken)", headers: liveActivityHeaders,
                         body: payload(event: "start", timestamp: 1), cacert: dir + "/ca.pem")
        XCTAssertEqual(r.status, 200, r.body)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    func testUsageErrorsExit2WithAReason() throws {
        let cases: [([String], String)] = [
            (["--faults", "teapot"], "unknown action"),
            (["--auth-key", "/nope/AuthKey_ABC.p8"], "--team-id"),
            (["--auth-key", "key.p8", "--team-id", "T"], "AuthKey_<KEYID>.p8"),
            (["--port", "70000"], "--port"),
            (["--bogus", "1"], "unknown option --bogus"),
        ]
        for (args, expected) in cases {
            let (p, _, err) = try startCLI(args)
            p.waitUntilExit()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(p.terminationStatus, 2, "\(args): \(text)")
            XCTAssertTrue(text.contains(expected), "\(args): \(text)")
        }
        // A key file that is not there: a usage error like the others (exit 2, one line), file named.
        let (p, _, err) = try startCLI(["--h2c", "--auth-key", "/nope/AuthKey_ABC1234567.p8", "--team-id", "TEAM123456"])
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 2)
        XCTAssertTrue(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("/nope/AuthKey_ABC1234567.p8"))
    }
}
