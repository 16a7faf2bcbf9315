import ActivityPushAPNs
import ActivityPushCore
import Foundation
import Synchronization
import XCTest
@testable import ActivityPushQueue

/// The triage step as a plain function: no database, no socket.
final class WorkerTriageTests: XCTestCase {
    private func stored(_ id: Int64, target: String, event: LiveActivityEvent = .update, attempts: Int = 1,
                        reclaimed: Bool = false, supersededBy: Int64? = nil) throws -> StoredPush {
        let request = event == .start ? try Pushes.start(ts: 10) : try Pushes.update(ts: 10)
        var headers = request.headers
        headers["apns-id"] = "00000000-0000-0000-0000-\(String(format: "%012d", id))"
        var push = StoredPush(id: id, bundleID: Pushes.bundleID, event: event, headers: headers, body: request.body,
                              target: target, isBroadcast: false, environment: .sandbox, credential: "default",
                              apnsID: headers["apns-id"] ?? "", state: .inflight, attempts: attempts,
                              notBeforeUnixSeconds: 0, enqueuedUnixSeconds: 0)
        push.reclaimedAfterExpiredLease = reclaimed
        push.supersededBy = supersededBy
        return push
    }

    func testEachRuleInOrder() throws {
        let claimed = [
            try stored(1, target: Pushes.token(1)),                                  // send
            try stored(2, target: Pushes.token(1), event: .end),                     // same token: released
            try stored(3, target: Pushes.token(2), attempts: 9),                     // crash loop: dead
            try stored(4, target: Pushes.token(3), event: .start, reclaimed: true),  // start after expired lease: dead
            try stored(5, target: Pushes.token(4), reclaimed: true),                 // update after expired lease: send
            try stored(6, target: Pushes.token(5)),                                  // inactive token
            try stored(7, target: Pushes.token(6), supersededBy: 99),                // overtaken at claim
            try stored(8, target: Pushes.token(7)),                                  // in flight at this worker: released
        ]
        var broken = try stored(9, target: Pushes.token(8))
        broken.body = Array("{\"aps\":{}}".utf8)                                     // no longer validates
        let triage = WorkerTriage.plan(claimed: claimed + [broken], inactiveTokens: [Pushes.token(5): "Unregistered"],
                                       targetsInFlight: [Pushes.token(7)], maxAttempts: 8, worker: "w",
                                       nowUnixSeconds: 100)
        XCTAssertEqual(triage.send.map(\.push.id), [1, 5])
        let byID = Dictionary(uniqueKeysWithValues: triage.settled.map { ($0.pushID, $0) })
        XCTAssertEqual(byID[2]?.outcome, .released)
        XCTAssertEqual(byID[3]?.reason, QueueRetryPolicy.maxAttemptsReason)
        XCTAssertEqual(byID[4]?.outcome, .dead)
        XCTAssertEqual(byID[4]?.reason, QueueRetryPolicy.mayHaveBeenProcessedReason)
        XCTAssertEqual(byID[6]?.outcome, .tokenInactive)
        XCTAssertEqual(byID[7]?.outcome, .superseded)
        XCTAssertEqual(byID[8]?.outcome, .released)
        XCTAssertEqual(byID[9]?.reason, "StoredPushInvalid")
        XCTAssertTrue(triage.settled.allSatisfy { $0.latencyMilliseconds == nil && $0.worker == "w" })
    }
}

/// A sender that answers 200 after a delay and counts requests per apns-id, with how many are in flight at
/// once (overall and per token).
final class CountingSender: PushSender {
    private struct State {
        var sentByID: [String: Int] = [:]
        var inFlight = 0
        var maxInFlight = 0
        var inFlightByTarget: [String: Int] = [:]
        var maxInFlightPerTarget = 0
    }
    private let state = Mutex(State())
    let delaySeconds: Double
    init(delaySeconds: Double) { self.delaySeconds = delaySeconds }

