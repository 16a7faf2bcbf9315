import ActivityPushCore
import ActivityPushDiagnosis
import Foundation
import XCTest

/// Send journal lines and pairing a device rejection with the push sent just before it.
final class DiagnosisJournalTests: XCTestCase {
    // Device: 11:02:05.027 -0800 = 19:02:05.027Z.
    let log = """
    Timestamp                       Thread     Type        Activity             PID    TTL
    2026-11-24 11:02:05.004401-0800 0x1d02a    Default     0x0                  98     0    apsd: <private>: Received message for enabled topic 'com.example.kora.push-type.liveactivity' onInterface: NonCellular with payload '<private>' with priority 10 for device token: 80a1f2c3d4e5 isProxyMessage: NO
    2026-11-24 11:02:05.027401-0800 0x1d6ab    Error       0x0                  143    0    liveactivitiesd: Incoming message does not contain usable attributes
    2026-11-24 11:02:05.100000-0800 0x1d6ab    Default     0x0                  143    0    liveactivitiesd: Received pushToStart notification for <private>
    """
    let goodBody = #"{"aps":{"timestamp":1795546924,"event":"start","attributes-type":"KoraDeliveryAttributes","attributes":{"orderNumber":1},"content-state":{"stage":"confirmed"},"alert":{"title":"T","body":"B"}}}"#
    let badBody = #"{"aps":{"timestamp":1795546924,"event":"start","content-state":{"stage":"confirmed"},"alert":{"title":"T","body":"B"}},"attributes-type":"KoraDeliveryAttributes","attributes":{"orderNumber":1}}"#

    func journal() throws -> [SendJournalEntry] {
        let lines = [
            // older push, main path
            #"{"time": "2026-11-24T19:01:10Z", "token": "80a1f2c3", "bundle": "com.example.kora", "source": "send", "apns-id": "A-1", "status": 200, "body": \#(JSONWriter.quoted(goodBody))}"#,
            // the one: retry queue, 0.1 s before the device line, payload given as an object
            #"{"time": 1795546924.93, "token": "80a1f2c3", "topic": "com.example.kora.push-type.liveactivity", "source": "retry-queue", "apns-id": "B-2", "status": 200, "payload": \#(badBody)}"#,
            // refused by APNs: never reached the device
            #"{"time": "2026-11-24T19:02:05.000Z", "token": "80a1f2c3", "bundle": "com.example.kora", "source": "admin", "status": 400, "reason": "BadDeviceToken", "body": \#(JSONWriter.quoted(goodBody))}"#,
            // another app at the same moment
            #"{"time": "2026-11-24T19:02:05.010Z", "bundle": "com.example.other", "source": "other", "body": \#(JSONWriter.quoted(goodBody))}"#,
            // another device token at the same moment
            #"{"time": "2026-11-24T11:02:05.015-08:00", "token": "ffee0011", "bundle": "com.example.kora", "source": "other-device", "body": \#(JSONWriter.quoted(goodBody))}"#,
            // after the device line
            #"{"time": "2026-11-24T19:02:09Z", "bundle": "com.example.kora", "source": "later", "body": \#(JSONWriter.quoted(goodBody))}"#,
        ]
        return try lines.enumerated().map { try SendJournalEntry(jsonLine: $0.element, lineNumber: $0.offset + 1, file: "j.ndjson") }
    }

    func events() throws -> [LiveActivityLogEvent] {
        var analyzer = LiveActivityLogAnalyzer()
        var out: [LiveActivityLogEvent] = []
        let bytes = Array(log.utf8)
        var done = false
        try DeviceLogReader().read(name: "t", chunks: { defer { done = true }; return done ? nil : bytes }) { e in
            if let ev = analyzer.event(for: e) { out.append(ev) }
        }
        return out
    }

    func testJournalLinesReadTimesBodiesAndAliases() throws {
        let j = try journal()
        XCTAssertEqual(j[0].time, 1_795_546_870, accuracy: 0.001)
        XCTAssertEqual(j[0].utcOffset, 0)
        XCTAssertEqual(j[1].bundleID, "com.example.kora")
        XCTAssertEqual(j[1].apnsID, "B-2")
        XCTAssertEqual(j[1].body.map { JSONReader.read($0).root != nil }, true)
        XCTAssertEqual(j[4].time, 1_795_546_925.015, accuracy: 0.001)
        XCTAssertEqual(j[4].utcOffset, -28_800)
    }

    func testJournalRoundTripsThroughCodableAndJsonLine() throws {
        let e = SendJournalEntry(time: 1_795_546_924.5, token: "80a1", bundle: "com.example.kora", apnsID: "X", status: 200,
                                 event: "start", headers: ["apns-push-type": "liveactivity"], body: goodBody, source: "queue")
        let decoded = try JSONDecoder().decode(SendJournalEntry.self, from: Data(e.jsonLine.utf8))
        XCTAssertEqual(decoded, e)
        let viaReader = try SendJournalEntry(jsonLine: String(decoding: try JSONEncoder().encode(e), as: UTF8.self), lineNumber: 1, file: "f")
        XCTAssertEqual(viaReader.body, goodBody)
        XCTAssertEqual(viaReader.apnsID, "X")
    }

