import Foundation
import XCTest
import ActivityPushCore
@testable import ActivityPushDiagnosis

/// Hostile input to `audit` and `logs`: nothing skipped silently, memory bounded per entry, bad timestamps refused.
final class DiagnosisRobustnessTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("diag-robust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func write(_ relative: String, _ bytes: [UInt8]) throws {
        let url = dir.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    private let startSite = #"const body = { aps: { event: "start", "content-state": {}, "attributes-type": "A", timestamp: 1, alert: { title: "t", body: "b" } } };"#

    // MARK: audit

    func testLargeFilesWithPayloadWordsAreReportedSkippedOthersAreNot() throws {
        // 2.5 MB of minified code with the start site at the very end (beyond any single chunk).
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: 2_500_000)
        try write("web/app.min.js", filler + Array((";" + startSite).utf8))
        try write("web/data.min.js", filler)  // large, no payload word: scanned in chunks, clean
        try write("src/send.js", Array(startSite.utf8))
        let report = try PayloadSiteAudit().run(root: dir.path)
        XCTAssertEqual(report.sites.map(\.file), ["src/send.js"])
        XCTAssertEqual(report.skipped.map(\.file), ["web/app.min.js"])
        XCTAssertTrue(report.skipped[0].reason.contains("larger than 2 MB"), report.skipped[0].reason)
        XCTAssertTrue(report.text.contains("skipped: 1 file(s)") && report.text.contains("web/app.min.js: larger than 2 MB"))
        // json: "skipped" next to an unchanged "sites".
        let json = try XCTUnwrap(JSONReader.read(JSONWriter.compact(report.json)).root)
        guard case .array(let sites)? = json["sites"]?.value, case .array(let skipped)? = json["skipped"]?.value else {
            return XCTFail("no sites / skipped arrays")
        }
        XCTAssertEqual(sites.count, 1)
        XCTAssertEqual(skipped.first?["file"]?.value.stringValue, "web/app.min.js")
        XCTAssertNotNil(skipped.first?["reason"]?.value.stringValue)
    }

    func testPayloadWordCutByAChunkBoundaryIsStillSeen() throws {
        // "content-state" straddles the 1 MiB chunk boundary.
        var bytes = [UInt8](repeating: UInt8(ascii: " "), count: 3_000_000)
        let word = Array("content-state".utf8)
        bytes.replaceSubrange((1 << 20) - 5 ..< (1 << 20) - 5 + word.count, with: word)
        try write("big.js", bytes)
        XCTAssertEqual(try PayloadSiteAudit().run(root: dir.path).skipped.map(\.file), ["big.js"])
    }

    func testBinaryFilesAreSkippedAndUTF16WithBOMIsScanned() throws {
        try write("bin.py", Array("aps = 1".utf8) + [0, 1, 2])
        var utf16: [UInt8] = [0xFF, 0xFE]
        for u in startSite.utf16 { utf16 += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        try write("wide.js", utf16)
        let report = try PayloadSiteAudit().run(root: dir.path)
        XCTAssertEqual(report.sites.map(\.file), ["wide.js"])
        XCTAssertEqual(report.skipped.map(\.file), ["bin.py"])
        XCTAssertTrue(report.skipped[0].reason.contains("NUL byte at offset 7"), report.skipped[0].reason)
    }

    func testHiddenFoldersAreScannedExceptToolFolders() throws {
        try write(".github/scripts/send.js", Array(startSite.utf8))
        try write(".git/hooks/send.js", Array(startSite.utf8))
        try write(".next/server/send.js", Array(startSite.utf8))
        let report = try PayloadSiteAudit().run(root: dir.path)
        XCTAssertEqual(report.sites.map(\.file), [".github/scripts/send.js"])
        XCTAssertEqual(report.skipped.count, 0)
    }

    func testFilesThatCannotBeReadAreSkippedWithTheReason() throws {
        try write("src/send.js", Array(startSite.utf8))
        XCTAssertEqual(mkfifo(dir.appendingPathComponent("src/pipe.js").path, 0o644), 0)
        var report = try PayloadSiteAudit().run(root: dir.path)
        XCTAssertEqual(report.skipped.map(\.file), ["src/pipe.js"])
        XCTAssertTrue(report.skipped[0].reason.contains("not a regular file"))
        if getuid() != 0 {  // root reads everything
            try write("locked/x.js", Array(startSite.utf8))
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: dir.appendingPathComponent("locked").path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.appendingPathComponent("locked").path) }
            report = try PayloadSiteAudit().run(root: dir.path)
            XCTAssertTrue(report.skipped.contains { $0.file.hasPrefix("locked") && $0.reason.contains("permission denied") })
        }
        XCTAssertEqual(report.sites.map(\.file), ["src/send.js"])
    }

    func testAttributeKeysAreNamedAsWritten() {
        let files = [
            (path: "a.py", text: #"body = {"aps": {"event": "start", "content-state": {}, "attributes-type": "A", "timestamp": 1, "alert": {"title": "t", "body": "b"}, "attributes": {"alert_title": "x"}}}"#),
            (path: "b.js", text: #"const body = { aps: { event: "start", "content-state": {}, "attributes-type": "A", timestamp: 1, alert: { title: "t", body: "b" }, attributes: { alertTitle: "x" } } };"#),
        ]
        let report = PayloadSiteAudit().run(files: files)
        let messages = report.sites.flatMap { $0.problems.filter { $0.code == "unknown-attribute-key" }.map(\.message) }
        XCTAssertEqual(messages.count, 2, "\(report.sites.map(\.problems))")
        XCTAssertTrue(messages[0].contains("`alert_title`") && !messages[0].contains("alert-title"), messages[0])
        XCTAssertTrue(messages[1].contains("`alertTitle`") && !messages[1].contains("alert-title"), messages[1])
    }

    // MARK: logs

    private func read(_ bytes: [UInt8], chunk: Int = 1 << 16) throws -> (entries: [DeviceLogEntry], warnings: [String]) {
        var offset = 0
        var entries: [DeviceLogEntry] = []
        var warnings: [String] = []
        try DeviceLogReader().read(name: "t.log", chunks: {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + chunk)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }, onWarning: { warnings.append($0) }, onEntry: { entries.append($0) })
        return (entries, warnings)
    }

    private let header = "Timestamp                       Thread     Type        Activity             PID    TTL  \n"
    private func row(_ message: String, second: Int = 5) -> String {
        "2026-11-24 11:02:0\(second).025401-0800 0x1d6ab    Default     0x0                  143    0    liveactivitiesd: (SessionPushNotifications) [com.apple.liveactivitiesd:push] \(message)\n"
    }

    func testAHugeLineIsCutToTheMessageCapWithAMarker() throws {
        let huge = String(repeating: "é", count: 1_000_000)  // 2 MB of 2-byte characters
        let text = header + row("Incoming message " + huge) + row("next entry", second: 6)
        let (entries, _) = try read(Array(text.utf8), chunk: 4096)
        XCTAssertEqual(entries.count, 2)
        let m = entries[0].message
        XCTAssertTrue(m.hasPrefix("Incoming message é"))
        let marker = try XCTUnwrap(m.range(of: "…[truncated "))
        XCTAssertLessThanOrEqual(m[..<marker.lowerBound].utf8.count, DeviceLogReader.maxMessageBytes)
        let dropped = Int(m[marker.upperBound...].dropLast(" bytes]".count))
        XCTAssertEqual((dropped ?? 0) + m[..<marker.lowerBound].utf8.count, "Incoming message ".utf8.count + huge.utf8.count)
        XCTAssertFalse(m.contains("\u{FFFD}"))  // not cut inside a character
        XCTAssertEqual(entries[1].message, "next entry")
    }

    func testManyContinuationLinesAreCappedToo() throws {
        let text = header + row("first") + String(repeating: String(repeating: "c", count: 1000) + "\n", count: 500) + row("second", second: 6)
        let (entries, _) = try read(Array(text.utf8))
        XCTAssertEqual(entries.count, 2)
        XCTAssertTrue(entries[0].message.contains("…[truncated "))
        XCTAssertLessThan(entries[0].message.utf8.count, DeviceLogReader.maxMessageBytes + 64)
    }

    private func element(_ message: String, process: String = "liveactivitiesd") -> String {
        #"{"timestamp" : "2026-11-25 09:10:37.970000-0800", "process" : "\#(process)", "eventMessage" : "\#(message)"}"#
    }

    func testJSONStyleReportsGarbageAndATruncatedTail() throws {
        let log = "[" + element("Incoming message contains two forms of push input") + ",\n{ garbage here }\n,"
            + element("Rendering", process: "SpringBoard") + ",\n" + element("a second one") + ",\n{\"timestamp\" : \"2026"
        let (entries, warnings) = try read(Array(log.utf8), chunk: 7)
        XCTAssertEqual(entries.map(\.message), ["Incoming message contains two forms of push input", "a second one"])
        XCTAssertEqual(warnings.count, 2, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("element 1 is not JSON"), warnings[0])
        XCTAssertTrue(warnings[1].contains("ends inside element 4"), warnings[1])
        // A wanted element that does not parse is named too; a missing `]` is reported.
        let (_, w2) = try read(Array(("[" + element("ok") + ",\n{\"process\" : \"liveactivitiesd\", \"eventMessage\" : }\n").utf8))
        XCTAssertTrue(w2.contains { $0.contains("element 1 is not JSON") }, "\(w2)")
        XCTAssertTrue(w2.contains { $0.contains("before the closing ']'") }, "\(w2)")
        // A complete log gives no warning.
        XCTAssertEqual(try read(Array(("[" + element("ok") + "]\n").utf8)).warnings, [])
    }

    func testJSONStyleWithNothingReadableIsAnError() {
        XCTAssertThrowsError(try read(Array("[{\"timestamp\" : \"2026-11-25".utf8))) { error in
            XCTAssertEqual((error as? DeviceLogError)?.kind, .noReadableElement, "\(error)")
            XCTAssertEqual((error as? DeviceLogError)?.fix, "export it again with `log show --style json`", "\(error)")
        }
    }

    func testOversizedJSONElementIsSkippedWithAWarning() throws {
        let big = element(String(repeating: "z", count: DeviceLogReader.maxElementBytes + 10))
        let (entries, warnings) = try read(Array(("[" + big + ",\n" + element("after") + "]").utf8), chunk: 1 << 20)
        XCTAssertEqual(entries.map(\.message), ["after"])
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("element 0 is larger than"), warnings[0])
        // Below the element limit, a long message is capped like any other.
        let (capped, _) = try read(Array(("[" + element(String(repeating: "y", count: 200_000)) + "]").utf8))
        XCTAssertTrue(capped[0].message.hasSuffix("…[truncated \(200_000 - DeviceLogReader.maxMessageBytes) bytes]"))
    }

    func testNonexistentDatesAndOutOfRangeInstantsAreRefused() {
        XCTAssertNil(LogTimestamp.parse("2026-02-30 11:00:00"))
        XCTAssertNil(LogTimestamp.parse("2026-02-29 11:00:00"))
        XCTAssertNotNil(LogTimestamp.parse("2028-02-29 11:00:00"))
        XCTAssertNil(LogTimestamp.parse("2026-13-01 11:00:00"))
        XCTAssertNil(LogTimestamp.parse("2026-04-31T11:00:00Z"))
        XCTAssertNil(LogTimestamp.parse("25:00:00"))
        XCTAssertNil(LogTimestamp.parse("11:60:00"))
        XCTAssertNil(LogTimestamp.parse("11:00:00+2500"))
        XCTAssertNotNil(LogTimestamp.parse("Feb 29 11:00:00"))  // no year: may be a leap year
        XCTAssertNil(LogTimestamp.parse("Feb 30 11:00:00"))
        for bad in [1e300, -1e300, .infinity, -.infinity, .nan, 9.3e18, 253_402_300_800] {
            XCTAssertNil(LogTimestamp(unixSeconds: bad), "\(bad)")
        }
        XCTAssertEqual(LogTimestamp(unixSeconds: 1_795_546_925)?.year, 2026)
        XCTAssertNil(LogTimestamp.parse("11:02:05")?.unixSeconds(assumingOffset: 0, assumingDateOf: .infinity))
    }

    func testJournalTimeOutOfRangeIsALineError() throws {
        for time in ["1e999", "\"1e999\"", "-1e300", "\"nan\""] {
            let path = dir.appendingPathComponent("j.ndjson").path
            try Data("{\"time\":\(time),\"body\":\"{}\"}\n".utf8).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try SendJournalEntry.readJournal(path: path), time) { error in
                XCTAssertEqual((error as? DeviceLogError)?.kind, .badJournalLine, "\(error)")
                XCTAssertEqual((error as? DeviceLogError)?.input, path, "\(error)")
                XCTAssertEqual((error as? DeviceLogError)?.line, 1, "\(error)")
                XCTAssertEqual((error as? DeviceLogError)?.fix, "write UNIX seconds or ISO 8601", "\(error)")
            }
        }
    }
}
