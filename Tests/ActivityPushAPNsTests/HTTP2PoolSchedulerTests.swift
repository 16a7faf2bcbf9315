import ActivityPushHTTP2
import XCTest

/// The connection and stream scheduler as a value: events in, actions out, no sockets, no clock.
final class HTTP2PoolSchedulerTests: XCTestCase {
    typealias Scheduler = HTTP2PoolScheduler

    func policy(connections: Int = 1, streams: Int = 1000, keepalive: Double = 0) -> Scheduler.Policy {
        var policy = Scheduler.Policy()
        policy.maxConnections = connections
        policy.maxConcurrentStreams = streams
        policy.keepaliveSeconds = keepalive
        return policy
    }

    func starts(_ actions: [Scheduler.Action]) -> [(request: Int, connection: Int)] {
        actions.compactMap { if case .start(let r, let c) = $0 { return (r, c) } else { return nil } }
    }

    func failures(_ actions: [Scheduler.Action]) -> [Int: HTTP2StreamFailure] {
        var out: [Int: HTTP2StreamFailure] = [:]
        for case .fail(let r, let f) in actions { out[r] = f }
        return out
    }

    /// Opens connection 1, answers its first stream 200 (warm), returns the scheduler ready for volume.
    func warmScheduler(_ policy: Scheduler.Policy, peerLimit: Int? = 100) -> (Scheduler, next: Int32) {
        var s = Scheduler(policy: policy)
        s.enqueue(1, now: 0)
        XCTAssertEqual(s.poll(now: 0), [.connect(1)])
        s.connectionEstablished(1, now: 0)
        s.settingsReceived(1, maxConcurrentStreams: peerLimit)
        XCTAssertEqual(s.poll(now: 0), [.start(1, on: 1)])
        s.streamOpened(1, on: 1, streamID: 1)
        s.requestWritten(on: 1, streamID: 1)
        XCTAssertEqual(s.answered(on: 1, streamID: 1, status: 200, now: 0.1), 1)
        return (s, 3)
    }

    func testFreshConnectionCarriesOneStreamUntilAValidTokenIsAnswered() {
        var s = Scheduler(policy: policy())
        for id in 1...5 { s.enqueue(id, now: 0) }
        XCTAssertEqual(s.poll(now: 0), [.connect(1)], "one connection for the pool")
        s.connectionEstablished(1, now: 0)
        s.settingsReceived(1, maxConcurrentStreams: 1000)
        XCTAssertEqual(starts(s.poll(now: 0)).map(\.request), [1], "one stream before the first answer")
        s.streamOpened(1, on: 1, streamID: 1)
        s.requestWritten(on: 1, streamID: 1)
        XCTAssertEqual(s.answered(on: 1, streamID: 1, status: 403, now: 0.1), 1)
        XCTAssertFalse(s.isWarm(1), "a 403 says nothing valid about the token")
        XCTAssertEqual(starts(s.poll(now: 0.1)).map(\.request), [2])
        s.streamOpened(2, on: 1, streamID: 3)
        XCTAssertEqual(s.answered(on: 1, streamID: 3, status: 200, now: 0.2), 2)
        XCTAssertTrue(s.isWarm(1))
        XCTAssertEqual(starts(s.poll(now: 0.2)).map(\.request), [3, 4, 5], "opens up after a valid answer")
    }

    func testStreamLimitIsHonouredAsItChangesIncludingADropToOne() {
        var (s, _) = warmScheduler(policy(), peerLimit: 3)
        for id in 10..<20 { s.enqueue(id, now: 1) }
        let first = starts(s.poll(now: 1))
        XCTAssertEqual(first.map(\.request), [10, 11, 12], "peer allows 3")
        for (k, start) in first.enumerated() { s.streamOpened(start.request, on: 1, streamID: Int32(5 + 2 * k)) }
        s.settingsReceived(1, maxConcurrentStreams: 1)
        XCTAssertEqual(s.capacity(of: 1), 1)
        _ = s.answered(on: 1, streamID: 5, status: 200, now: 1.1)
        XCTAssertTrue(starts(s.poll(now: 1.1)).isEmpty, "2 open > limit 1: nothing new")
        _ = s.answered(on: 1, streamID: 7, status: 200, now: 1.2)
        XCTAssertTrue(starts(s.poll(now: 1.2)).isEmpty, "1 open = limit 1: nothing new")
        _ = s.answered(on: 1, streamID: 9, status: 200, now: 1.3)
        XCTAssertEqual(starts(s.poll(now: 1.3)).map(\.request), [13], "one at a time now")
        s.streamOpened(13, on: 1, streamID: 11)
        s.settingsReceived(1, maxConcurrentStreams: 4)
        XCTAssertEqual(starts(s.poll(now: 1.4)).map(\.request), [14, 15, 16], "raised again: 4 in flight")
        XCTAssertEqual(s.connectionCount, 1, "one connection is enough while it has room")
    }

