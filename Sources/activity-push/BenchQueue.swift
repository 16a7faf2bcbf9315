import ActivityPushAPNs
import ActivityPushCore
import ActivityPushMock
import ActivityPushQueue
import COpenSSL
import Foundation

/// `activity-push bench queue` — figures for the durable queue, SQLite and PostgreSQL in one run:
/// the bare insert rate of the database (same row size, same batch commits, no index), the queue's durable
/// enqueue rate (rows made by the Outbox, batched commits), and end-to-end pushes/s through a worker to an
/// in-process mock-apns. PostgreSQL: `--postgres URL`, else a throwaway server from scripts/pg-test-server.sh.
func runBenchQueue(_ argv: [String]) throws -> Int32 {
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push bench queue [--count N] [--batch N] [--send-count N] [--worker-batch N]
                                         [--postgres postgres://…] [--no-postgres] [--no-send]
          --count N          pushes enqueued (and rows for the bare insert) per back end (default 20000)
          --batch N          rows per committed transaction (default 1000)
          --send-count N     pushes sent end to end through a worker to mock-apns (default 10000)
          --worker-batch N   pushes a worker claims and sends concurrently per round (default 200)
          --postgres URL     PostgreSQL server to use (a scratch database is created and dropped);
                             default: start a throwaway server with scripts/pg-test-server.sh
        Build with -c release for meaningful figures.
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--no-postgres", "--no-send"])
    let count = try a.int("--count") ?? 20_000
    let batch = try a.int("--batch") ?? 1000
    let sendCount = try a.int("--send-count") ?? 10_000
    let workerBatch = try a.int("--worker-batch") ?? 200
    let pgURL = a.value("--postgres")
    let noPG = a.flag("--no-postgres")
    let noSend = a.flag("--no-send")
    try a.finish()
    guard count > 0, batch > 0, sendCount > 0, workerBatch > 0 else { throw UsageError("counts must be positive") }

    let request = try LiveActivityPush.update(bundleID: "com.example.bench",
                                              contentState: .obj([("driver", .string("Anna")), ("minutesLeft", .int(12)),
                                                                  ("progress", .double(0.4))])).build()
    #if DEBUG
    print("note: debug build; use `swift build -c release` for representative figures")
    #endif
    print("bench queue: \(count) pushes, \(batch) per commit, body \(request.body.count) bytes; end to end \(sendCount) pushes, worker batch \(workerBatch)")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ap-bench-queue-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let key = try BenchQueueKey.write(into: scratch)

    // SQLite
    let sqliteFigures = try BenchQueueRun(count: count, batch: batch, sendCount: sendCount, workerBatch: workerBatch,
                                          request: request, keyPath: key, noSend: noSend).measure(
        label: "SQLite", database: { scratch + "/\($0).sqlite" }, cleanup: { _ in })
    print(sqliteFigures)

    // PostgreSQL
    if noPG { return 0 }
    var server: String? = pgURL
    var started: String?
    if server == nil {
        switch BenchQueuePostgres.start(directory: scratch + "/pg") {
        case .success(let url): server = url; started = scratch + "/pg"
        case .failure(let why): print("PostgreSQL: skipped (\(why); give --postgres URL)"); return 0
        }
    }
    defer { if let started { BenchQueuePostgres.stop(directory: started) } }
    let pgFigures = try BenchQueueRun(count: count, batch: batch, sendCount: sendCount, workerBatch: workerBatch,
                                      request: request, keyPath: key, noSend: noSend).measure(
        label: "PostgreSQL",
        database: { name in try QueueBenchSupport.createPostgresDatabase(serverURL: server!, name: "ap_bench_\(getpid())_\(name)") },
        cleanup: { name in try? QueueBenchSupport.dropPostgresDatabase(serverURL: server!, name: "ap_bench_\(getpid())_\(name)") })
    print(pgFigures)
    return 0
}

/// One back end's three figures.
private struct BenchQueueRun {
    var count: Int
    var batch: Int
    var sendCount: Int
    var workerBatch: Int
    var request: PushRequest
    var keyPath: String
    var noSend: Bool

    func measure(label: String, database: (String) throws -> String, cleanup: (String) -> Void) throws -> String {
        // 1. Bare insert, same row size and batch.
        let bareDB = try database("bare")
        let bare = try QueueBenchSupport.bareInsertRate(database: bareDB, rows: count, batch: batch,
                                                         bodyBytes: request.body.count + 200)
        cleanup("bare")

        // 2. Durable enqueue through the Outbox.
        let enqDB = try database("enqueue")
        let store = try Outbox.open(database: enqDB).store
        let tokens = (0..<count).map { String(format: "%08x", $0) + String(repeating: "cd", count: 28) }
        let t0 = DispatchTime.now().uptimeNanoseconds
        var i = 0
        while i < tokens.count {
            let chunk = Array(tokens[i..<min(i + batch, tokens.count)])
            let now = Date().timeIntervalSince1970
            let rows = try Outbox.rows(for: request, to: chunk, notBeforeUnixSeconds: now)
            _ = try store.enqueue(rows, nowUnixSeconds: now)
            i += chunk.count
        }
        let enqueueRate = Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        store.close()
        cleanup("enqueue")

        var lines = [
            "\(label):",
            "  bare insert (\(batch)/commit, no index)      \(Self.rate(bare)) rows/s",
            "  durable enqueue (Outbox, \(batch)/commit)    \(Self.rate(enqueueRate)) pushes/s  (\(String(format: "%.0f", 100 * enqueueRate / bare))% of bare)",
        ]
        if noSend { return lines.joined(separator: "\n") }

        // 3. End to end: enqueue, then one worker drains to an in-process mock-apns.
        let sendDB = try database("send")
        let sendStore = try Outbox.open(database: sendDB).store
        let sendTokens = (0..<sendCount).map { String(format: "%08x", $0) + String(repeating: "ef", count: 28) }
        var j = 0
        while j < sendTokens.count {
            let chunk = Array(sendTokens[j..<min(j + batch, sendTokens.count)])
            _ = try Outbox(store: sendStore).enqueue(request, to: chunk)
            j += chunk.count
        }
        // TLS with ALPN h2, as APNs (libcurl 7.88 cannot reuse a cleartext prior-knowledge connection after the
        // server raises SETTINGS_MAX_CONCURRENT_STREAMS).
        let tlsDir = (keyPath as NSString).deletingLastPathComponent + "/mock-tls"
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: tlsDir), journalMemoryLimit: 1000))
        try mock.start()
        defer { mock.stop() }
        let token = try ProviderToken(keyFile: keyPath, keyID: "BENCHQUEUE", teamID: "TEAMBENCH1")
        let client = try APNsClient(environment: .custom(mock.baseURL), token: token,
                                    transport: HTTP2TransportConfiguration(caFile: mock.caCertificatePath))
        let worker = QueueWorker(store: sendStore, sender: APNsPushSender(client: client),
                                 options: WorkerOptions(name: "bench", batchSize: workerBatch, drain: true))
        let t1 = DispatchTime.now().uptimeNanoseconds
        let summary = benchQueueAwait { () -> Result<WorkerSummary, QueueError> in
            do { return .success(try await worker.run()) } catch { return .failure(error as? QueueError ?? QueueError("\(error)")) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e9
        benchQueueAwait { await client.shutdown() }
        let status = try sendStore.status(nowUnixSeconds: Date().timeIntervalSince1970)
        sendStore.close()
        cleanup("send")
        let s = try summary.get()
        let sent = status.counts["sent"] ?? 0
        lines.append("  end to end to mock-apns (1 worker)       \(Self.rate(Double(sent) / seconds)) pushes/s  "
                     + "(\(sent)/\(sendCount) sent, \(s.retried) retries, \(String(format: "%.2f", seconds)) s)")
        return lines.joined(separator: "\n")
    }

    static func rate(_ r: Double) -> String { String(format: "%9.0f", r) }
}