    func send(_ request: PushRequest, to target: String) async -> APNsResult {
        state.withLock { s in
            s.sentByID[request.apnsID ?? "", default: 0] += 1
            s.inFlight += 1
            s.maxInFlight = max(s.maxInFlight, s.inFlight)
            s.inFlightByTarget[target, default: 0] += 1
            s.maxInFlightPerTarget = max(s.maxInFlightPerTarget, s.inFlightByTarget[target]!)
        }
        try? await Task.sleep(nanoseconds: UInt64(delaySeconds * 1e9))
        state.withLock { s in
            s.inFlight -= 1
            s.inFlightByTarget[target]! -= 1
        }
        return .response(APNsResponse(status: 200, apnsID: request.apnsID))
    }
    func refreshCredentials() async {}

    var sentByID: [String: Int] { state.withLock { $0.sentByID } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var maxInFlightPerTarget: Int { state.withLock { $0.maxInFlightPerTarget } }
}

/// A real store whose writes can be made to fail (the database gone, or full), to watch the worker ride it out.
final class FailingStore: QueueStore {
    let inner: any QueueStore
    private let failure = Mutex<QueueError?>(nil)
    private let claimsWhileFailing = Atomic<Int>(0)
    private let failedCompletes = Atomic<Int>(0)
    init(_ inner: any QueueStore) { self.inner = inner }

    func fail(with error: QueueError?) { failure.withLock { $0 = error } }
    var claimsAttemptedWhileFailing: Int { claimsWhileFailing.load(ordering: .relaxed) }
    var completesFailed: Int { failedCompletes.load(ordering: .relaxed) }
    private func check() throws(QueueError) { if let error = failure.withLock({ $0 }) { throw error } }

    var location: String { inner.location }
    func enqueue(_ pushes: [NewPush], nowUnixSeconds: Double) throws(QueueError) -> [Int64] {
        try inner.enqueue(pushes, nowUnixSeconds: nowUnixSeconds)
    }
    func claim(worker: String, limit: Int, leaseSeconds: Double, environment: APNsEnvironment, credential: String,
               nowUnixSeconds: Double) throws(QueueError) -> [StoredPush] {
        // Counted once a record has failed: from then on the worker must not claim (a claim before that fails too).
        if failure.withLock({ $0 }) != nil, completesFailed > 0 { claimsWhileFailing.add(1, ordering: .relaxed) }
        try check()
        return try inner.claim(worker: worker, limit: limit, leaseSeconds: leaseSeconds, environment: environment,
                               credential: credential, nowUnixSeconds: nowUnixSeconds)
    }
    func complete(_ results: [AttemptResult]) throws(QueueError) {
        do throws(QueueError) { try check() } catch {
            failedCompletes.add(1, ordering: .relaxed)
            throw error
        }
        try inner.complete(results)
    }
    func inactiveTokens(among targets: [String]) throws(QueueError) -> [String: String] { try inner.inactiveTokens(among: targets) }
    func isDrained(environment: APNsEnvironment, credential: String, nowUnixSeconds: Double) throws(QueueError) -> Bool {
        try check()
        return try inner.isDrained(environment: environment, credential: credential, nowUnixSeconds: nowUnixSeconds)
    }
    func status(nowUnixSeconds: Double) throws(QueueError) -> QueueStatus { try inner.status(nowUnixSeconds: nowUnixSeconds) }
    func deadLetters(limit: Int) throws(QueueError) -> [DeadLetter] { try inner.deadLetters(limit: limit) }
    func requeueDead(ids: [Int64]?, nowUnixSeconds: Double) throws(QueueError) -> Int { try inner.requeueDead(ids: ids, nowUnixSeconds: nowUnixSeconds) }
    func purgeDead() throws(QueueError) -> Int { try inner.purgeDead() }
    func journal(pushID: Int64?, limit: Int) throws(QueueError) -> [AttemptRecord] { try inner.journal(pushID: pushID, limit: limit) }
    func push(id: Int64) throws(QueueError) -> StoredPush? { try inner.push(id: id) }
    func close() { inner.close() }
}

final class PipelinedWorkerTests: XCTestCase {
    private func options(window: Int, outage: Double = 30) -> WorkerOptions {
        WorkerOptions(name: "pipe", window: window, leaseSeconds: 120, pollIntervalSeconds: 0.01,
                      databaseOutageSeconds: outage, drain: true)
    }