    func testClientCapLimitsStreamsBelowThePeers() {
        var (s, _) = warmScheduler(policy(streams: 2), peerLimit: 1000)
        for id in 10..<15 { s.enqueue(id, now: 1) }
        XCTAssertEqual(starts(s.poll(now: 1)).count, 2)
    }

    func testSaturatedPoolOpensAnotherConnectionUpToTheMaximum() {
        var (s, _) = warmScheduler(policy(connections: 2), peerLimit: 2)
        for id in 10..<16 { s.enqueue(id, now: 1) }
        let actions = s.poll(now: 1)
        XCTAssertEqual(starts(actions).map(\.request), [10, 11])
        XCTAssertTrue(actions.contains(.connect(2)), "full → a second connection: \(actions)")
        XCTAssertFalse(s.poll(now: 1).contains(.connect(3)), "no third while one is connecting")
        s.connectionEstablished(2, now: 1.1)
        s.settingsReceived(2, maxConcurrentStreams: 2)
        let second = starts(s.poll(now: 1.1))
        XCTAssertEqual(second.map(\.connection), [2], "a fresh connection carries one stream first")
        XCTAssertFalse(s.poll(now: 1.1).contains { if case .connect = $0 { return true } else { return false } },
                       "never more than the maximum")
    }

    func testRefusedStreamIsResentAtOnceAndCountedNotFailed() {
        var (s, _) = warmScheduler(policy())
        s.enqueue(10, now: 1)
        XCTAssertEqual(starts(s.poll(now: 1)).map(\.request), [10])
        s.streamOpened(10, on: 1, streamID: 3)
        s.requestWritten(on: 1, streamID: 3)
        s.streamClosed(on: 1, streamID: 3, errorCode: Scheduler.refusedStreamCode, now: 1.1)
        let again = s.poll(now: 1.1)
        XCTAssertEqual(starts(again).map(\.request), [10], "resent at once, the same request (same apns-id)")
        XCTAssertTrue(failures(again).isEmpty)
        XCTAssertEqual(s.counters.refused, 1)
        XCTAssertEqual(s.counters.failures, 0)
        s.streamOpened(10, on: 1, streamID: 5)
        XCTAssertEqual(s.answered(on: 1, streamID: 5, status: 200, now: 1.2), 10)
        XCTAssertEqual(s.outstanding, 0)
    }

    func testGoawayResendsStreamsAboveTheLastStreamIDOnAHealthyConnection() {
        var (s, _) = warmScheduler(policy())
        for id in 10..<14 { s.enqueue(id, now: 1) }
        for (k, start) in starts(s.poll(now: 1)).enumerated() {
            s.streamOpened(start.request, on: 1, streamID: Int32(3 + 2 * k))   // 3, 5, 7, 9
            s.requestWritten(on: 1, streamID: Int32(3 + 2 * k))
        }
        s.goawayReceived(1, lastStreamID: 5, now: 1.1)
        XCTAssertEqual(s.counters.refused, 2, "7 and 9 were not processed")
        var actions = s.poll(now: 1.1)
        XCTAssertTrue(starts(actions).isEmpty, "not on the connection going away")
        XCTAssertTrue(actions.contains(.connect(2)), "\(actions)")
        XCTAssertEqual(s.answered(on: 1, streamID: 3, status: 200, now: 1.2), 10, "streams at or below it still answer")
        XCTAssertEqual(s.answered(on: 1, streamID: 5, status: 200, now: 1.2), 11)
        actions = s.poll(now: 1.2)
        XCTAssertTrue(actions.contains(.close(1)), "drained: closed")
        s.connectionEstablished(2, now: 1.3)
        XCTAssertTrue(starts(s.poll(now: 1.3)).isEmpty, "nothing before the peer's SETTINGS preface")
        s.prefaceReceived(2)
        XCTAssertEqual(starts(s.poll(now: 1.3)).map(\.request), [12], "resent on the new connection (one until warm)")
        XCTAssertEqual(s.counters.failures, 0)
    }

