import XCTest
@testable import ActivityPushQueue

/// What `worker --drain` says at the end of a run: each undelivered push counted once (issue 11, W7/N5), and the
/// hint when it claimed nothing because the due pushes are for another environment or credential (U5).
final class WorkerRunCountTests: XCTestCase {
    func testDeadOnAnAnswerCountsOnceAndInactiveTokensCount() {
        var summary = WorkerSummary()
        summary.claimed = 1
        summary.dead = 1
        // One push dead-lettered on APNs's answer is also the tally's one push not accepted: one push, not two.
        let once = UndeliveredCount(summary: summary, notAcceptedAtLastAttempt: 1)
        XCTAssertEqual(once.total, 1)
        XCTAssertEqual(once.description, "1 push: 1 dead-lettered after the last attempt")

        // A push for a token APNs had marked inactive: no request, still undelivered (it exited 0 before).
        var inactive = WorkerSummary()
        inactive.claimed = 1
        inactive.notSent = 1
        inactive.tokenInactive = 1
        let unsent = UndeliveredCount(summary: inactive, notAcceptedAtLastAttempt: 0)
        XCTAssertEqual(unsent.total, 1)
        XCTAssertTrue(unsent.description.contains("token APNs had marked inactive"), unsent.description)

        // Mixed: 2 dead after an answer, 1 waiting for a retry, 1 dead by triage, 1 inactive token.
        var mixed = WorkerSummary()
        mixed.dead = 3
        mixed.deadUnsent = 1
        mixed.tokenInactive = 1
        let split = UndeliveredCount(summary: mixed, notAcceptedAtLastAttempt: 3)
        XCTAssertEqual([split.deadAfterAttempt, split.waitingForRetry, split.deadUnsent, split.tokenInactive], [2, 1, 1, 1])
        XCTAssertEqual(split.total, 5)
        XCTAssertEqual(UndeliveredCount(summary: WorkerSummary(), notAcceptedAtLastAttempt: 0).total, 0)
    }

    func testIdleWorkerHintNamesTheOtherRoutes() {
        var status = QueueStatus(counts: [:], due: 3, oldestDueUnixSeconds: nil, nextRetryUnixSeconds: nil, deadByReason: [:],
                                 inactiveTokens: 0, attempts: 0)
        status.dueByRoute = [.init(environment: "production", credential: "team-b", count: 3)]
        XCTAssertEqual(status.hintForIdleWorker(environment: "sandbox", credential: "default"),
                       "3 pushes due for environment production / credential team-b; this worker serves sandbox/default "
                       + "(start one with --env production --credential team-b for them)")
        XCTAssertNil(status.hintForIdleWorker(environment: "production", credential: "team-b"), "its own pushes: no hint")
        status.dueByRoute = []
        XCTAssertNil(status.hintForIdleWorker(environment: "sandbox", credential: "default"))
    }

    func testStatusCountsDuePushesPerEnvironmentAndCredential() throws {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let now = 1_800_000_000.0
        let outbox = Outbox(store: store)
        _ = try outbox.enqueue(try Pushes.update(ts: 1), to: [Pushes.token(1), Pushes.token(2)], environment: .production,
                               credential: "team-b", nowUnixSeconds: now)
        _ = try outbox.enqueue(try Pushes.update(ts: 1), to: [Pushes.token(3)], nowUnixSeconds: now)
        let status = try store.status(nowUnixSeconds: now + 1)
        XCTAssertEqual(status.dueByRoute, [.init(environment: "production", credential: "team-b", count: 2),
                                           .init(environment: "sandbox", credential: "default", count: 1)])
        XCTAssertTrue(try store.claim(worker: "w", limit: 10, leaseSeconds: 30, environment: .sandbox, credential: "other",
                                      nowUnixSeconds: now + 1).isEmpty)
        XCTAssertEqual(status.hintForIdleWorker(environment: "sandbox", credential: "other")?.hasPrefix(
            "2 pushes due for environment production / credential team-b, 1 push due for environment sandbox / credential default;"), true)
    }
}
