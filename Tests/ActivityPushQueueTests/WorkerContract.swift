import ActivityPushAPNs
import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// The worker against a scripted APNs, on both back ends: every push ends in the state the retry table says,
/// retries resend the stored bytes with the same apns-id, and the journal has every attempt.
struct WorkerContract {
    let make: () throws -> any QueueStore

    private func worker(_ store: any QueueStore, _ sender: ScriptedSender, _ clock: TestClock,
                        policy: QueueRetryPolicy = .init()) -> QueueWorker {
        QueueWorker(store: store, sender: sender,
                    options: WorkerOptions(name: "test-worker", window: 50, leaseSeconds: 30, pollIntervalSeconds: 0,
                                           drain: true, policy: policy),
                    clock: { clock.now }, random: { 0.5 })
    }

    func faultsEndInTheStatesAppleSays() async throws {
        let store = try make()
        defer { store.close() }
        let clock = TestClock()
        // token 1: 429 with Retry-After 30, then 200. token 2: 500 then 200. token 3: 410 Unregistered.
        // token 4: BadDeviceToken. token 5: 200. token 6: ExpiredProviderToken then 200.
        let sender = ScriptedSender { target, n in
            switch (target, n) {
            case (Pushes.token(1), 0): return ScriptedSender.response(429, .tooManyRequests, retryAfter: 30)
            case (Pushes.token(2), 0): return ScriptedSender.response(500, .internalServerError)
            case (Pushes.token(3), _): return ScriptedSender.response(410, .unregistered, timestampMs: 1_799_000_000_000)
            case (Pushes.token(4), _): return ScriptedSender.response(400, .badDeviceToken)
            case (Pushes.token(6), 0): return ScriptedSender.response(403, .expiredProviderToken)
            default: return ScriptedSender.response(200, apnsID: nil)
            }
        }
        let outbox = Outbox(store: store)
        let ids = try outbox.enqueue(try Pushes.update(ts: 10), to: (1...6).map(Pushes.token), nowUnixSeconds: clock.now)
        let w = worker(store, sender, clock)

        let first = try await w.run()
        XCTAssertEqual(first.claimed, 7, "6 pushes, and the ExpiredProviderToken one again at once")
        XCTAssertEqual(sender.refreshes, 1, "a new JWT after ExpiredProviderToken")
        var st = try store.status(nowUnixSeconds: clock.now)
        XCTAssertEqual(st.counts["sent"], 2, "tokens 5 and 6")
        XCTAssertEqual(st.counts["pending"], 2, "429 and 500 wait")
        XCTAssertEqual(st.counts["dead"], 2)
        XCTAssertEqual(st.deadByReason, ["Unregistered": 1, "BadDeviceToken": 1])
        XCTAssertEqual(st.inactiveTokens, 1)
        let p1 = try XCTUnwrap(store.push(id: ids[0]))
        XCTAssertEqual(p1.notBeforeUnixSeconds, clock.now + 30, "Retry-After honoured")
        XCTAssertEqual(p1.lastReason, "TooManyRequests")
        let p2 = try XCTUnwrap(store.push(id: ids[1]))
        XCTAssertGreaterThanOrEqual(p2.notBeforeUnixSeconds, clock.now + 900, "5xx: no sooner than 15 minutes")

        // A later push to the 410 token is not sent.
        let later = try outbox.enqueue(try Pushes.update(ts: 20), to: [Pushes.token(3)], nowUnixSeconds: clock.now)
        let sentBefore = sender.sent.count
        try await w.run()
        XCTAssertEqual(sender.sent.count, sentBefore, "no request for an inactive token")
        XCTAssertEqual(try store.push(id: later[0])?.state, .dead)
        XCTAssertEqual(try store.journal(pushID: later[0], limit: 5).map(\.outcome), [.tokenInactive])

        // 31 s later the 429 push goes; 15 min later the 500 push goes.
        clock.advance(31)
        try await w.run()
        XCTAssertEqual(try store.push(id: ids[0])?.state, .sent)
        XCTAssertEqual(try store.push(id: ids[1])?.state, .pending)
        clock.advance(1000)
        try await w.run()
        st = try store.status(nowUnixSeconds: clock.now)
        XCTAssertEqual(st.counts["sent"], 4)
        XCTAssertEqual(st.counts["pending"], 0)
        XCTAssertEqual(st.counts["inflight"], 0)

        // Retries resent the stored bytes with the same apns-id.
        for token in [Pushes.token(1), Pushes.token(2), Pushes.token(6)] {
            let tries = sender.sent.filter { $0.target == token }
            XCTAssertEqual(tries.count, 2, token)
            XCTAssertEqual(tries[0].apnsID, tries[1].apnsID)
            XCTAssertEqual(tries[0].body, tries[1].body)
            XCTAssertEqual(tries[0].body, try Pushes.update(ts: 10).body)
        }
        // Journal: every attempt, with status, reason, apns-id, latency.
        let j2 = try store.journal(pushID: ids[1], limit: 10)
        XCTAssertEqual(j2.map(\.outcome), [.retry, .sent])
        XCTAssertEqual(j2.map(\.status), [500, 200])
        XCTAssertEqual(j2[0].reason, "InternalServerError")
        XCTAssertTrue(j2.allSatisfy { $0.apnsID == p2.apnsID && $0.latencyMilliseconds != nil && $0.worker == "test-worker" })
        let j3 = try store.journal(pushID: ids[2], limit: 10)
        XCTAssertEqual(j3.map(\.outcome), [.dead])
        XCTAssertEqual(j3.first?.status, 410)
    }