    func testDroppedConnectionSplitsWrittenFromUnwrittenRequests() {
        var (s, _) = warmScheduler(policy())
        for id in 10..<13 { s.enqueue(id, now: 1) }
        for (k, start) in starts(s.poll(now: 1)).enumerated() { s.streamOpened(start.request, on: 1, streamID: Int32(3 + 2 * k)) }
        s.requestWritten(on: 1, streamID: 3)
        s.requestWritten(on: 1, streamID: 5)
        s.connectionLost(1, message: "the server closed the connection", now: 1.1)
        let actions = s.poll(now: 1.1)
        let failed = failures(actions)
        XCTAssertEqual(Set(failed.keys), [10, 11])
        XCTAssertEqual(failed[10]?.kind, .mayHaveBeenProcessed)
        XCTAssertEqual(s.counters.mayHaveBeenProcessed, 2)
        XCTAssertEqual(s.counters.retriedUnsent, 1, "12 never went out: queued again")
        XCTAssertTrue(actions.contains(.connect(2)))
    }

    func testGoawayThenCloseKeepsAboveLastStreamRefusedNotMaybe() {
        var (s, _) = warmScheduler(policy())
        s.enqueue(10, now: 1)
        _ = s.poll(now: 1)
        s.streamOpened(10, on: 1, streamID: 3)
        s.requestWritten(on: 1, streamID: 3)
        s.enqueue(11, now: 1)
        s.connectionLost(1, message: "closed", now: 1.1)   // abrupt: no GOAWAY
        XCTAssertEqual(failures(s.poll(now: 1.1))[10]?.kind, .mayHaveBeenProcessed)
    }

    func testDeadlinesEndWaitingAsNotSentAndWrittenAsMaybeWithACancel() {
        var p = policy()
        p.requestTimeoutSeconds = 10
        var (s, _) = warmScheduler(p, peerLimit: 1)
        s.enqueue(10, now: 1)
        s.enqueue(11, now: 1)
        XCTAssertEqual(starts(s.poll(now: 1)).map(\.request), [10])
        s.streamOpened(10, on: 1, streamID: 3)
        s.requestWritten(on: 1, streamID: 3)
        XCTAssertEqual(s.nextWakeup(), 11)
        XCTAssertTrue(s.poll(now: 10.9).isEmpty)
        let actions = s.poll(now: 11)
        XCTAssertTrue(actions.contains(.cancel(streamID: 3, on: 1)))
        let failed = failures(actions)
        XCTAssertEqual(failed[10]?.kind, .mayHaveBeenProcessed)
        XCTAssertEqual(failed[10]?.timedOut, true)
        XCTAssertEqual(failed[11]?.kind, .notSent, "never got a stream")
        XCTAssertEqual(failed[11]?.timedOut, true)
        XCTAssertEqual(s.counters.timedOut, 2)
        XCTAssertNil(s.answered(on: 1, streamID: 3, status: 200, now: 11.5), "a late answer is not a second result")
    }

    func testKeepalivePingsAQuietConnectionAndClosesADeadOne() {
        var p = policy(keepalive: 30)
        p.pingTimeoutSeconds = 5
        var (s, _) = warmScheduler(p)
        s.heard(1, now: 0)
        XCTAssertEqual(s.nextWakeup(), 30)
        XCTAssertTrue(s.poll(now: 29).isEmpty)
        XCTAssertEqual(s.poll(now: 30), [.ping(1)])
        s.heard(1, now: 30.01)   // PING ACK
        XCTAssertTrue(s.poll(now: 40).isEmpty)
        XCTAssertEqual(s.poll(now: 60.02), [.ping(1)])
        XCTAssertTrue(s.poll(now: 65.03).contains(.close(1)), "no answer to the PING: dead")
        XCTAssertEqual(s.connectionCount, 0)
        s.enqueue(20, now: 66)
        XCTAssertEqual(s.poll(now: 66), [.connect(2)], "the next request reconnects")
        XCTAssertEqual(s.counters.pingsSent, 2)
    }

    func testConnectFailureIsTriedOnceMoreThenNotSent() {
        var s = Scheduler(policy: policy())
        s.enqueue(1, now: 0)
        XCTAssertEqual(s.poll(now: 0), [.connect(1)])
        s.connectionLost(1, message: "TLS handshake failed", now: 0.1)
        XCTAssertEqual(s.poll(now: 0.1), [.connect(2)])
        s.connectionLost(2, message: "TLS handshake failed", now: 0.2)
        let failed = failures(s.poll(now: 0.2))
        XCTAssertEqual(failed[1]?.kind, .notSent)
        XCTAssertEqual(failed[1]?.attempts, 2)
        XCTAssertEqual(s.counters.connectFailures, 2)
    }

