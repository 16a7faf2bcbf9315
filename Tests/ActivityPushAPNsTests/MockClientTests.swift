@testable import ActivityPushAPNs
import ActivityPushCore
import ActivityPushMock
import COpenSSL
import Foundation
import Synchronization
import XCTest

/// The client against `mock-apns` on an ephemeral port: real HTTP/2, real token checks, injected faults.
final class MockClientTests: XCTestCase {
    var keyPath = ""
    var key: OpaquePointer?
    let keyID = "ABC123DEFG"
    let teamID = "TEAMID1234"
    let bundleID = "com.example.kora"

    override func setUpWithError() throws {
        let (p, k) = try TestKeys.p8File()
        keyPath = p
        key = k
    }

    override func tearDown() {
        if let key { EVP_PKEY_free(key) }
        try? FileManager.default.removeItem(atPath: keyPath)
    }

    static func deviceToken(_ i: Int) -> String {
        String(format: "%064x", 0xA000_0000 + i)
    }

    func mock(verify: Bool = true, tls: Bool = true, maxStreams: Int = 1000, faults: String = "") throws -> MockAPNsServer {
        let transport: MockAPNsConfiguration.Transport =
            tls ? .tls(directory: NSTemporaryDirectory() + "mock-tls-\(UInt32.random(in: 0...UInt32.max))") : .h2c
        let m = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: transport,
            providerTokens: verify ? .verify(keyPath: keyPath, keyID: keyID, teamID: teamID) : .acceptAny,
            faults: try MockFaultPlan(spec: faults), maxConcurrentStreams: maxStreams))
        try m.start()
        return m
    }

    func client(_ m: MockAPNsServer, clock: (@Sendable () -> Double)? = nil, timeout: Double = 10) throws -> APNsClient {
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID,
                                      clock: clock ?? { Date().timeIntervalSince1970 })
        return try APNsClient(environment: .custom(m.baseURL), token: token,
                              transport: HTTP2TransportConfiguration(caFile: m.caCertificatePath,
                                                                     requestTimeoutSeconds: timeout, connectTimeoutSeconds: 5))
    }

    func startPush() throws -> PushRequest {
        try LiveActivityPush.start(bundleID: bundleID, attributesType: "DeliveryAttributes",
                                   attributes: .obj([("orderID", .string("A-1"))]),
                                   contentState: .obj([("status", .string("preparing"))]),
                                   alert: LiveActivityAlert(title: "Order", body: "We got your order")).build()
    }

    func updatePush(_ n: Int = 1) throws -> PushRequest {
        try LiveActivityPush.update(bundleID: bundleID, contentState: .obj([("status", .string("step \(n)"))])).build()
    }

    // MARK: Success paths

    func testStartOverH2CGets200AndJournalShowsStarted() async throws {
        let m = try mock(tls: false)
        defer { m.stop() }
        let c = try client(m)
        let result = try await c.send(try startPush(), deviceToken: Self.deviceToken(1))
        await c.shutdown()
        let r = try XCTUnwrap(result.response)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(result.disposition(), .accepted)
        XCTAssertNotNil(r.apnsID)
        XCTAssertNotNil(r.uniqueID)
        let entry = try XCTUnwrap(m.journal().last)
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.device?.outcome, .started)
        XCTAssertEqual(entry.apnsID, r.apnsID)
    }

    func testTLSWithCustomCAFile() async throws {
        let m = try mock(tls: true)
        defer { m.stop() }
        XCTAssertNotNil(m.caCertificatePath)
        let c = try client(m)
        for i in 0..<3 {
            let result = try await c.send(try updatePush(i), deviceToken: Self.deviceToken(2))
            XCTAssertEqual(result.response?.status, 200, "\(result)")
        }
        XCTAssertEqual(c.transport.statistics.connectionsOpened, 1)
        await c.shutdown()
    }

    func testH2CSeveralRequestsAllAnswered() async throws {
        let m = try mock(tls: false)
        defer { m.stop() }
        let c = try client(m)
        for i in 0..<3 {
            let result = try await c.send(try updatePush(i), deviceToken: Self.deviceToken(5))
            XCTAssertEqual(result.response?.status, 200, "\(result)")
        }
        await c.shutdown()
    }

    func testTLSWithoutTheCAIsRefusedAndNotRetriedTwice() async throws {
        let m = try mock(tls: true)
        defer { m.stop() }
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID)
        let c = try APNsClient(environment: .custom(m.baseURL), token: token)
        let result = try await c.send(try updatePush(), deviceToken: Self.deviceToken(3))
        await c.shutdown()
        guard case .failure(let e) = result else { return XCTFail("expected a TLS failure, got \(result)") }
        XCTAssertFalse(e.mayHaveBeenProcessed)
        XCTAssertEqual(e.attempts, 2, "a request that never reached the server is tried once more, only once")
        XCTAssertTrue(m.journal().isEmpty)
    }

    func testConnectionRefusedFailsFastWithNotProcessed() async throws {
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID)
        let c = try APNsClient(environment: .custom("http://127.0.0.1:1"), token: token)
        let result = try await c.send(try updatePush(), deviceToken: Self.deviceToken(4))
        await c.shutdown()
        guard case .failure(let e) = result else { return XCTFail("expected failure, got \(result)") }
        XCTAssertEqual(e.kind, .notSent)
        XCTAssertFalse(e.mayHaveBeenProcessed)
        XCTAssertEqual(result.disposition(), .retry(afterSeconds: 1))
    }

    // MARK: Faults

    func testInjected429And500And503AreClassified() async throws {
        let m = try mock(faults: "429=30:next=1,500:next=1,503:next=1")
        defer { m.stop() }
        let c = try client(m)
        var results: [APNsResult] = []
        for i in 0..<4 { results.append(try await c.send(try updatePush(i), deviceToken: Self.deviceToken(10 + i))) }
        await c.shutdown()
        let statuses = results.map { $0.response?.status }
        XCTAssertEqual(statuses, [429, 500, 503, 200])
        XCTAssertEqual(results[0].response?.reason, .tooManyRequests)
        XCTAssertEqual(results[0].response?.retryAfterSeconds, 30)
        XCTAssertEqual(results[0].disposition(), .retry(afterSeconds: 30))
        XCTAssertEqual(results[1].response?.reason, .internalServerError)
        XCTAssertEqual(results[1].disposition(), .retry(afterSeconds: 900))
        XCTAssertEqual(results[2].disposition(), .retry(afterSeconds: 900))
        XCTAssertEqual(results[3].disposition(), .accepted)
    }

    func testGoawayAndDropOnOneRequestThenReconnect() async throws {
        for fault in ["goaway", "drop"] {
            let m = try mock()
            defer { m.stop() }
            let c = try client(m, timeout: 5)
            let push = try updatePush()
            let warm = try await c.send(push, deviceToken: Self.deviceToken(98))
            XCTAssertEqual(warm.response?.status, 200)
            m.setFaults(try MockFaultPlan(spec: "\(fault):next=1"))
            var results: [APNsResult] = []
            for i in 0..<10 { results.append(try await c.send(push, deviceToken: Self.deviceToken(100 + i))) }
            let stats = c.transport.statistics
            await c.shutdown()
            XCTAssertEqual(results.count, 10)
            let ok = results.filter { $0.response?.status == 200 }
            XCTAssertGreaterThanOrEqual(ok.count, 9, "\(fault): only the faulted request may fail: \(results)")
            for case .failure(let e) in results {
                // The mock's GOAWAY does not process the request; a dropped connection may have.
                XCTAssertTrue(e.mayHaveBeenProcessed || e.attempts == 2, "\(fault): \(e)")
            }
            XCTAssertEqual(stats.connectionsOpened, 2, "\(fault): one reconnect after the connection closed")
            XCTAssertEqual(results.last?.response?.status, 200)
            // Every 200 the client saw is in the mock's journal.
            let journaled = Set(m.journal().filter { $0.status == 200 }.compactMap(\.apnsID))
            for r in ok { XCTAssertTrue(journaled.contains(r.response!.apnsID!)) }
        }
    }

    func testFaultStormEveryRequestGetsExactlyOneResult() async throws {
        let m = try mock(faults: "goaway:share=2%,drop:share=2%,503:share=5%")
        defer { m.stop() }
        let c = try client(m, timeout: 5)
        let n = 300
        let push = try updatePush()
        let started = ContinuousClock.now
        let results = await withTaskGroup(of: (Int, APNsResult).self) { g -> [Int: APNsResult] in
            for i in 0..<n { g.addTask { (i, (try? await c.send(push, deviceToken: Self.deviceToken(100 + i)))!) } }
            var all: [Int: APNsResult] = [:]
            for await (i, r) in g {
                XCTAssertNil(all[i], "one result per request")
                all[i] = r
            }
            return all
        }
        m.setFaults(MockFaultPlan())
        let after = try await c.send(push, deviceToken: Self.deviceToken(99))
        let stats = c.transport.statistics
        await c.shutdown()
        XCTAssertEqual(results.count, n)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(20), "nothing hangs")
        XCTAssertEqual(stats.responses + stats.failures, n + 1, "every request ended exactly once")
        XCTAssertEqual(after.response?.status, 200, "the client reconnects after GOAWAY / drops")
        for r in results.values { if let s = r.response?.status { XCTAssertTrue([200, 503].contains(s)) } }
    }

    func testServerStoppingMidFlightEndsEveryRequest() async throws {
        let m = try mock()
        let c = try client(m, timeout: 4)
        let push = try updatePush()
        // Authenticate first: before a valid token APNs (and the mock) allow one stream only.
        let warm = try await c.send(push, deviceToken: Self.deviceToken(399))
        XCTAssertEqual(warm.response?.status, 200)
        m.setFaults(try MockFaultPlan(spec: "delay=2s:all"))
        let started = ContinuousClock.now
        async let results: [APNsResult] = withTaskGroup(of: APNsResult.self) { g in
            for i in 0..<50 { g.addTask { (try? await c.send(push, deviceToken: Self.deviceToken(400 + i)))! } }
            var all: [APNsResult] = []
            for await r in g { all.append(r) }
            return all
        }
        try await Task.sleep(for: .milliseconds(300))
        m.stop()
        let all = await results
        await c.shutdown()
        XCTAssertEqual(all.count, 50)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(6), "nothing hangs past the request timeout")
        for r in all {
            guard case .failure(let e) = r else { return XCTFail("a stopped server cannot answer: \(r)") }
            XCTAssertTrue(e.mayHaveBeenProcessed, "these were sent: \(e)")
        }
    }

    // MARK: Exact outcomes (honest mock faults)

    /// Sends `n` pushes concurrently; returns the results and the mock's 200s per apns-id.
    func burst(_ c: APNsClient, _ m: MockAPNsServer, n: Int, base: Int) async throws -> ([APNsResult], [String: Int]) {
        let push = try updatePush()
        let results = await withTaskGroup(of: APNsResult.self) { g -> [APNsResult] in
            for i in 0..<n {
                g.addTask {
                    let r = try? await c.send(push, deviceToken: Self.deviceToken(base + i))
                    return r ?? .failure(APNsTransportError(kind: .notSent, message: "refused by the client"))
                }
            }
            var all: [APNsResult] = []
            for await r in g { all.append(r) }
            return all
        }
        var delivered: [String: Int] = [:]
        for e in m.journal() where e.status == 200 { if let id = e.apnsID { delivered[id, default: 0] += 1 } }
        return (results, delivered)
    }

    func testGracefulGoawayLosesNothingAndDuplicatesNothing() async throws {
        let m = try mock(faults: "goaway:share=3%")
        defer { m.stop() }
        let c = try client(m, timeout: 20)
        let (results, delivered) = try await burst(c, m, n: 1000, base: 30_000)
        let stats = c.transport.statistics
        await c.shutdown()
        var messages: [String: Int] = [:]
        for case .failure(let e) in results { messages[e.message, default: 0] += 1 }
        XCTAssertEqual(results.filter { $0.response?.status == 200 }.count, 1000, "every push answered 200: \(stats) \(messages)")
        XCTAssertEqual(delivered.count, 1000)
        XCTAssertEqual(delivered.values.filter { $0 > 1 }.count, 0, "no push processed twice")
        XCTAssertGreaterThan(m.statistics.goawaysSent, 0)
        XCTAssertEqual(stats.mayHaveBeenProcessed, 0, "a GOAWAY says exactly what was processed")
        // Every stream the mock cut (above last-stream-id) was resent and counted refused; streams the mock never
        // read (written after its GOAWAY left) are refused too, so the client counts at least as many.
        XCTAssertGreaterThanOrEqual(stats.refused, m.statistics.streamsCutByGoaway)
        XCTAssertEqual(stats.failures, 0)
    }

    func testRefusedStreamIsResentWithTheSameApnsID() async throws {
        let m = try mock()
        defer { m.stop() }
        let c = try client(m)
        let warm = try await c.send(try updatePush(), deviceToken: Self.deviceToken(70))
        XCTAssertEqual(warm.response?.status, 200)
        m.setFaults(try MockFaultPlan(spec: "refused:next=1"))
        var builder = LiveActivityPush.update(bundleID: bundleID, contentState: .obj([("status", .string("step 2"))]))
        builder.apnsID = UUID(uuidString: "8a5d2f1c-0b6e-4c2a-9f1e-3d7c5b4a6e21")
        let push = try builder.build()
        let result = try await c.send(push, deviceToken: Self.deviceToken(71))
        let stats = c.transport.statistics
        await c.shutdown()
        XCTAssertEqual(result.response?.status, 200, "\(result)")
        XCTAssertEqual(result.response?.apnsID, "8a5d2f1c-0b6e-4c2a-9f1e-3d7c5b4a6e21")
        XCTAssertEqual(stats.refused, 1)
        XCTAssertEqual(m.statistics.refusedStreams, 1)
        XCTAssertEqual(m.journal().filter { $0.status == 200 && $0.apnsID == "8a5d2f1c-0b6e-4c2a-9f1e-3d7c5b4a6e21" }.count, 1)
    }

    func testDropAfterProcessingIsMayHaveBeenProcessedAndDropBeforeToo() async throws {
        for fault in ["drop-after", "drop-before"] {
            let m = try mock()
            defer { m.stop() }
            let c = try client(m, timeout: 5)
            let warm = try await c.send(try updatePush(), deviceToken: Self.deviceToken(80))
            XCTAssertEqual(warm.response?.status, 200)
            m.setFaults(try MockFaultPlan(spec: "\(fault):next=1"))
            let result = try await c.send(try updatePush(3), deviceToken: Self.deviceToken(81))
            let after = try await c.send(try updatePush(4), deviceToken: Self.deviceToken(82))
            await c.shutdown()
            // The client cannot tell the two apart: the request went out and no answer came.
            guard case .failure(let e) = result else { return XCTFail("\(fault): \(result)") }
            XCTAssertEqual(e.kind, .mayHaveBeenProcessed, fault)
            XCTAssertEqual(after.response?.status, 200, "\(fault): reconnects")
        }
    }

    func testStreamLimitDropToOneMidConnection() async throws {
        let m = try mock(faults: "streams=1:next=1")
        defer { m.stop() }
        let c = try client(m, timeout: 20)
        let (results, delivered) = try await burst(c, m, n: 300, base: 40_000)
        let stats = c.transport.statistics
        await c.shutdown()
        XCTAssertEqual(results.filter { $0.response?.status == 200 }.count, 300, "\(stats)")
        XCTAssertEqual(delivered.values.filter { $0 > 1 }.count, 0)
        XCTAssertEqual(stats.mayHaveBeenProcessed, 0)
        XCTAssertEqual(stats.connectionsOpened, 1)
    }

    // MARK: Provider tokens

    func testExpiredProviderTokenIsResignedOnceAndRetried() async throws {
        let m = try mock()
        defer { m.stop() }
        // The first signature is made 70 minutes in the past; later ones at the real time.
        let calls = Mutex(0)
        let c = try client(m, clock: {
            let n = calls.withLock { $0 += 1; return $0 }
            return Date().timeIntervalSince1970 - (n == 1 ? 4200 : 0)
        })
        let result = try await c.send(try updatePush(), deviceToken: Self.deviceToken(20))
        await c.shutdown()
        XCTAssertEqual(result.response?.status, 200, "\(result)")
        XCTAssertEqual(c.token.signings, 2)
        let reasons = m.journal().map(\.reason)
        XCTAssertEqual(reasons, ["ExpiredProviderToken", nil])
    }

    func testTooManyProviderTokenUpdatesIsRetryClass() async throws {
        let m = try mock(verify: false)
        defer { m.stop() }
        let now = Mutex(Date().timeIntervalSince1970)
        let c = try client(m, clock: { now.withLock { $0 } })
        let first = try await c.send(try updatePush(1), deviceToken: Self.deviceToken(30))
        now.withLock { $0 += 51 * 60 }   // the client thinks 51 minutes passed and re-signs; the server saw 0
        let second = try await c.send(try updatePush(2), deviceToken: Self.deviceToken(30))
        await c.shutdown()
        XCTAssertEqual(first.response?.status, 200)
        XCTAssertEqual(second.response?.status, 429)
        XCTAssertEqual(second.response?.reason, .tooManyProviderTokenUpdates)
        XCTAssertEqual(second.disposition(), .retry(afterSeconds: 60))
    }

    func testWrongTeamIsFixCredentials() async throws {
        let m = try mock()
        defer { m.stop() }
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: "OTHERTEAM1")
        let c = try APNsClient(environment: .custom(m.baseURL), token: token,
                               transport: HTTP2TransportConfiguration(caFile: m.caCertificatePath))
        let result = try await c.send(try updatePush(), deviceToken: Self.deviceToken(40))
        await c.shutdown()
        XCTAssertEqual(result.response?.status, 403)
        XCTAssertEqual(result.response?.reason, .invalidProviderToken)
        XCTAssertEqual(result.disposition(), .fixCredentials)
    }

    func testUnregisteredTokenIs410WithMillisecondTimestampAndDropToken() async throws {
        let m = try mock()
        defer { m.stop() }
        let when = Date(timeIntervalSince1970: 1_700_000_000.5)
        m.unregister(token: Self.deviceToken(50), at: when)
        let c = try client(m)
        let result = try await c.send(try updatePush(), deviceToken: Self.deviceToken(50))
        await c.shutdown()
        XCTAssertEqual(result.response?.status, 410)
        XCTAssertEqual(result.response?.reason, .unregistered)
        XCTAssertEqual(result.response?.timestampMilliseconds, 1_700_000_000_500)
        XCTAssertEqual(result.disposition(), .dropToken)
    }

    // MARK: Volume, one connection

    func testTenThousandPushesOverOneConnectionAllAccountedFor() async throws {
        let m = try mock(maxStreams: 100)
        defer { m.stop() }
        // Truly one connection: no rotation, and no RST_STREAM per finished stream (libcurl 7.88 sent one each,
        // which a stock nghttp2 server answers with GOAWAY after 1000), checked from the mock's counters below.
        let config = HTTP2TransportConfiguration(caFile: m.caCertificatePath, requestTimeoutSeconds: 60, streamsPerConnection: 0)
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID)
        let c = try APNsClient(environment: .custom(m.baseURL), token: token, transport: config)
        let pushes = [try startPush(), try updatePush(1), try updatePush(2)]
        let n = 10_000
        let counts = await withTaskGroup(of: Int.self) { g -> [Int: Int] in
            var counts: [Int: Int] = [:]
            for i in 0..<n {
                if i >= 2000, let s = await g.next() { counts[s, default: 0] += 1 }   // ≤ 2000 waiting at once
                g.addTask {
                    let r = (try? await c.send(pushes[i % 3], deviceToken: Self.deviceToken(10_000 + i)))!
                    return r.response?.status ?? -1
                }
            }
            for await s in g { counts[s, default: 0] += 1 }
            return counts
        }
        let stats = c.transport.statistics
        await c.shutdown()
        XCTAssertEqual(counts, [200: n])
        XCTAssertEqual(stats.connectionsOpened, 1, "one HTTP/2 connection")
        XCTAssertEqual(m.statistics.resetStreamsReceived, 0, "the server sees no reset per stream (libcurl 7.88 sent one each)")
        XCTAssertEqual(m.journal().count, n)
        XCTAssertEqual(Set(m.journal().compactMap(\.apnsID)).count, n)
    }

    func testConnectionRotationKeepsEveryRequestAnswered() async throws {
        let m = try mock()
        defer { m.stop() }
        let token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID)
        let c = try APNsClient(environment: .custom(m.baseURL), token: token,
                               transport: HTTP2TransportConfiguration(caFile: m.caCertificatePath, streamsPerConnection: 250))
        let push = try updatePush()
        let statuses = await withTaskGroup(of: Int.self) { g -> [Int] in
            for i in 0..<1000 { g.addTask { (try? await c.send(push, deviceToken: Self.deviceToken(20_000 + i)))?.response?.status ?? -1 } }
            var all: [Int] = []
            for await s in g { all.append(s) }
            return all
        }
        let stats = c.transport.statistics
        await c.shutdown()
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 1000)
        XCTAssertEqual(stats.connectionsOpened, 4, "a fresh connection after every 250 streams")
        XCTAssertEqual(m.journal().count, 1000, "no request sent twice")
    }

    // MARK: Broadcast and channels

    func testChannelLifecycleAndBroadcast() async throws {
        let m = try mock()
        defer { m.stop() }
        let c = try client(m)
        let created = await c.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)
        XCTAssertEqual(created.response?.status, 201)
        let id = try XCTUnwrap(created.response?.channelID)
        let read = await c.readChannel(bundleID: bundleID, channelID: id)
        XCTAssertEqual(read.response?.status, 200)
        XCTAssertTrue(read.response.map { String(decoding: $0.body, as: UTF8.self) }?.contains("\"message-storage-policy\":0") ?? false)
        let list = await c.listChannels(bundleID: bundleID)
        XCTAssertEqual(list.response.map(APNsClient.channelIDs(in:)), [id])
        let push = try LiveActivityPush.update(bundleID: bundleID, contentState: .obj([("status", .string("live"))]))
            .toBroadcast(channelID: id).build()
        let sent = try await c.broadcast(push)
        XCTAssertEqual(sent.response?.status, 200, "\(sent)")
        XCTAssertNotNil(sent.response?.requestID)
        do {
            _ = try await c.send(push, deviceToken: Self.deviceToken(1))
            XCTFail("a broadcast push cannot go to a device token")
        } catch {}
        let deleted = await c.deleteChannel(bundleID: bundleID, channelID: id)
        XCTAssertEqual(deleted.response?.status, 204)
        let gone = await c.readChannel(bundleID: bundleID, channelID: id)
        XCTAssertEqual(gone.response?.reason, .channelNotRegistered)
        XCTAssertEqual(gone.disposition(), .fixRequest)
        await c.shutdown()
    }

    func testSubmitAfterShutdownFailsAtOnce() async throws {
        let m = try mock()
        defer { m.stop() }
        let c = try client(m)
        await c.shutdown()
        let r = try await c.send(try updatePush(), deviceToken: Self.deviceToken(60))
        guard case .failure(let e) = r else { return XCTFail("\(r)") }
        XCTAssertFalse(e.mayHaveBeenProcessed)
    }
}