    func maxAttemptsThenDeadLetter() async throws {
        let store = try make()
        defer { store.close() }
        let clock = TestClock()
        let sender = ScriptedSender { _, _ in ScriptedSender.response(503, .serviceUnavailable) }
        let ids = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: [Pushes.token(9)], nowUnixSeconds: clock.now)
        let w = worker(store, sender, clock, policy: QueueRetryPolicy(maxAttempts: 3, serverErrorDelaySeconds: 10))
        for _ in 0..<5 {
            try await w.run()
            clock.advance(100)
        }
        XCTAssertEqual(sender.sent.count, 3)
        let p = try XCTUnwrap(store.push(id: ids[0]))
        XCTAssertEqual(p.state, .dead)
        XCTAssertEqual(p.lastReason, QueueRetryPolicy.maxAttemptsReason)
        XCTAssertEqual(try store.journal(pushID: ids[0], limit: 10).map(\.outcome), [.retry, .retry, .dead])
        XCTAssertEqual(try store.deadLetters(limit: 5).first?.reason, QueueRetryPolicy.maxAttemptsReason)
    }

    func supersededUpdatesAreNotSent() async throws {
        let store = try make()
        defer { store.close() }
        let clock = TestClock()
        let sender = ScriptedSender { _, _ in ScriptedSender.response(200) }
        let outbox = Outbox(store: store)
        _ = try outbox.enqueue(try Pushes.update(ts: 1, minutes: 9), to: [Pushes.token(1)], nowUnixSeconds: clock.now)
        _ = try outbox.enqueue(try Pushes.update(ts: 2, minutes: 8), to: [Pushes.token(1)], nowUnixSeconds: clock.now)
        let end = try Pushes.end(ts: 3)
        _ = try outbox.enqueue(end, to: [Pushes.token(1)], nowUnixSeconds: clock.now)
        try await worker(store, sender, clock).run()
        XCTAssertEqual(sender.sent.map(\.body), [end.body], "only the end goes out")
        XCTAssertEqual(try store.status(nowUnixSeconds: clock.now).counts["superseded"], 2)
    }
}

final class SQLiteWorkerTests: XCTestCase {
    let contract = WorkerContract(make: { try SQLiteQueueStore(path: temporarySQLitePath()) })
    func testFaultsEndInTheStatesAppleSays() async throws { try await contract.faultsEndInTheStatesAppleSays() }
    func testMaxAttemptsThenDeadLetter() async throws { try await contract.maxAttemptsThenDeadLetter() }
    func testSupersededUpdatesAreNotSent() async throws { try await contract.supersededUpdatesAreNotSent() }
}

final class PostgresWorkerTests: XCTestCase {
    let contract = WorkerContract(make: { try PostgresQueueStore(url: try PostgresTestServer.freshDatabase()) })
    func testFaultsEndInTheStatesAppleSays() async throws { try await contract.faultsEndInTheStatesAppleSays() }
    func testMaxAttemptsThenDeadLetter() async throws { try await contract.maxAttemptsThenDeadLetter() }
    func testSupersededUpdatesAreNotSent() async throws { try await contract.supersededUpdatesAreNotSent() }
}