    func testConnectTimeout() {
        var p = policy()
        p.connectTimeoutSeconds = 2
        var s = Scheduler(policy: p)
        s.enqueue(1, now: 0)
        _ = s.poll(now: 0)
        let actions = s.poll(now: 2)
        XCTAssertTrue(actions.contains(.close(1)))
        XCTAssertTrue(actions.contains(.connect(2)), "tried once more")
    }

    func testRefusalsEndAsRefusedAfterTheResendLimit() {
        var p = policy()
        p.maxRefusedResends = 2
        var (s, next) = warmScheduler(p)
        s.enqueue(10, now: 1)
        var failed: [Int: HTTP2StreamFailure] = [:]
        var now = 1.0
        for _ in 0..<3 {
            let actions = s.poll(now: now)
            failed.merge(failures(actions)) { $1 }
            guard starts(actions).count == 1 else { break }
            s.streamOpened(10, on: 1, streamID: next)
            s.requestWritten(on: 1, streamID: next)
            s.streamClosed(on: 1, streamID: next, errorCode: Scheduler.refusedStreamCode, now: now)
            next += 2
            now += p.refusedBackoffCapSeconds   // resends after the first wait for their backoff
        }
        failed.merge(failures(s.poll(now: now))) { $1 }
        XCTAssertEqual(failed[10]?.kind, .refused)
        XCTAssertEqual(s.counters.refused, 3)
    }

    func testOtherResetAfterWriteIsMayHaveBeenProcessed() {
        var (s, _) = warmScheduler(policy())
        s.enqueue(10, now: 1)
        _ = s.poll(now: 1)
        s.streamOpened(10, on: 1, streamID: 3)
        s.requestWritten(on: 1, streamID: 3)
        s.streamClosed(on: 1, streamID: 3, errorCode: 0x2, now: 1.1)   // INTERNAL_ERROR
        let failed = failures(s.poll(now: 1.1))
        XCTAssertEqual(failed[10]?.kind, .mayHaveBeenProcessed)
        XCTAssertTrue(failed[10]?.message.contains("INTERNAL_ERROR") ?? false)
    }

    func testRotationDrainsAndOpensAFreshConnection() {
        var p = policy()
        p.streamsPerConnection = 3
        var (s, _) = warmScheduler(p)   // one stream used
        for id in 10..<14 { s.enqueue(id, now: 1) }
        let actions = s.poll(now: 1)
        XCTAssertEqual(starts(actions).map(\.request), [10, 11], "3 streams in all on connection 1")
        XCTAssertTrue(actions.contains(.connect(2)))
    }

    func testShutdownFailsQueuedAsNotSent() {
        var s = Scheduler(policy: policy())
        s.enqueue(1, now: 0)
        s.failQueued(message: "the client was shut down")
        XCTAssertEqual(failures(s.poll(now: 0))[1]?.kind, .notSent)
        XCTAssertEqual(s.outstanding, 0)
    }

    // MARK: Refusal backoff, peers that never speak HTTP/2, malformed answers

    func testRepeatedRefusalsBackOffThenEndRefusedNotProcessed() {
        var p = policy()
        p.maxRefusedResends = 5
        p.refusedBackoffSeconds = 0.01
        p.refusedBackoffCapSeconds = 0.05
        var (s, next) = warmScheduler(p)
        s.enqueue(10, now: 1)
        var now = 1.0
        var startTimes: [Double] = []
        var failed: [Int: HTTP2StreamFailure] = [:]
        for _ in 0..<200 {   // bounded: 200 polls, 5 ms apart
            let actions = s.poll(now: now)
            failed.merge(failures(actions)) { $1 }
            if failed[10] != nil { break }
            if starts(actions).count == 1 {
                startTimes.append(now)
                s.streamOpened(10, on: 1, streamID: next)
                s.requestWritten(on: 1, streamID: next)
                s.streamClosed(on: 1, streamID: next, errorCode: Scheduler.refusedStreamCode, now: now)
                next += 2
                continue   // the first refusal is resent in the same turn
            }
            XCTAssertNotNil(s.nextWakeup(), "a delayed resend is a wake-up")
            now += 0.005
        }
        XCTAssertEqual(failed[10]?.kind, .refused)
        XCTAssertTrue(failed[10]?.message.contains("not processed") ?? false, failed[10]?.message ?? "")
        XCTAssertEqual(startTimes.count, 6, "the first send and 5 resends, then the cap")
        XCTAssertEqual(s.counters.refused, 6)
        let gaps = zip(startTimes.dropFirst(), startTimes).map { $0 - $1 }
        XCTAssertEqual(gaps[0], 0, accuracy: 1e-9, "the first refusal is resent at once (a GOAWAY's streams)")
        for (k, gap) in gaps.enumerated().dropFirst() {
            let expected = min(0.05, 0.01 * Double(1 << (k - 1)))
            XCTAssertGreaterThanOrEqual(gap, expected - 1e-9, "resend \(k + 1) waited \(gap) s, backoff \(expected) s")
        }
    }

