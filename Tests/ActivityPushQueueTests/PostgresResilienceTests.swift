import ActivityPushAPNs
import ActivityPushCore
import Foundation
import Synchronization
import XCTest
@testable import ActivityPushQueue

/// PostgreSQL-only behaviour: the fan-out insert, NOTIFY wake-ups, the move of finished rows, and a worker
/// that rides out a server restart.
final class PostgresResilienceTests: XCTestCase {
    func testFanOutOfTenThousandTokensIsStoredRowByRow() throws {
        let store = try PostgresQueueStore(url: try PostgresTestServer.freshDatabase())
        defer { store.close() }
        let tokens = (0..<10_000).map(Pushes.token)
        let ids = try Outbox(store: store).enqueue(try Pushes.update(ts: 5), to: tokens)
        XCTAssertEqual(ids.count, tokens.count)
        XCTAssertEqual(ids, ids.sorted())
        var apnsIDs = Set<String>()
        for (index, id) in ids.enumerated() where index % 997 == 0 || index == ids.count - 1 {
            let push = try XCTUnwrap(store.push(id: id))
            XCTAssertEqual(push.target, tokens[index], "row \(index) holds its own token")
            XCTAssertEqual(push.headers["apns-id"], push.apnsID)
            XCTAssertEqual(push.body, try Pushes.update(ts: 5).body)
            apnsIDs.insert(push.apnsID)
        }
        XCTAssertEqual(apnsIDs.count, 12, "one apns-id per row")
        let starts = try Outbox(store: store).enqueue(try Pushes.start(ts: 5), to: [Pushes.token(1), Pushes.token(2)])
        let start = try XCTUnwrap(store.push(id: starts[1]))
        XCTAssertEqual(start.headers["apns-collapse-id"], start.apnsID, "fan-out keeps the start's collapse id")
        XCTAssertEqual(try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["pending"], 10_002)
    }

