import ActivityPushCore
import ActivityPushMock
import COpenSSL
import Foundation
import XCTest
@testable import ActivityPushQueue

/// The built `activity-push worker` as a separate process against an in-process mock-apns: killed with SIGKILL
/// mid-run and restarted, two workers in parallel, and injected 429 / 500 / 410 faults — on both back ends.
struct WorkerProcessHarness {
    /// A `--database` value for a new, empty queue.
    let makeDatabase: () throws -> String

    static var executable: String {
        // The test bundle and the executable are built into the same directory.
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("activity-push").path
    }

    /// A fresh P-256 key in Apple's `.p8` format (PKCS#8 PEM), named `AuthKey_<KEYID>.p8`.
    static func authKey() throws -> String {
        let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else { throw QueueError("cannot generate a P-256 key") }
        defer { EVP_PKEY_free(key) }
        let bio = BIO_new(BIO_s_mem())
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { throw QueueError("cannot write PEM") }
        var pem: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 512)
        while true {
            let n = BIO_read(bio, &buf, Int32(buf.count))
            if n <= 0 { break }
            pem += buf[0..<Int(n)]
        }
        let path = temporaryDirectory("ap-key") + "/AuthKey_QUEUETEST1.p8"
        try Data(pem).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    static func open(_ database: String) throws -> any QueueStore { try Outbox.open(database: database).store }

    /// Starts `activity-push worker` against `mock`; output goes to files in a temporary directory.
    static func startWorker(database: String, mock: MockAPNsServer, key: String, extra: [String]) throws -> (pid_t, String) {
        let exe = executable
        guard FileManager.default.isExecutableFile(atPath: exe) else {
            throw QueueError("\(exe) not built: run `swift build` (swift test builds it) before the worker-process tests")
        }
        let log = temporaryDirectory("ap-worker") + "/worker"
        let pid = try ChildProcess.spawn(exe, ["worker", "--database", database, "--env", "sandbox", "--url", mock.baseURL, "--ca-file", mock.caCertificatePath ?? "",
                                               "--auth-key", key, "--team-id", "TEAMQUEUE1", "--format", "json"] + extra,
                                         stdout: log + ".out", stderr: log + ".err")
        return (pid, log)
    }

    /// Waits up to `seconds` for `pid`; kills it and fails when it does not exit.
    static func wait(_ pid: pid_t, seconds: Double, log: String) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        let err = (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""
        XCTFail("worker did not exit within \(Int(seconds)) s; stderr: \(err.suffix(2000))")
        return nil
    }