    func testDelayedRefusedRequestStillHonoursItsDeadline() {
        var p = policy()
        p.requestTimeoutSeconds = 0.5
        p.refusedBackoffSeconds = 1
        var (s, next) = warmScheduler(p)
        s.enqueue(10, now: 1)
        for _ in 0..<2 {
            XCTAssertEqual(starts(s.poll(now: 1)).map(\.request), [10])
            s.streamOpened(10, on: 1, streamID: next)
            s.requestWritten(on: 1, streamID: next)
            s.streamClosed(on: 1, streamID: next, errorCode: Scheduler.refusedStreamCode, now: 1)
            next += 2
        }
        XCTAssertTrue(starts(s.poll(now: 1.2)).isEmpty, "backing off")
        let failed = failures(s.poll(now: 1.5))
        XCTAssertEqual(failed[10]?.kind, .refused, "deadline while waiting to resend: refused, never processed")
        XCTAssertEqual(s.outstanding, 0)
    }

    func testPeerThatNeverSpeaksHTTP2EndsNotSentWithoutAConnectionPerRequest() {
        var s = Scheduler(policy: policy())
        for id in 1...100 { s.enqueue(id, now: 0) }
        var connects = 0
        var failed: [Int: HTTP2StreamFailure] = [:]
        var now = 0.0
        for _ in 0..<10 {
            let actions = s.poll(now: now)
            failed.merge(failures(actions)) { $1 }
            guard case .connect(let cid)? = actions.first(where: { if case .connect = $0 { return true } else { return false } }) else { break }
            connects += 1
            s.connectionEstablished(cid, now: now)   // TCP (+TLS) up, our preface sent; the peer sent no frame
            XCTAssertTrue(starts(s.poll(now: now)).isEmpty, "no request before the peer's SETTINGS preface")
            now += 0.1
            s.connectionLost(cid, message: "HTTP/2 protocol error from the server", now: now)
        }
        failed.merge(failures(s.poll(now: now))) { $1 }
        XCTAssertEqual(connects, 2, "tried once more, not once per request")
        XCTAssertEqual(failed.count, 100)
        XCTAssertTrue(failed.values.allSatisfy { $0.kind == .notSent }, "nothing can have been processed: \(Set(failed.values.map(\.kind)))")
        XCTAssertEqual(s.counters.mayHaveBeenProcessed, 0)
        XCTAssertEqual(s.counters.notSent, 100)
        XCTAssertEqual(s.counters.streamsOpened, 0)
    }

    func testLossAfterThePeersPrefaceStillSplitsWrittenFromUnwritten() {
        var s = Scheduler(policy: policy())
        s.enqueue(1, now: 0)
        _ = s.poll(now: 0)
        s.connectionEstablished(1, now: 0)
        s.prefaceReceived(1)
        _ = s.poll(now: 0)
        s.streamOpened(1, on: 1, streamID: 1)
        s.requestWritten(on: 1, streamID: 1)
        s.connectionLost(1, message: "the server closed the connection", now: 0.1)
        XCTAssertEqual(failures(s.poll(now: 0.1))[1]?.kind, .mayHaveBeenProcessed, "an HTTP/2 server may have processed it")
    }

    func testMalformedAnswerIsMayHaveBeenProcessedNotAResponse() {
        var (s, _) = warmScheduler(policy())
        s.enqueue(10, now: 1)
        _ = s.poll(now: 1)
        s.streamOpened(10, on: 1, streamID: 3)
        s.requestWritten(on: 1, streamID: 3)
        s.streamMalformed(on: 1, streamID: 3, message: ":status 099 is not 100–599", now: 1.1)
        let failed = failures(s.poll(now: 1.1))
        XCTAssertEqual(failed[10]?.kind, .mayHaveBeenProcessed)
        XCTAssertTrue(failed[10]?.message.contains("099") ?? false)
        XCTAssertEqual(s.counters.responses, 1, "only the warm-up answer")
        XCTAssertNil(s.answered(on: 1, streamID: 3, status: 200, now: 1.2), "the stream is settled")
    }
}