    /// A window of 64 stays full (not claim, wait for the slowest, claim again), and a token never has two
    /// pushes in flight even when it has several queued.
    func testWindowStaysFullAndOnePushPerTokenInFlight() async throws {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let outbox = Outbox(store: store)
        _ = try outbox.enqueue(try Pushes.update(ts: 1), to: (0..<600).map(Pushes.token))
        // Five pushes to one token that cannot supersede each other (a start, then ends are not superseded by
        // anything later): they must go one at a time.
        for index in 0..<5 { _ = try outbox.enqueue(try Pushes.start(ts: 100 + Int64(index)), to: [Pushes.token(9999)]) }
        let sender = CountingSender(delaySeconds: 0.05)
        let summary = try await QueueWorker(store: store, sender: sender, options: options(window: 64)).run()
        XCTAssertEqual(summary.sent, 605)
        XCTAssertEqual(sender.sentByID.count, 605)
        XCTAssertTrue(sender.sentByID.values.allSatisfy { $0 == 1 }, "each push sent once")
        XCTAssertEqual(sender.maxInFlightPerTarget, 1, "at most one push in flight per token")
        XCTAssertGreaterThan(sender.maxInFlight, 48, "the window is kept (nearly) full")
        XCTAssertLessThanOrEqual(sender.maxInFlight, 64, "the window is a bound")
        XCTAssertLessThan(summary.recordBatches, 605, "answers recorded in batches")
        XCTAssertEqual(try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["sent"], 605)
        print("pipelined: \(summary.rounds) claims, \(summary.recordBatches) record batches, max in flight \(sender.maxInFlight), released \(summary.released)")
    }

