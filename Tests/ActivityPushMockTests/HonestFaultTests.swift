import Foundation
import XCTest
@testable import ActivityPushHTTP2
@testable import ActivityPushMock

/// mock-apns tells the truth about what it processed: GOAWAY's last-stream-id, drops before and after
/// processing, REFUSED_STREAM, a mid-connection stream-limit change, idle handling, and the counters.
final class HonestFaultTests: XCTestCase {
    private let token = pushToStartToken
    private func startBody() -> [UInt8] { payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)) }

    /// A mock that lets many streams in from the start (the test client does not wait for SETTINGS).
    private func makeMock(_ configure: (inout MockAPNsConfiguration) -> Void = { _ in }) throws -> MockAPNsServer {
        var configuration = MockAPNsConfiguration(transport: .h2c, streamsBeforeProviderToken: 100)
        configure(&configuration)
        let mock = try MockAPNsServer(configuration: configuration)
        try mock.start()
        return mock
    }

    private func waitForJournal(_ mock: MockAPNsServer, count: Int) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, mock.journal().count < count { Thread.sleep(forTimeInterval: 0.01) }
        return mock.journal().count >= count
    }

    private func apnsID(_ index: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", index) }

    func testGracefulGoawayNamesTheHighestProcessedStreamAndAnswersEveryStreamAtOrBelowIt() throws {
        let mock = try makeMock { $0.faults = try! MockFaultPlan(spec: "delay=400ms:next=3") }
        defer { mock.stop() }
        let client = try HTTP2TestClient(port: mock.port)
        for index in 1...3 { client.send(path: "/3/device/\(token)", headers: liveActivityHeaders.merging(["apns-id": apnsID(index)]) { $1 }, body: startBody()) }
        XCTAssertTrue(waitForJournal(mock, count: 3), "three streams processed, their answers delayed")
        mock.setFaults(try MockFaultPlan(spec: "goaway:next=1"))
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders.merging(["apns-id": apnsID(4)]) { $1 }, body: startBody())
        XCTAssertTrue(client.wait { $0.closed }, "the connection closes after the last answer")
        let log = client.snapshot
        XCTAssertEqual(log.opened, [1, 3, 5, 7])
        XCTAssertEqual(log.goawayLastStreamIDs, [5], "GOAWAY names stream 5, the highest processed")
        XCTAssertEqual(log.statuses, [1: 200, 3: 200, 5: 200], "every stream at or below it is answered")
        XCTAssertEqual(log.resets[7], .refusedStream, "the stream above it is not processed")
        let entries = mock.journal()
        XCTAssertEqual(entries.map(\.status), [200, 200, 200, 0])
        XCTAssertEqual(entries.last?.fault, "goaway")
        XCTAssertNil(entries.last?.device, "nothing delivered for the GOAWAY'd stream")
        XCTAssertEqual(mock.statistics.goawaysSent, 1)
        // The server keeps serving new connections.
        XCTAssertEqual(try curl("\(mock.baseURL)/3/device/\(token)", headers: liveActivityHeaders, body: startBody()).status, 200)
    }

    func testAbruptGoawayClosesAtOnceWithTheSameHonestLastStreamID() throws {
        let mock = try makeMock { $0.faults = try! MockFaultPlan(spec: "delay=2s:next=2") }
        defer { mock.stop() }
        let client = try HTTP2TestClient(port: mock.port)
        for _ in 1...2 { client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody()) }
        XCTAssertTrue(waitForJournal(mock, count: 2))
        mock.setFaults(try MockFaultPlan(spec: "goaway-abrupt:next=1"))
        let started = Date()
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait(seconds: 1.5) { $0.closed }, "closed at once, not after the 2 s answers")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.9)
        let log = client.snapshot
        XCTAssertEqual(log.goawayLastStreamIDs, [3], "streams 1 and 3 were processed (their answers are never sent)")
        XCTAssertTrue(log.statuses.isEmpty)
        XCTAssertEqual(mock.journal().map(\.fault), ["delay=2000ms", "delay=2000ms", "goaway-abrupt"])
    }

    func testDropBeforeAndDropAfterProcessing() throws {
        let mock = try makeMock()
        defer { mock.stop() }
        // drop-before (and its alias drop): connection closed, nothing delivered.
        for spec in ["drop-before:next=1", "drop:next=1"] {
            mock.setFaults(try MockFaultPlan(spec: spec))
            let client = try HTTP2TestClient(port: mock.port)
            client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
            XCTAssertTrue(client.wait { $0.closed }, spec)
            XCTAssertTrue(client.snapshot.statuses.isEmpty, spec)
            let entry = try XCTUnwrap(mock.journal().last)
            XCTAssertEqual(entry.fault, "drop-before", spec)
            XCTAssertEqual(entry.status, 0)
            XCTAssertNil(entry.device, "not processed: the device saw nothing")
        }
        // drop-after: processed (the device started the activity, status 200 journaled), answer never sent.
        mock.setFaults(try MockFaultPlan(spec: "drop-after:next=1"))
        let client = try HTTP2TestClient(port: mock.port)
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait { $0.closed })
        XCTAssertTrue(client.snapshot.statuses.isEmpty, "the answer is never sent")
        let entry = try XCTUnwrap(mock.journal().last)
        XCTAssertEqual(entry.fault, "drop-after")
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.device?.outcome, .started)
        let statistics = mock.statistics
        XCTAssertEqual(statistics.dropsBeforeProcessing, 2)
        XCTAssertEqual(statistics.dropsAfterProcessing, 1)
    }

    func testRefusedIsRSTStreamRefusedAndTheConnectionStaysUsable() throws {
        let mock = try makeMock { $0.faults = try! MockFaultPlan(spec: "refused:next=1") }
        defer { mock.stop() }
        let client = try HTTP2TestClient(port: mock.port)
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait { $0.resets[1] != nil })
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait { $0.statuses[3] != nil })
        let log = client.snapshot
        XCTAssertEqual(log.resets[1], .refusedStream)
        XCTAssertEqual(log.statuses, [3: 200])
        XCTAssertFalse(log.closed)
        XCTAssertEqual(mock.journal().map(\.fault), ["refused", nil])
        XCTAssertNil(mock.journal().first?.device)
        XCTAssertEqual(mock.statistics.refusedStreams, 1)
    }

    func testStreamLimitDropsToOneMidConnection() throws {
        let mock = try makeMock()
        defer { mock.stop() }
        let client = try HTTP2TestClient(port: mock.port)
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait { $0.statuses[1] == 200 && $0.maxConcurrentStreams.last == 1000 },
                      "a valid token raised the limit to 1000")
        mock.setFaults(try MockFaultPlan(spec: "streams=1:next=1"))
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait { $0.statuses[3] == 200 && $0.maxConcurrentStreams.last == 1 })
        XCTAssertEqual(client.snapshot.maxConcurrentStreams, [100, 1000, 1])
        XCTAssertEqual(mock.journal().last?.fault, "streams=1")
        XCTAssertEqual(mock.statistics.streamLimitChanges, 1)
    }

    func testResetStreamsReceivedAreCounted() throws {
        let mock = try makeMock { $0.faults = try! MockFaultPlan(spec: "delay=1s:next=3") }
        defer { mock.stop() }
        let client = try HTTP2TestClient(port: mock.port)
        for _ in 1...3 { client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody()) }
        XCTAssertTrue(waitForJournal(mock, count: 3))
        for streamID: Int32 in [1, 3, 5] { client.reset(streamID: streamID) }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, mock.statistics.resetStreamsReceived < 3 { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(mock.statistics.resetStreamsReceived, 3)
        let stats = try curl("\(mock.baseURL)/_mock/stats", method: "GET")
        XCTAssertTrue(stats.body.contains("\"rst-stream-received\":3"), stats.body)
    }

    func testIdleConnectionsAreClosedAfterTheTimeout() throws {
        let mock = try makeMock { $0.idleTimeoutSeconds = 0.3 }
        defer { mock.stop() }
        let client = try HTTP2TestClient(port: mock.port)
        client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        XCTAssertTrue(client.wait { $0.statuses[1] == 200 })
        XCTAssertTrue(client.wait(seconds: 5) { $0.closed }, "idle for 0.3 s: GOAWAY and close")
        XCTAssertEqual(client.snapshot.goawayLastStreamIDs, [1])
        XCTAssertEqual(mock.statistics.idleConnectionsClosed, 1)
    }

    func testSilentToConnectionsIdleWithoutPing() throws {
        let mock = try makeMock { $0.silentAfterIdleSeconds = 0.4 }
        defer { mock.stop() }
        let quiet = try HTTP2TestClient(port: mock.port)
        let pinging = try HTTP2TestClient(port: mock.port)
        for client in [quiet, pinging] { client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody()) }
        XCTAssertTrue(quiet.wait { $0.statuses[1] == 200 })
        XCTAssertTrue(pinging.wait { $0.statuses[1] == 200 })
        for _ in 0..<8 {
            pinging.ping()
            Thread.sleep(forTimeInterval: 0.1)
        }
        for client in [quiet, pinging] { client.send(path: "/3/device/\(token)", headers: liveActivityHeaders, body: startBody()) }
        XCTAssertTrue(pinging.wait { $0.statuses[3] == 200 }, "a connection that PINGs is answered")
        XCTAssertGreaterThan(pinging.snapshot.pingAcknowledgements, 0)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertNil(quiet.snapshot.statuses[3], "idle without PING: no answer")
        let statistics = mock.statistics
        XCTAssertEqual(statistics.silencedConnections, 1)
        XCTAssertEqual(statistics.requestsIgnoredOnSilentConnections, 1)
    }

    func testJournalIsRenderedOffTheEventLoop() throws {
        let mock = try makeMock()
        defer { mock.stop() }
        // 60 000 cheap entries (400 MissingDeviceToken) straight into the state, without the network.
        let request = MockRequest(method: "POST", path: "/3/device/", headers: [], body: [], bodyLength: 0, connectionID: 0)
        for _ in 0..<60_000 { _ = mock.state.respond(to: request) }
        let journalDone = DispatchSemaphore(value: 0)
        let journalFinished = Slot<Date>()
        DispatchQueue.global().async {
            _ = try? curl("\(mock.baseURL)/_mock/journal", method: "GET")
            journalFinished.set(Date())
            journalDone.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        let push = try curl("\(mock.baseURL)/3/device/\(token)", headers: liveActivityHeaders, body: startBody())
        let pushFinished = Date()
        XCTAssertEqual(push.status, 200)
        XCTAssertEqual(journalDone.wait(timeout: .now() + 60), .success)
        let journalTime = try XCTUnwrap(journalFinished.value)
        XCTAssertLessThan(pushFinished, journalTime, "the push is answered while the journal is still being rendered")
    }

    func testJournalCountsAcceptedDeliveriesPerApnsID() throws {
        let mock = try makeMock()
        defer { mock.stop() }
        let id = apnsID(42)
        let headers = liveActivityHeaders.merging(["apns-id": id]) { $1 }
        let update = payload(event: "update", timestamp: Int(Date().timeIntervalSince1970))
        let activityToken = String(repeating: "cd", count: 32)
        XCTAssertEqual(try curl("\(mock.baseURL)/3/device/\(activityToken)", headers: headers, body: update).status, 200)
        mock.setFaults(try MockFaultPlan(spec: "drop-after:next=1"))
        _ = try curl("\(mock.baseURL)/3/device/\(activityToken)", headers: headers, body: update)
        mock.setFaults(try MockFaultPlan(spec: "drop-before:next=1"))
        _ = try curl("\(mock.baseURL)/3/device/\(activityToken)", headers: headers, body: update)
        XCTAssertEqual(try curl("\(mock.baseURL)/3/device/\(activityToken)", headers: headers, body: update).status, 200)
        // The README's recipe: accepted deliveries are journal entries with status 200, grouped by apns-id.
        let accepted = mock.journal().filter { $0.status == 200 && $0.apnsID == id }
        XCTAssertEqual(accepted.count, 3, "two answered 200s and one drop-after (processed, answer lost); drop-before is not a delivery")
        XCTAssertEqual(mock.journal().filter { $0.apnsID == id }.count, 4)
    }
}
