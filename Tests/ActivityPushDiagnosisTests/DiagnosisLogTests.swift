import ActivityPushCore
import ActivityPushDiagnosis
import Foundation
import XCTest

/// Device-log reader and Live Activity event extraction over every log fixture (the shared ones and
/// Fixtures/logs-extra, one per capture format), chunking, filters and input errors.
final class DiagnosisLogTests: XCTestCase {
    static let folders = ["logs", "logs-extra"].map { FixturePaths.fixtures.appendingPathComponent($0) }

    /// (log file, expected file) pairs.
    static func fixtures() throws -> [(URL, URL)] {
        var out: [(URL, URL)] = []
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            where !name.hasSuffix(".expected.json") && name != "index.json" && name != "README.md" {
                let stem = name.split(separator: ".").dropLast().joined(separator: ".")
                let exp = folder.appendingPathComponent(stem + ".expected.json")
                if FileManager.default.fileExists(atPath: exp.path) { out.append((folder.appendingPathComponent(name), exp)) }
            }
        }
        return out
    }

    /// Runs the reader + analyzer with a given chunk size; returns the events and the detected format.
    static func analyse(_ bytes: [UInt8], chunk: Int = 1 << 20, since: LogTimestamp? = nil,
                        bundle: String? = nil) throws -> ([LiveActivityLogEvent], DeviceLogFormat) {
        var offset = 0
        var analyzer = LiveActivityLogAnalyzer(since: since, bundleID: bundle)
        var events: [LiveActivityLogEvent] = []
        let format = try DeviceLogReader().read(name: "test", chunks: {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + chunk)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }, onEntry: { entry in
            if let e = analyzer.event(for: entry) { events.append(e) }
        })
        return (events, format)
    }

    func testEveryFixtureGivesExactlyItsExpectedEvents() throws {
        let fixtures = try Self.fixtures()
        XCTAssertGreaterThanOrEqual(fixtures.count, 15)
        for (log, expected) in fixtures {
            let (events, _) = try Self.analyse([UInt8](try Data(contentsOf: log)))
            let want = try XCTUnwrap(JSONReader.read([UInt8](try Data(contentsOf: expected))).root, expected.lastPathComponent)
            let got = JSONValue.arr(events.map(\.json))
            XCTAssertEqual(JSONWriter.pretty(got), JSONWriter.pretty(want.value), log.lastPathComponent)
        }
    }

    func testFormatIsDetectedFromStructure() throws {
        let expected: [String: DeviceLogFormat] = [
            "01-console-copy-attributes-outside-aps.txt": .consoleCopy,
            "02-log-stream-default-two-inputs-illegal-event.txt": .logDefault,
            "04-log-show-syslog-missing-timestamp-and-event.txt": .logSyslog,
            "05-log-show-json-missing-content-state.json": .logJSON,
            "07-log-stream-ndjson-decode-failures.ndjson": .logNDJSON,
            "08-log-show-compact-start-without-alert.txt": .logCompact,
            "10-sysdiagnose-logarchive-syslog.txt": .logSyslog,
            "console-wide-budget.txt": .consoleCopy,
            "idevicesyslog-unsupported-event.txt": .idevicesyslog,
            "logarchive-default-multiline.txt": .logDefault,
            "ndjson-footer-parse-failure.ndjson": .logNDJSON,
            "json-style-illegal-event.json": .logJSON,
            "compact-two-inputs.txt": .logCompact,
            "syslog-one-space-unsupported-activity.txt": .logSyslog,
        ]
        for (log, _) in try Self.fixtures() {
            guard let want = expected[log.lastPathComponent] else { continue }
            // Renamed copy: the name must not matter.
            let (_, format) = try Self.analyse([UInt8](try Data(contentsOf: log)))
            XCTAssertEqual(format, want, log.lastPathComponent)
        }
    }

    func testChunkBoundariesDoNotChangeTheResult() throws {
        for (log, _) in try Self.fixtures() {
            let bytes = [UInt8](try Data(contentsOf: log))
            let whole = try Self.analyse(bytes).0.map { JSONWriter.compact($0.json) }
            let small = try Self.analyse(bytes, chunk: 7).0.map { JSONWriter.compact($0.json) }
            XCTAssertEqual(whole, small, log.lastPathComponent)
        }
    }

    func testDecoyProcessesAreIgnored() throws {
        let log = """
        Timestamp                       Thread     Type        Activity             PID    TTL
        2026-11-30 10:00:00.400000-0800 0x1d358    Default     0x0                  120    0    identityservicesd: (IDSFoundation) Incoming message does not contain a payload
        2026-11-30 10:00:00.500000-0800 0x1d358    Default     0x0                  120    0    Kora: said 'Incoming message does not contain usable attributes'
        2026-11-30 10:00:00.600000-0800 0x1d358    Default     0x0                  120    0    liveactivitiesdX: Incoming message does not contain a payload
        """
        XCTAssertTrue(try Self.analyse(Array(log.utf8)).0.isEmpty)
    }

    func testPrivateValuesAreKeptAndBundleOnlyFromTheSameLine() throws {
        let log = """
        2026-11-24 11:02:05.000000-0800  localhost apsd[98]: <APSCourier>: Received message for enabled topic 'com.example.kora.push-type.liveactivity' onInterface: NonCellular with payload '<private>'
        2026-11-24 11:02:05.025401-0800  localhost liveactivitiesd[143]: Received pushToStart notification for <private>
        2026-11-24 11:02:06.025401-0800  localhost liveactivitiesd[143]: Push-to-start budget exceeded for com.example.kora::pushToStart; not starting activity
        """
        let events = try Self.analyse(Array(log.utf8)).0
        XCTAssertEqual(events.map(\.kind), [.receivedPushToStart, .pushToStartBudgetExceeded])
        XCTAssertEqual(events[0].message, "Received pushToStart notification for <private>")
        XCTAssertNil(events[0].bundle)
        XCTAssertEqual(events[0].contextBundle, "com.example.kora")
        XCTAssertEqual(events[1].bundle, "com.example.kora")
        XCTAssertEqual(events[1].likelyCauses, ["too-many-push-to-start-in-short-time"])
    }

    func testSinceAndBundleFilters() throws {
        let log = [UInt8](try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("logs/02-log-stream-default-two-inputs-illegal-event.txt")))
        let since = try XCTUnwrap(LogTimestamp.parse("2026-11-24 11:02:30-0800"))
        XCTAssertEqual(try Self.analyse(log, since: since).0.map(\.line), [8])
        // Same instant written in UTC.
        let utc = try XCTUnwrap(LogTimestamp.parse("2026-11-24T19:02:30Z"))
        XCTAssertEqual(try Self.analyse(log, since: utc).0.map(\.line), [8])
        // Bundle not revealed: kept. Revealed and different: dropped.
        XCTAssertEqual(try Self.analyse(log, bundle: "com.other").0.count, 3)
        let syslog = [UInt8](try Data(contentsOf: FixturePaths.fixtures.appendingPathComponent("logs/10-sysdiagnose-logarchive-syslog.txt")))
        XCTAssertEqual(try Self.analyse(syslog, bundle: "com.other").0.count, 0)
        XCTAssertEqual(try Self.analyse(syslog, bundle: "com.example.kora").0.count, 3)
    }

    func testTimestampForms() throws {
        let a = try XCTUnwrap(LogTimestamp.parse("2026-11-24 11:02:05.025401-0800"))
        XCTAssertEqual(a.utcOffset, -28_800)
        XCTAssertEqual(a.unixSeconds()!, 1_795_546_925.025401, accuracy: 0.000_01)
        XCTAssertEqual(LogTimestamp.parse("10:15:31.354204-0800")?.year, nil)
        XCTAssertEqual(LogTimestamp.parse("Dec  3 08:12:02")?.month, 12)
        XCTAssertEqual(LogTimestamp.parse("2026-11-26 07:05:47.880")?.utcOffset, nil)
        XCTAssertNil(LogTimestamp.parse("yesterday"))
    }

    /// The rendered message is one line, `reason; fix`, and the fix for an unknown format lists the known ones.
    func testBinaryCompressedUnknownAndEmptyInputsAreOneLineErrors() {
        func refusal(_ bytes: [UInt8]) -> DeviceLogError? {
            do { _ = try Self.analyse(bytes); return nil } catch { return error as? DeviceLogError }
        }
        for bytes in [[0x62, 0x70, 0x00, 0x01, 0xff, 0x10], [0x1f, 0x8b, 0x08, 0x00], [0xc3, 0x28, 0x41, 0x0a]] as [[UInt8]] {
            let error = refusal(bytes)
            XCTAssertNotNil(error?.fix, "\(bytes): a binary, compressed or non-UTF-8 input says what to do")
            XCTAssertEqual(error?.description, error.map { $0.reason + "; " + ($0.fix ?? "") }, "\(bytes)")
        }
        XCTAssertTrue(refusal([0x1f, 0x8b, 0x08, 0x00])?.fix?.contains("gunzip") ?? false)
        let unknown = refusal(Array("hello\nworld\n".utf8))
        let text = unknown?.description ?? ""
        XCTAssertTrue(text.hasPrefix("\(unknown?.input ?? "?"): unknown log format"), text)
        for f in DeviceLogFormat.known { XCTAssertTrue(unknown?.fix?.contains(f.format.rawValue) ?? false, f.format.rawValue) }
        XCTAssertFalse(text.contains("\n"))
        XCTAssertNil(refusal([])?.fix, "an empty log has nothing to fix but the capture")
    }

    /// Issue 12: each refusal has a kind and names its input, so callers branch on the kind, not the text.
    func testInputErrorsCarryAKindAndTheInput() throws {
        func kind(_ bytes: [UInt8]) -> DeviceLogError.Kind? {
            do { _ = try Self.analyse(bytes); return nil } catch { return (error as? DeviceLogError)?.kind }
        }
        XCTAssertEqual(kind([0x62, 0x70, 0x00, 0x01, 0xff, 0x10]), .binary)
        XCTAssertEqual(kind([0x1f, 0x8b, 0x08, 0x00]), .compressed)
        XCTAssertEqual(kind([0xc3, 0x28, 0x41, 0x0a]), .notUTF8)
        XCTAssertEqual(kind(Array("hello\nworld\n".utf8)), .unknownFormat)
        XCTAssertEqual(kind([]), .empty)
        func fileError(_ body: () throws -> Void) -> DeviceLogError? {
            do { try body(); return nil } catch { return error as? DeviceLogError }
        }
        let directory = fileError { _ = try DeviceLogReader().read(path: NSTemporaryDirectory(), onEntry: { _ in }) }
        XCTAssertEqual(directory?.kind, .isDirectory)
        let missing = fileError { _ = try DeviceLogReader().read(path: "/nonexistent/x.log", onEntry: { _ in }) }
        XCTAssertEqual(missing?.kind, .notFound)
        XCTAssertEqual(missing?.input, "/nonexistent/x.log")
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).ndjson")
        try Data("{\"time\": 1795633324.9}\n{\"token\": \"80a1\"}\n".utf8).write(to: journal)
        defer { try? FileManager.default.removeItem(at: journal) }
        let badLine = fileError { _ = try SendJournalEntry.readJournal(path: journal.path) }
        XCTAssertEqual(badLine?.kind, .badJournalLine)
        XCTAssertEqual(badLine?.line, 2)
    }

    func testDirectoryAndMissingFileErrors() {
        XCTAssertThrowsError(try DeviceLogReader().read(path: NSTemporaryDirectory(), onEntry: { _ in })) { e in
            XCTAssertTrue("\(e)".contains("log show --archive"))
        }
        XCTAssertThrowsError(try DeviceLogReader().read(path: "/nonexistent/x.log", onEntry: { _ in }))
    }

    func testEveryCatalogKindHasItsCausesAndInformationalKindsHaveNone() {
        for p in LogLineCatalog.patterns {
            if p.kind == .receivedPushToStart || p.kind == .activityStarted {
                XCTAssertTrue(p.isInformational)
            } else {
                XCTAssertFalse(p.likelyCauses.isEmpty, p.kind.rawValue)
            }
        }
        XCTAssertEqual(LogLineCatalog.pattern(for: "Incoming message does not contain a usable payload")?.kind, .unusableContentState)
        XCTAssertEqual(LogLineCatalog.pattern(for: "Incoming message does not contain a payload")?.kind, .missingContentState)
        XCTAssertNil(LogLineCatalog.pattern(for: "Activity started rendering"))
    }
}