/// A P-256 `.p8` for the benchmark's provider token (mock-apns accepts any signature by default).
private enum BenchQueueKey {
    static func write(into dir: String) throws -> String {
        let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else { throw UsageError("cannot generate a P-256 key") }
        defer { EVP_PKEY_free(key) }
        let bio = BIO_new(BIO_s_mem())
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { throw UsageError("cannot write the key") }
        var pem: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 512)
        while true {
            let n = BIO_read(bio, &buf, Int32(buf.count))
            if n <= 0 { break }
            pem += buf[0..<Int(n)]
        }
        let path = dir + "/AuthKey_BENCHQUEUE.p8"
        FileManager.default.createFile(atPath: path, contents: Data(pem), attributes: [.posixPermissions: 0o600])
        return path
    }
}

/// A throwaway PostgreSQL server for the benchmark (scripts/pg-test-server.sh).
private enum BenchQueuePostgres {
    static func script() -> String? {
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [
            FileManager.default.currentDirectoryPath + "/scripts/pg-test-server.sh",
            exe.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/pg-test-server.sh").path,
            exe.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/pg-test-server.sh").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func start(directory: String) -> Result<String, QueueError> {
        guard let script = script() else { return .failure(QueueError("scripts/pg-test-server.sh not found; run from the repository")) }
        guard let f = popen("'\(script)' start '\(directory)' 2>&1", "r") else { return .failure(QueueError("cannot run \(script)")) }
        var out = ""
        var buf = [CChar](repeating: 0, count: 1024)
        while fgets(&buf, Int32(buf.count), f) != nil { out += String(cString: buf) }
        let status = pclose(f)
        let url = out.split(separator: "\n").last.map(String.init) ?? ""
        guard status == 0, url.hasPrefix("postgres://") else {
            return .failure(QueueError("could not start PostgreSQL: \(out.trimmingCharacters(in: .whitespacesAndNewlines).suffix(300))"))
        }
        return .success(url)
    }

    static func stop(directory: String) {
        guard let script = script() else { return }
        if let f = popen("'\(script)' stop '\(directory)' 2>&1", "r") { pclose(f) }
    }
}

private final class BenchQueueBox<T>: @unchecked Sendable { var value: T? }  // written once, read after the semaphore

@discardableResult
private func benchQueueAwait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = BenchQueueBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}