    /// The database fails while pushes are in flight: the worker stops claiming, keeps the answers, records
    /// them when the database is back, and sends nothing twice.
    func testDatabaseOutageHoldsAnswersAndResendsNothing() async throws {
        for kind in [QueueError.Kind.unavailable, .diskFull] {
            let inner = try SQLiteQueueStore(path: temporarySQLitePath())
            let store = FailingStore(inner)
            defer { store.close() }
            _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<300).map(Pushes.token))
            let sender = CountingSender(delaySeconds: 0.02)
            let worker = QueueWorker(store: store, sender: sender, options: options(window: 50))
            let run = Task { try await worker.run() }
            // Fail once the first answers are in, for 0.8 s.
            while sender.sentByID.count < 20 { try await Task.sleep(nanoseconds: 5_000_000) }
            store.fail(with: QueueError("injected \(kind)", kind: kind))
            try await Task.sleep(nanoseconds: 300_000_000)
            let sentDuringOutage = sender.sentByID.count
            try await Task.sleep(nanoseconds: 500_000_000)
            XCTAssertEqual(sender.sentByID.count, sentDuringOutage, "\(kind): no new sends while answers cannot be recorded")
            XCTAssertEqual(store.claimsAttemptedWhileFailing, 0, "\(kind): fails closed — no claim after a record failed")
            XCTAssertGreaterThan(store.completesFailed, 0)
            store.fail(with: nil)
            let summary = try await run.value
            XCTAssertEqual(summary.sent, 300, "\(kind)")
            XCTAssertTrue(sender.sentByID.values.allSatisfy { $0 == 1 }, "\(kind): nothing resent")
            XCTAssertEqual(sender.sentByID.count, 300)
            XCTAssertGreaterThan(summary.databaseRetries, 0)
            let status = try store.status(nowUnixSeconds: Date().timeIntervalSince1970)
            XCTAssertEqual(status.counts["sent"], 300, "\(kind): the held answers were recorded")
            XCTAssertEqual(try store.journal(pushID: nil, limit: 1000).count, 300, "\(kind): one journal row per push")
        }
    }

    /// A database that stays unwritable: the worker gives up after `databaseOutageSeconds` with one clear
    /// error naming the kind, and has sent only what it had claimed before — once.
    func testLastingFailureStopsWithOneClearError() async throws {
        let store = FailingStore(try SQLiteQueueStore(path: temporarySQLitePath()))
        defer { store.close() }
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<200).map(Pushes.token))
        let sender = CountingSender(delaySeconds: 0.01)
        store.fail(with: nil)
        let worker = QueueWorker(store: store, sender: sender, options: options(window: 20, outage: 0.5))
        let run = Task { try await worker.run() }
        while sender.sentByID.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        store.fail(with: QueueError("SQLite q: disk full", kind: .diskFull))
        do {
            _ = try await run.value
            XCTFail("must stop")
        } catch let error as QueueError {
            XCTAssertEqual(error.kind, .diskFull)
            XCTAssertTrue(error.description.contains("could not be recorded"), error.description)
            XCTAssertTrue(error.description.contains("nothing resent"), error.description)
        }
        XCTAssertLessThanOrEqual(sender.sentByID.count, 40, "only the claims made before the failure were sent")
        XCTAssertTrue(sender.sentByID.values.allSatisfy { $0 == 1 })
    }

    /// A real SQLITE_FULL (the database may not grow past `max_page_count`): reported as disk-full, answers
    /// held; once space is there again they are recorded and nothing is resent.
    func testRealSQLiteFullIsDiskFullAndNothingIsResent() async throws {
        let path = temporarySQLitePath()
        let store = try SQLiteQueueStore(path: path)
        defer { store.close() }
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<400).map(Pushes.token))
        let pages = try store.outbox.run { o throws(QueueError) in try o.db.query("PRAGMA page_count", []).first?.first?.int ?? 0 }
        _ = try store.outbox.run { o throws(QueueError) in try o.db.query("PRAGMA max_page_count = \(pages)", []) }
        let sender = CountingSender(delaySeconds: 0.005)
        let worker = QueueWorker(store: store, sender: sender, options: options(window: 100, outage: 30))
        let run = Task { try await worker.run() }
        // Give the worker time to meet the full database, then free the space.
        let deadline = Date().addingTimeInterval(20)
        while sender.sentByID.isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        try await Task.sleep(nanoseconds: 500_000_000)
        let sentWhileFull = sender.sentByID.count
        XCTAssertLessThan(sentWhileFull, 400, "claiming stopped when the disk was full")
        _ = try store.outbox.run { o throws(QueueError) in try o.db.query("PRAGMA max_page_count = 1000000", []) }
        let summary = try await run.value
        XCTAssertGreaterThan(summary.databaseRetries, 0, "the full disk was met")
        XCTAssertEqual(sender.sentByID.count, 400)
        XCTAssertTrue(sender.sentByID.values.allSatisfy { $0 == 1 }, "nothing resent after disk full")
        XCTAssertEqual(try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["sent"], 400)

        // The error itself is one clear line of kind disk-full.
        _ = try store.outbox.run { o throws(QueueError) in try o.db.query("PRAGMA max_page_count = \(pages)", []) }
        let many = (0..<2000).map { Pushes.token(10_000 + $0) }
        XCTAssertThrowsError(try Outbox(store: store).enqueue(try Pushes.update(ts: 2), to: many)) { error in
            XCTAssertEqual((error as? QueueError)?.kind, .diskFull, "\(error)")
            XCTAssertEqual((error as? QueueError)?.location.map { store.location.hasSuffix($0) }, true, "names the file: \(error)")
            XCTAssertEqual((error as? QueueError)?.fix, "free space on that filesystem")
            XCTAssertTrue("\(error)".contains("disk full") && "\(error)".hasSuffix("; free space on that filesystem"), "\(error)")
        }
    }

    /// The worker's own ceiling at a 150 ms round trip, with no network: printed, not timed (machines differ).
    func testWorkerCeilingAt150MillisecondsWithoutNetwork() async throws {
        for backEnd in ["SQLite", "PostgreSQL"] {
            let store: any QueueStore = backEnd == "SQLite" ? try SQLiteQueueStore(path: temporarySQLitePath())
                                                            : try PostgresQueueStore(url: try PostgresTestServer.freshDatabase())
            defer { store.close() }
            _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<5000).map(Pushes.token))
            let sender = CountingSender(delaySeconds: 0.15)
            let started = Date()
            let summary = try await QueueWorker(store: store, sender: sender, options: options(window: 1000)).run()
            let seconds = Date().timeIntervalSince(started)
            XCTAssertEqual(summary.sent, 5000)
            XCTAssertTrue(sender.sentByID.values.allSatisfy { $0 == 1 })
            print(String(format: "worker ceiling (%@, window 1000, 150 ms, no network): %.0f pushes/s, %d claims, %d record batches, max in flight %d",
                         backEnd, 5000 / seconds, summary.rounds, summary.recordBatches, sender.maxInFlight))
        }
    }

    /// Newest wins at claim time: an update that was in flight when a newer update was queued (so enqueue could
    /// not supersede it) and comes back for a retry is found overtaken — by the newer one in this batch, or
    /// already sent — on both back ends.
    func testClaimTimeCoalescingOnBothBackEnds() throws {
        for backEnd in ["SQLite", "PostgreSQL"] {
            let store: any QueueStore = backEnd == "SQLite" ? try SQLiteQueueStore(path: temporarySQLitePath())
                                                            : try PostgresQueueStore(url: try PostgresTestServer.freshDatabase())
            defer { store.close() }
            let now = 1_800_000_000.0
            let outbox = Outbox(store: store)
            func claim(_ at: Double) throws -> [StoredPush] {
                try store.claim(worker: "w", limit: 10, leaseSeconds: 60, environment: .sandbox, credential: "default", nowUnixSeconds: at)
            }
            func result(_ push: StoredPush, _ outcome: AttemptOutcome, retryAt: Double? = nil) -> AttemptResult {
                AttemptResult(pushID: push.id, atUnixSeconds: now, target: push.target, outcome: outcome, apnsID: push.apnsID,
                              retryAtUnixSeconds: retryAt, worker: "w")
            }
            // Case 1: the newer update is sent before the older one's retry is claimed.
            let older = try outbox.enqueue(try Pushes.update(ts: 1), to: [Pushes.token(1)], nowUnixSeconds: now)[0]
            let first = try claim(now)
            XCTAssertEqual(first.map(\.id), [older])
            let newer = try outbox.enqueue(try Pushes.update(ts: 2), to: [Pushes.token(1)], nowUnixSeconds: now)[0]
            XCTAssertEqual(try store.push(id: older)?.state, .inflight, "\(backEnd): in flight, not superseded at enqueue")
            XCTAssertTrue(try claim(now).isEmpty, "\(backEnd): one push in flight per token")
            try store.complete([result(first[0], .retry, retryAt: now + 10)])
            let second = try claim(now + 1)
            XCTAssertEqual(second.map(\.id), [newer])
            try store.complete([result(second[0], .sent)])
            let retried = try claim(now + 11)
            XCTAssertEqual(retried.map(\.id), [older])
            XCTAssertEqual(retried.first?.supersededBy, newer, "\(backEnd): overtaken by the sent newer update")

            // Case 2: the older retry and the newer update are due together. A claim takes one push per token,
            // and the newer first (even though the older retry came due earlier); the older comes back after
            // it and is found overtaken.
            let olderTwo = try outbox.enqueue(try Pushes.update(ts: 5), to: [Pushes.token(2)], nowUnixSeconds: now)[0]
            let claimedTwo = try claim(now + 20)
            XCTAssertTrue(claimedTwo.contains { $0.id == olderTwo })
            let newerTwo = try outbox.enqueue(try Pushes.update(ts: 6), to: [Pushes.token(2)], nowUnixSeconds: now + 25)[0]
            try store.complete(claimedTwo.map { result($0, $0.id == olderTwo ? .retry : .sent, retryAt: now + 21) })
            let batch = try claim(now + 30)
            XCTAssertEqual(batch.map(\.id), [newerTwo], "\(backEnd): one push per token, the newest first")
            XCTAssertNil(batch.first?.supersededBy)
            try store.complete([result(batch[0], .sent)])
            let olderAgain = try claim(now + 31)
            XCTAssertEqual(olderAgain.map(\.id), [olderTwo])
            XCTAssertEqual(olderAgain.first?.supersededBy, newerTwo, "\(backEnd): overtaken by the newer one, sent first")
        }
    }
}