    static func stderr(_ log: String) -> String { (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? "" }

    static func startMock() throws -> MockAPNsServer {
        // TLS (ALPN h2), as APNs: libcurl 7.88 (Debian 12) fails to reuse a cleartext prior-knowledge connection
        // once the server raises SETTINGS_MAX_CONCURRENT_STREAMS, which APNs and the mock do after the first token.
        let dir = temporaryDirectory("ap-mock-tls")
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: dir), journalMemoryLimit: 100_000))
        try mock.start()
        return mock
    }

    /// 10 000 pushes, a worker killed with SIGKILL mid-run, the queue reopened, a worker restarted: every push
    /// reaches the mock at least once, a duplicate carries the same apns-id, none is lost.
    func killedWorkerLosesNothing() throws {
        let database = try makeDatabase()
        let key = try Self.authKey()
        let mock = try Self.startMock()
        defer { mock.stop() }
        let total = 10_000
        let tokens = (0..<total).map(Pushes.token)
        var store = try Self.open(database)
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1_800_000_000), to: tokens)
        store.close()

        let (pid, log) = try Self.startWorker(database: database, mock: mock, key: key,
                                              extra: ["--drain", "--drain-wait", "30", "--lease", "4", "--batch", "200", "--name", "first"])
        // Kill it mid-run: once the mock has answered a fifth of the pushes.
        let deadline = Date().addingTimeInterval(120)
        while mock.journal().count < total / 5 && Date() < deadline {
            var st: Int32 = 0
            if waitpid(pid, &st, WNOHANG) == pid {
                return XCTFail("worker exited before it could be killed (\(mock.journal().count) answered): \(Self.stderr(log))")
            }
            usleep(5_000)
        }
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        XCTAssertEqual(ChildProcess.wait(pid), 128 + SIGKILL)
        let answeredBeforeKill = mock.journal().count
        XCTAssertLessThan(answeredBeforeKill, total, "the kill must land mid-run")

        // The database left by the killed process opens cleanly.
        store = try Self.open(database)
        if let sqlite = store as? SQLiteQueueStore { try Self.checkIntegrity(sqlite.location) }
        let afterKill = try store.status(nowUnixSeconds: Date().timeIntervalSince1970)
        XCTAssertEqual(afterKill.counts.values.reduce(0, +), total, "no row lost or added by the crash")
        store.close()

        let (pid2, log2) = try Self.startWorker(database: database, mock: mock, key: key,
                                                extra: ["--drain", "--drain-wait", "30", "--lease", "4", "--batch", "200", "--name", "second"])
        XCTAssertEqual(Self.wait(pid2, seconds: 240, log: log2), 0, Self.stderr(log2))

        store = try Self.open(database)
        defer { store.close() }
        let status = try store.status(nowUnixSeconds: Date().timeIntervalSince1970)
        XCTAssertEqual(status.counts["sent"], total, "every push sent: \(status)")
        XCTAssertEqual(status.counts["inflight"], 0)
        XCTAssertEqual(status.counts["pending"], 0)

        // The mock's journal: every stored apns-id at least once; a token seen twice carries one apns-id.
        var stored: [String: String] = [:]  // apns-id → token prefix as the mock journals it
        for id in 1...Int64(total) {
            let p = try XCTUnwrap(store.push(id: id))
            stored[p.apnsID] = String(p.target.prefix(8))
        }
        let journal = mock.journal().filter { $0.status == 200 }
        var idsByToken: [String: Set<String>] = [:]
        for e in journal { idsByToken[e.token ?? "", default: []].insert(e.apnsID ?? "") }
        let seen = Set(journal.compactMap(\.apnsID))
        XCTAssertEqual(seen.count, total, "each push reached the mock")
        XCTAssertTrue(Set(stored.keys).isSubset(of: seen), "no push lost")
        XCTAssertTrue(idsByToken.values.allSatisfy { $0.count == 1 }, "a duplicate carries the same apns-id")
        let mismatched = journal.filter { stored[$0.apnsID ?? ""] != $0.token }
        XCTAssertTrue(mismatched.isEmpty, "every apns-id went to its own token: \(mismatched.prefix(3))")
        let duplicates = journal.count - seen.count
        print("crash test (\(store.location.hasPrefix("sqlite") ? "SQLite" : "PostgreSQL")): answered before kill \(answeredBeforeKill), "
              + "requests \(journal.count) for \(total) pushes, duplicates \(duplicates) (in flight at the kill, or resent by the HTTP client)")
    }

    static func checkIntegrity(_ location: String) throws {
        let conn = try SQLiteConnection(path: String(location.dropFirst("sqlite:".count)))
        defer { conn.close() }
        XCTAssertEqual(try conn.query("PRAGMA integrity_check", []).first?.first?.text, "ok")
    }

    /// Two workers in parallel on one queue: no push claimed by both (no lease expires in this run), every push
    /// delivered.
    func twoWorkersSendEachPushOnce() throws {
        let database = try makeDatabase()
        let key = try Self.authKey()
        let mock = try Self.startMock()
        defer { mock.stop() }
        let total = 6_000
        let store = try Self.open(database)
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1_800_000_000), to: (0..<total).map(Pushes.token))
        let common = ["--drain", "--drain-wait", "30", "--lease", "120", "--batch", "50"]
        let a = try Self.startWorker(database: database, mock: mock, key: key, extra: common + ["--name", "A"])
        let b = try Self.startWorker(database: database, mock: mock, key: key, extra: common + ["--name", "B"])
        XCTAssertEqual(Self.wait(a.0, seconds: 240, log: a.1), 0, Self.stderr(a.1))
        XCTAssertEqual(Self.wait(b.0, seconds: 240, log: b.1), 0, Self.stderr(b.1))
        defer { store.close() }
        // The queue's own record: each push claimed and attempted by one worker only, sent once.
        let attempts = try store.journal(pushID: nil, limit: total * 3)
        let byPush = Dictionary(grouping: attempts, by: \.pushID)
        XCTAssertEqual(byPush.count, total)
        let shared = byPush.filter { Set($0.value.compactMap(\.worker)).count > 1 }
        XCTAssertTrue(shared.isEmpty, "a push attempted by both workers: \(shared.prefix(3))")
        XCTAssertTrue(byPush.values.allSatisfy { $0.filter { $0.outcome == .sent }.count == 1 }, "each push sent once")
        let workers = Set(attempts.compactMap(\.worker))
        XCTAssertEqual(workers, ["A", "B"], "both workers took part")
        // The mock: every push arrived; a push seen twice was resent by the HTTP client inside one attempt
        // (the queue journal holds a single attempt for it), never by a second claim.
        let journal = mock.journal().filter { $0.status == 200 }
        XCTAssertEqual(Set(journal.compactMap(\.apnsID)).count, total, "every push arrived")
        let attemptsByID = Dictionary(grouping: attempts, by: \.apnsID)
        let twice = Dictionary(grouping: journal, by: { $0.apnsID ?? "" }).filter { $0.value.count > 1 }
        for (id, _) in twice {
            XCTAssertEqual(attemptsByID[id]?.count, 1, "apns-id \(id) reached the mock twice from two queue attempts")
        }
        print("two workers: \(journal.count) requests for \(total) pushes; \(twice.count) resent by the HTTP client within one attempt")
        XCTAssertEqual(try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["sent"], total)
    }

    /// `queue status` after a worker met 429, 500 and 410 from mock-apns shows each push where Apple's rules
    /// put it; a later push to the 410 token is not sent.
    func faultsShowInQueueStatus() throws {
        let database = try makeDatabase()
        let key = try Self.authKey()
        let mock = try Self.startMock()
        defer { mock.stop() }
        let store = try Self.open(database)
        defer { store.close() }
        let tokens = (1...4).map(Pushes.token)
        let ids = try Outbox(store: store).enqueue(try Pushes.update(ts: 1_800_000_000), to: tokens)
        mock.setFaults(try MockFaultPlan(spec: "429=7:next=1,500:next=1"))
        mock.unregister(token: tokens[2])
        // --batch 1: pushes go one at a time in id order, so push 1 meets the 429, push 2 the 500.
        let w = try Self.startWorker(database: database, mock: mock, key: key, extra: ["--drain", "--batch", "1"])
        // Exit 1: the drain stopped with pushes it could not deliver (two wait for a retry, one is dead).
        XCTAssertEqual(Self.wait(w.0, seconds: 60, log: w.1), 1, Self.stderr(w.1))
        // Each push counted once (issue 11, N5: the 410 push was counted as dead and as not accepted).
        XCTAssertTrue(Self.stderr(w.1).contains("3 pushes: 1 dead-lettered after the last attempt, 2 whose last attempt APNs did not accept"),
                      Self.stderr(w.1))

        let cli = ChildProcess.run(Self.executable, ["queue", "status", "--database", database, "--format", "json"])
        XCTAssertEqual(cli.0, 0, cli.2)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(cli.1.utf8)) as? [String: Any])
        let status = try XCTUnwrap(json["status"] as? [String: Any])
        let counts = try XCTUnwrap(status["counts"] as? [String: Int])
        XCTAssertEqual(counts["sent"], 1, cli.1)
        XCTAssertEqual(counts["pending"], 2, "429 and 500 wait for their retry")
        XCTAssertEqual(counts["dead"], 1)
        XCTAssertEqual(status["deadByReason"] as? [String: Int], ["Unregistered": 1])
        XCTAssertEqual(status["inactiveTokens"] as? Int, 1)
        let now = Date().timeIntervalSince1970
        let p429 = try XCTUnwrap(store.push(id: ids[0])), p500 = try XCTUnwrap(store.push(id: ids[1]))
        XCTAssertEqual(p429.lastReason, "TooManyRequests")
        XCTAssertEqual(p429.notBeforeUnixSeconds - now, 7, accuracy: 7, "Retry-After 7 s honoured")
        XCTAssertEqual(p500.lastReason, "InternalServerError")
        XCTAssertGreaterThan(p500.notBeforeUnixSeconds - now, 14 * 60, "500: no sooner than 15 minutes")
        XCTAssertEqual(try store.push(id: ids[2])?.lastReason, "Unregistered")
        XCTAssertEqual(try store.push(id: ids[3])?.state, .sent)

        // A later push to the unregistered token is not sent.
        let requests = mock.journal().count
        let later = try Outbox(store: store).enqueue(try Pushes.update(ts: 1_800_000_100), to: [tokens[2]])
        let w2 = try Self.startWorker(database: database, mock: mock, key: key, extra: ["--drain"])
        // Dead-lettered unsent for the inactive token: undelivered, so exit 1 (issue 11, W7: it exited 0).
        XCTAssertEqual(Self.wait(w2.0, seconds: 60, log: w2.1), 1, Self.stderr(w2.1))
        XCTAssertTrue(Self.stderr(w2.1).contains("1 push: 1 dead-lettered unsent for a token APNs had marked inactive"), Self.stderr(w2.1))
        XCTAssertEqual(mock.journal().count, requests, "no request for the inactive token")
        XCTAssertEqual(try store.push(id: later[0])?.state, .dead)

        // After the Retry-After the 429 push goes out with the same apns-id.
        sleep(8)
        let w3 = try Self.startWorker(database: database, mock: mock, key: key, extra: ["--drain"])
        XCTAssertEqual(Self.wait(w3.0, seconds: 60, log: w3.1), 0, Self.stderr(w3.1))
        XCTAssertEqual(try store.push(id: ids[0])?.state, .sent)
        // (the mock journals no token for an injected fault, so match by apns-id)
        let tries = mock.journal().filter { $0.apnsID == p429.apnsID }
        XCTAssertEqual(tries.map(\.status), [429, 200])
        XCTAssertEqual(Set(tries.compactMap(\.apnsID)), [p429.apnsID])
        XCTAssertEqual(Set(tries.map(\.body)), [try Pushes.update(ts: 1_800_000_000).body], "same bytes resent")

        // A push due for another credential: this worker claims nothing and says whose it is (issue 11, U5).
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1_800_000_200), to: [tokens[3]], credential: "team-b")
        let w4 = try Self.startWorker(database: database, mock: mock, key: key, extra: ["--drain"])
        XCTAssertEqual(Self.wait(w4.0, seconds: 60, log: w4.1), 0, Self.stderr(w4.1))
        XCTAssertTrue(Self.stderr(w4.1).contains("1 push due for environment sandbox / credential team-b; this worker serves sandbox/default"),
                      Self.stderr(w4.1))
    }
}

final class SQLiteWorkerProcessTests: XCTestCase {
    let harness = WorkerProcessHarness(makeDatabase: { temporarySQLitePath() })
    func testKilledWorkerLosesNothing() throws { try harness.killedWorkerLosesNothing() }
    func testTwoWorkersSendEachPushOnce() throws { try harness.twoWorkersSendEachPushOnce() }
    func testFaultsShowInQueueStatus() throws { try harness.faultsShowInQueueStatus() }
}

final class PostgresWorkerProcessTests: XCTestCase {
    let harness = WorkerProcessHarness(makeDatabase: { try PostgresTestServer.freshDatabase() })
    func testKilledWorkerLosesNothing() throws { try harness.killedWorkerLosesNothing() }
    func testTwoWorkersSendEachPushOnce() throws { try harness.twoWorkersSendEachPushOnce() }
    func testFaultsShowInQueueStatus() throws { try harness.faultsShowInQueueStatus() }
}