    /// Claims run at the same time on several connections (no lock between them): however they interleave,
    /// a token never has two pushes in flight, and no push is claimed twice. 300 tokens with a start and an
    /// end each (neither supersedes the other), four connections claiming small batches at once, nothing
    /// completed: exactly one push per token is claimed.
    func testConcurrentClaimsKeepOnePushInFlightPerToken() throws {
        let url = try PostgresTestServer.freshDatabase()
        let setup = try PostgresQueueStore(url: url)
        defer { setup.close() }
        let tokens = (0..<300).map(Pushes.token)
        _ = try Outbox(store: setup).enqueue(try Pushes.start(ts: 10), to: tokens)
        _ = try Outbox(store: setup).enqueue(try Pushes.end(ts: 20), to: tokens)
        let stores = try (0..<4).map { _ in try PostgresQueueStore(url: url) }
        defer { stores.forEach { $0.close() } }
        let claimed = Mutex<[StoredPush]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            // Each connection claims until a claim finds nothing (bounded: at most 100 claims).
            for _ in 0..<100 {
                do {
                    let batch = try stores[index].claim(worker: "w\(index)", limit: 7, leaseSeconds: 60, environment: .sandbox,
                                                        credential: "default", nowUnixSeconds: Date().timeIntervalSince1970 + 1)
                    if batch.isEmpty { break }
                    claimed.withLock { $0 += batch }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    break
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [], "claims that collide are retried, not failed")
        let all = claimed.withLock { $0 }
        XCTAssertEqual(Set(all.map(\.id)).count, all.count, "no push claimed twice")
        XCTAssertEqual(Dictionary(grouping: all, by: \.target).values.map(\.count).max(), 1, "one push in flight per token")
        XCTAssertEqual(Set(all.map(\.target)).count, tokens.count, "every token's first push claimed")
        XCTAssertTrue(all.allSatisfy { $0.event == .start }, "the start before the end of each token")
        let check = try PostgresConnection(url: url)
        defer { check.close() }
        XCTAssertEqual(try check.query("SELECT COUNT(*) FROM ap_pushes WHERE state = 'inflight'", []).first?.first?.int, 300)
    }

    func testIdleWorkerIsWokenByNotifyAndFinishedRowsLeaveTheHotTable() async throws {
        let url = try PostgresTestServer.freshDatabase()
        let store = try PostgresQueueStore(url: url)
        defer { store.close() }
        let sender = CountingSender(delaySeconds: 0)
        // A 5 s poll: only a NOTIFY can make the worker send within a second.
        let worker = QueueWorker(store: store, sender: sender,
                                 options: WorkerOptions(name: "listen", window: 50, pollIntervalSeconds: 5))
        let run = Task { try await worker.run() }
        try await Task.sleep(nanoseconds: 700_000_000)  // idle, waiting
        let enqueued = Date()
        _ = try Outbox(store: try PostgresQueueStore(url: url)).enqueue(try Pushes.update(ts: 1), to: [Pushes.token(1)])
        while sender.sentByID.isEmpty && Date().timeIntervalSince(enqueued) < 10 { try await Task.sleep(nanoseconds: 10_000_000) }
        let latency = Date().timeIntervalSince(enqueued)
        XCTAssertLessThan(latency, 2, "woken by NOTIFY, not the 5 s poll")
        worker.stop()
        _ = try await run.value
        let check = try PostgresConnection(url: url)
        defer { check.close() }
        XCTAssertEqual(try check.query("SELECT COUNT(*) FROM ap_pushes", []).first?.first?.int, 0, "sent rows leave the hot table")
        XCTAssertEqual(try check.query("SELECT COUNT(*) FROM ap_pushes_done WHERE state = 'sent'", []).first?.first?.int, 1)
        XCTAssertEqual(try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["sent"], 1)
        print("NOTIFY wake-up: sent \(Int(latency * 1000)) ms after the enqueue")
    }

    /// The PostgreSQL server stops for ~3 s mid-drain and comes back: the worker reconnects, records the
    /// answers it held, loses nothing and sends nothing twice.
    func testServerRestartMidDrainLosesAndResendsNothing() async throws {
        let script = PostgresTestServer.repositoryRoot.appendingPathComponent("scripts/pg-test-server.sh").path
        let base = "/tmp/ap-pg-outage-\(getpid())"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer {
            _ = ChildProcess.run(script, ["stop", base + "/pg"])
            try? FileManager.default.removeItem(atPath: base)
        }
        let started = ChildProcess.run(script, ["start", base + "/pg"])
        XCTAssertEqual(started.0, 0, started.2)
        let url = started.1.trimmingCharacters(in: .whitespacesAndNewlines)
        let store = try PostgresQueueStore(url: url)
        defer { store.close() }
        let total = 3000
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<total).map(Pushes.token))
        let sender = CountingSender(delaySeconds: 0.02)
        let worker = QueueWorker(store: store, sender: sender,
                                 options: WorkerOptions(name: "outage", window: 100, leaseSeconds: 120,
                                                        pollIntervalSeconds: 0.05, databaseOutageSeconds: 60, drain: true),
                                 log: { print("worker: \($0)") })
        let run = Task { try await worker.run() }
        while sender.sentByID.count < total / 4 { try await Task.sleep(nanoseconds: 5_000_000) }
        XCTAssertEqual(ChildProcess.run(script, ["stop", base + "/pg"]).0, 0)
        let stoppedAt = sender.sentByID.count
        try await Task.sleep(nanoseconds: 3_000_000_000)
        // What was claimed before the stop may still go out: up to a window in flight and a window claimed ahead.
        XCTAssertLessThanOrEqual(sender.sentByID.count, stoppedAt + 200, "no claims while the server is down")
        let restarted = ChildProcess.run(script, ["restart", base + "/pg"])
        XCTAssertEqual(restarted.0, 0, restarted.2)
        let summary = try await run.value
        XCTAssertEqual(sender.sentByID.count, total, "nothing lost")
        XCTAssertTrue(sender.sentByID.values.allSatisfy { $0 == 1 }, "nothing sent twice")
        XCTAssertEqual(summary.sent, total)
        XCTAssertGreaterThan(summary.databaseRetries, 0, "the outage was met")
        XCTAssertEqual(try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["sent"], total)
        print("PostgreSQL restart mid-drain: \(summary.databaseRetries) database retries, \(summary.recordBatches) record batches, 0 lost, 0 resent")
    }
}