    func testBadJournalLinesNameFileAndLine() {
        XCTAssertThrowsError(try SendJournalEntry(jsonLine: "{\"token\": \"a\"}", lineNumber: 7, file: "j.ndjson")) { e in
            XCTAssertTrue("\(e)".contains("j.ndjson:7"), "\(e)")
        }
        XCTAssertThrowsError(try SendJournalEntry(jsonLine: "{\"time\": \"soon\"}", lineNumber: 2, file: "j")) { e in
            XCTAssertTrue("\(e)".contains("j:2"))
        }
        XCTAssertThrowsError(try SendJournalEntry(jsonLine: "not json", lineNumber: 3, file: "j"))
    }

    func testRejectionPairsWithThePushSentJustBeforeIt() throws {
        let pairing = RejectionPairing(journal: try journal(), validator: Validator())
        let evs = try events()
        XCTAssertEqual(evs.map(\.kind), [.missingUsableAttributes, .receivedPushToStart])
        XCTAssertEqual(evs[0].contextToken, "80a1f2c3d4e5")
        let r = try XCTUnwrap(pairing.pair(evs[0]))
        XCTAssertEqual(r.entry.source, "retry-queue")
        XCTAssertEqual(r.entry.apnsID, "B-2")
        // Informational lines are not paired.
        XCTAssertNil(pairing.pair(evs[1]))
    }

    func testRecheckNamesTheCauseAmongTheLikelyOnes() throws {
        let pairing = RejectionPairing(journal: try journal(), validator: Validator())
        let ev = try events()[0]
        let r = try XCTUnwrap(pairing.pair(ev))
        let codes = r.causes.map(\.code.rawValue)
        XCTAssertTrue(codes.contains("attributes-outside-aps"), "\(codes)")
        XCTAssertTrue(codes.allSatisfy { ev.likelyCauses.contains($0) })
        let s = r.summary(at: ev.time)
        XCTAssertTrue(s.hasPrefix("rejected at 2026-11-24 11:02:05.027401-0800: `attributes-outside-aps`"), s)
        XCTAssertTrue(s.contains("sent by retry-queue") && s.contains("apns-id B-2"), s)
    }

    /// A push sent a moment *after* the device line (within the clock-skew allowance) must not take the blame
    /// from the one sent before it; it is used only when nothing was sent before.
    func testAPushSentJustAfterTheLineLosesToTheOneBefore() throws {
        let after = try SendJournalEntry(jsonLine: #"{"time": "2026-11-24T19:02:06Z", "token": "80a1f2c3", "bundle": "com.example.kora", "source": "after", "status": 200, "body": \#(JSONWriter.quoted(goodBody))}"#, lineNumber: 9, file: "j")
        var j = try journal().filter { $0.source != "later" }
        j.append(after)
        let ev = try events()[0]
        XCTAssertEqual(RejectionPairing(journal: j, validator: Validator()).pair(ev)?.entry.source, "retry-queue")
        let onlyAfter = [after]
        XCTAssertEqual(RejectionPairing(journal: onlyAfter, validator: Validator()).pair(ev)?.entry.source, "after")
    }

    func testNoCandidateOutsideTheWindow() throws {
        let j = try journal().filter { $0.source == "send" } // 55 s before
        XCTAssertNotNil(RejectionPairing(journal: j, validator: Validator(), window: 120).pair(try events()[0]))
        XCTAssertNil(RejectionPairing(journal: j, validator: Validator(), window: 30).pair(try events()[0]))
    }

    func testDeviceTimesWithoutZoneUseTheGivenOffset() throws {
        let compact = """
        Timestamp               Ty Process[PID:TID]
        2026-11-24 11:02:05.027 E  liveactivitiesd[143:1d6ab] Incoming message does not contain usable attributes
        """
        var analyzer = LiveActivityLogAnalyzer()
        var ev: LiveActivityLogEvent?
        var done = false
        try DeviceLogReader().read(name: "t", chunks: { defer { done = true }; return done ? nil : Array(compact.utf8) }) { e in
            if let x = analyzer.event(for: e) { ev = x }
        }
        let j = try journal().filter { $0.source == "retry-queue" }
        XCTAssertEqual(RejectionPairing(journal: j, validator: Validator(), deviceUTCOffset: -28_800).pair(try XCTUnwrap(ev))?.entry.apnsID, "B-2")
        XCTAssertNil(RejectionPairing(journal: j, validator: Validator(), deviceUTCOffset: 0).pair(try XCTUnwrap(ev)))
    }
}
