import ActivityPushAPNs
import ActivityPushCore
import ActivityPushMock
import ActivityPushQueue
import COpenSSL
import Foundation

/// `activity-push bench queue` — figures for the durable queue, SQLite and PostgreSQL in one run: the bare insert
/// rate of the database (same row size, same batch commits, no index) and the queue's durable enqueue rate;
/// then, for each round-trip time (`--rtt`, the mock's `delay=` fault), on the same mock-apns child process
/// and bodies: h2load `-c 1 -m 1000` (the ceiling), the worker on SQLite, on PostgreSQL, and two workers on
/// PostgreSQL — pushes/s, % of h2load, client CPU µs/push (this process: worker, client and database driver;
/// the mock runs apart), p50/p99 of the worker's journaled latencies, and RSS.
/// PostgreSQL: `--postgres URL`, else a throwaway server from scripts/pg-test-server.sh.
let benchQueueCommand = Command(
    name: "queue",
    summary: "enqueue rates and worker pushes/s on SQLite and PostgreSQL against h2load, per round-trip time",
    groups: [OptionGroup(BenchQueueOptions.count, BenchQueueOptions.batch, BenchQueueOptions.sendCount,
                         BenchQueueOptions.window, BenchQueueOptions.workerBatch, BenchQueueOptions.rtt,
                         BenchQueueOptions.postgres, BenchQueueOptions.noPostgres, BenchQueueOptions.noSend,
                         BenchQueueOptions.noH2load)],
    notes: "Goal: a worker ≥ 80 % of h2load at 150 ms. Build with -c release for meaningful figures.",
    run: runBenchQueue
)

enum BenchQueueOptions {
    static let count = Option<Int>.integer("--count", help: "pushes enqueued (and rows for the bare insert) per back end", default: 20_000)
    static let batch = Option<Int>.integer("--batch", help: "rows per committed transaction", default: 1000)
    static let sendCount = Option<Int>.integer("--send-count", help: "pushes drained end to end per configuration and round trip", default: 5_000)
    static let window = Option<Int>.integer("--window", help: "pushes a worker keeps in flight", default: 1000)
    static let workerBatch = Option<Int>.integer("--worker-batch", help: "the old name of --window", hidden: true)
    static let rtt = Option<String>("--rtt", valueName: "MS,…", help: "mock round-trip times to measure at, milliseconds", default: "0,50,150")
    static let postgres = Option<String>(
        "--postgres", valueName: "URL",
        help: "PostgreSQL server to use (a scratch database is created and dropped);\n"
            + "default: start a throwaway server with scripts/pg-test-server.sh")
    static let noPostgres = Flag("--no-postgres", help: "SQLite only")
    static let noSend = Flag("--no-send", help: "skip the end-to-end runs")
    static let noH2load = Flag("--no-h2load", help: "skip the h2load ceiling")
}

@Sendable func runBenchQueue(_ arguments: ParsedArguments) async throws -> Int32 {
    let count = try arguments.value(BenchQueueOptions.count) ?? 20_000
    let batch = try arguments.value(BenchQueueOptions.batch) ?? 1000
    let sendCount = try arguments.value(BenchQueueOptions.sendCount) ?? 5_000
    let window = try arguments.isGiven(BenchQueueOptions.window) ? arguments.value(BenchQueueOptions.window) ?? 1000
        : arguments.value(BenchQueueOptions.workerBatch) ?? 1000
    let rttText = try arguments.value(BenchQueueOptions.rtt) ?? "0,50,150"
    let pgURL = try arguments.value(BenchQueueOptions.postgres)
    let noPG = arguments.isSet(BenchQueueOptions.noPostgres)
    let noSend = arguments.isSet(BenchQueueOptions.noSend)
    let noH2load = arguments.isSet(BenchQueueOptions.noH2load)
    guard count > 0, batch > 0, sendCount > 0, window > 0 else { throw UsageError(.badValue, "counts must be positive") }
    let rtts = try rttText.split(separator: ",").map { part -> Int in
        guard let ms = Int(part.trimmingCharacters(in: .whitespaces)), (0...10_000).contains(ms) else {
            throw UsageError(.badValue, option: "--rtt", "--rtt: '\(part)' is not milliseconds between 0 and 10000 (e.g. --rtt 0,50,150)")
        }
        return ms
    }

    let request = try LiveActivityPush.update(bundleID: "com.example.bench",
                                              contentState: .obj([("driver", .string("Anna")), ("minutesLeft", .int(12)),
                                                                  ("progress", .double(0.4))])).build()
    #if DEBUG
    print("note: debug build; use `swift build -c release` for representative figures")
    #endif
    print("bench queue: \(count) pushes, \(batch) per commit, body \(request.body.count) bytes; end to end \(sendCount) pushes per run, window \(window), round trips \(rtts.map { "\($0) ms" }.joined(separator: ", "))")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ap-bench-queue-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let key = scratch + "/AuthKey_BENCHQUEUE.p8"
    try BenchSend.writeP256Key(to: key)
    let run = BenchQueueRun(count: count, batch: batch, request: request)

    print(try run.measureInserts(label: "SQLite", database: { scratch + "/\($0).sqlite" }, cleanup: { _ in }))
    var server: String? = pgURL
    var started: String?
    if !noPG, server == nil {
        switch BenchQueuePostgres.start(directory: scratch + "/pg") {
        case .success(let url): server = url; started = scratch + "/pg"
        case .failure(let why): print("PostgreSQL: skipped (\(why); give --postgres URL)")
        }
    }
    defer { if let started { BenchQueuePostgres.stop(directory: started) } }
    let pgDatabase: ((String) throws -> String)? = server.map { server in
        { name in try BenchQueuePostgres.createDatabase(serverURL: server, name: "ap_bench_\(getpid())_\(name)") }
    }
    let pgCleanup: (String) -> Void = { name in
        if let server { try? BenchQueuePostgres.dropDatabase(serverURL: server, name: "ap_bench_\(getpid())_\(name)") }
    }
    if let pgDatabase { print(try run.measureInserts(label: "PostgreSQL", database: pgDatabase, cleanup: pgCleanup)) }
    if noSend { return 0 }

    // End to end, per round trip.
    let token = try ProviderToken(keyFile: key, keyID: "BENCHQUEUE", teamID: "TEAMBENCH1")
    print("end to end: mock-apns (TLS, child process, --faults delay=<rtt>ms:all), one connection per worker")
    print("  rtt     configuration           pushes/s   % h2load  CPU µs/push   p50 ms   p99 ms   RSS MB  sent")
    var round = 0
    for rtt in rtts {
        // A mock per round trip: the same binary and bodies, `delay=` on every answer.
        let mock = try BenchSend.startMock(dir: scratch + "/mock-\(rtt)", streams: 1000, delayMilliseconds: rtt)
        defer { mock.process.terminate(); mock.process.waitUntilExit() }
        var ceiling: Double?
        if !noH2load {
            var h2load: BenchSend.Figures?
            let tokens = (0..<sendCount).map { String(format: "%08x", $0 + round * 1_000_000) + String(repeating: "9a", count: 28) }
            h2load = try BenchSend.h2load(dir: scratch, url: mock.url, jwt: try token.current(), bundleID: "com.example.bench",
                                          body: request.body, tokens: tokens, streams: 1000)
            ceiling = h2load?.rate
            if let h2load {
                print(String(format: "  %3d ms  ", rtt) + "h2load -c 1 -m 1000".padding(toLength: 23, withPad: " ", startingAt: 0)
                      + String(format: "%9.0f     100 %%  %11.1f  %7.1f  %7.1f  %7.0f  %d/%d", h2load.rate, h2load.cpuMicros,
                               h2load.p50 * 1000, h2load.p99 * 1000, h2load.peakRSSMB, h2load.ok, sendCount))
            } else {
                print("  h2load: not available (install nghttp2-client)")
            }
        }
        var configurations: [(String, Int, (String) throws -> String, (String) -> Void)] = [
            ("worker, SQLite", 1, { scratch + "/\($0).sqlite" }, { _ in }),
        ]
        if let pgDatabase {
            configurations.append(("worker, PostgreSQL", 1, pgDatabase, pgCleanup))
            configurations.append(("2 workers, PostgreSQL", 2, pgDatabase, pgCleanup))
        }
        for (label, workers, database, cleanup) in configurations {
            round += 1
            let name = "send\(round)"
            let url = try database(name)
            defer { cleanup(name) }
            let figures = try await run.drain(database: url, workers: workers, sendCount: sendCount, window: window,
                                        tokenSalt: round, mock: mock, token: token)
            let share = ceiling.map { String(format: "%6.0f %%", 100 * figures.rate / $0) } ?? "       –"
            print(String(format: "  %3d ms  ", rtt) + label.padding(toLength: 23, withPad: " ", startingAt: 0)
                  + String(format: "%9.0f  ", figures.rate) + share
                  + String(format: "  %11.1f  %7.1f  %7.1f  %7.0f  %d/%d", figures.cpuMicrosPerPush, figures.p50Milliseconds,
                           figures.p99Milliseconds, figures.rssMB, figures.sent, sendCount))
        }
    }
    return 0
}

/// The figures of one drain.
private struct BenchQueueDrainFigures {
    var rate: Double
    var cpuMicrosPerPush: Double
    var p50Milliseconds: Double
    var p99Milliseconds: Double
    var rssMB: Double
    var sent: Int
}

/// One back end's insert figures, and end-to-end drains.
private struct BenchQueueRun {
    var count: Int
    var batch: Int
    var request: PushRequest

    func measureInserts(label: String, database: (String) throws -> String, cleanup: (String) -> Void) throws -> String {
        // 1. Bare insert, same row size and batch.
        let bareDB = try database("bare")
        let bare = try BenchQueueBareInsert.rate(database: bareDB, rows: count, batch: batch, bodyBytes: request.body.count + 200)
        cleanup("bare")

        // 2. Durable enqueue through the Outbox.
        let enqDB = try database("enqueue")
        let store = try Outbox.open(database: enqDB).store
        let tokens = (0..<count).map { String(format: "%08x", $0) + String(repeating: "cd", count: 28) }
        let started = DispatchTime.now().uptimeNanoseconds
        var index = 0
        while index < tokens.count {
            let chunk = Array(tokens[index..<min(index + batch, tokens.count)])
            let now = Date().timeIntervalSince1970
            let rows = try Outbox.rows(for: request, to: chunk, notBeforeUnixSeconds: now)
            _ = try store.enqueue(rows, nowUnixSeconds: now)
            index += chunk.count
        }
        let enqueueRate = Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        store.close()
        cleanup("enqueue")
        return [
            "\(label):",
            "  bare insert (\(batch)/commit, no index)      \(Self.rate(bare)) rows/s",
            "  durable enqueue (Outbox, \(batch)/commit)    \(Self.rate(enqueueRate)) pushes/s  (\(String(format: "%.0f", 100 * enqueueRate / bare))% of bare)",
        ].joined(separator: "\n")
    }

    /// Enqueues `sendCount` pushes, then `workers` in-process workers (each with its own store connection and
    /// APNs client, one connection) drain them to the mock. CPU is this process's user + system time.
    func drain(database: String, workers: Int, sendCount: Int, window: Int, tokenSalt: Int,
               mock: BenchSend.Mock, token: ProviderToken) async throws -> BenchQueueDrainFigures {
        let store = try Outbox.open(database: database).store
        defer { store.close() }
        let tokens = (0..<sendCount).map { String(format: "%08x", $0 + tokenSalt * 1_000_000) + String(repeating: "ef", count: 28) }
        _ = try Outbox(store: store).enqueue(request, to: tokens)
        var runners: [(QueueWorker, APNsClient, any QueueStore)] = []
        for index in 0..<workers {
            let workerStore = try Outbox.open(database: database).store
            let client = try APNsClient(environment: .custom(mock.url), token: token,
                                        transport: HTTP2TransportConfiguration(caFile: mock.ca, maxConcurrentStreams: 1000))
            let worker = QueueWorker(store: workerStore, sender: APNsPushSender(client: client),
                                     options: WorkerOptions(name: "bench\(index)", window: window, drain: true))
            runners.append((worker, client, workerStore))
        }
        let workersToRun = runners.map(\.0)
        let cpuBefore = Self.cpuSeconds()
        let started = DispatchTime.now().uptimeNanoseconds
        let outcomes: [Result<WorkerSummary, QueueError>] =
            await withTaskGroup(of: Result<WorkerSummary, QueueError>.self) { group in
                for worker in workersToRun {
                    group.addTask {
                        do { return .success(try await worker.run()) } catch { return .failure(error as? QueueError ?? QueueError("\(error)")) }
                    }
                }
                var all: [Result<WorkerSummary, QueueError>] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let cpu = Self.cpuSeconds() - cpuBefore
        for (_, client, workerStore) in runners {
            await client.shutdown()
            workerStore.close()
        }
        for outcome in outcomes {
            let summary = try outcome.get()
            if ProcessInfo.processInfo.environment["ACTIVITY_PUSH_BENCH_VERBOSE"] != nil {
                print(String(format: "    (worker: %.2f s in claims, %.2f s in records, %d claims, %d record batches, wall %.2f s)",
                             summary.claimSeconds, summary.recordSeconds, summary.rounds, summary.recordBatches, seconds))
            }
        }
        let sent = try store.status(nowUnixSeconds: Date().timeIntervalSince1970).counts["sent"] ?? 0
        let latencies = try store.journal(pushID: nil, limit: sendCount * 4).compactMap(\.latencyMilliseconds).sorted()
        func percentile(_ fraction: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
        return BenchQueueDrainFigures(rate: Double(sent) / seconds, cpuMicrosPerPush: cpu / Double(max(sent, 1)) * 1e6,
                                      p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
                                      rssMB: Self.residentMB(), sent: sent)
    }

    static func rate(_ value: Double) -> String { String(format: "%9.0f", value) }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Resident set size now (from /proc/self/statm), MB.
    static func residentMB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}

/// A throwaway PostgreSQL server for the benchmark (scripts/pg-test-server.sh).
enum BenchQueuePostgres {
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
        while fgets(&buf, Int32(buf.count), f) != nil {
            let bytes = buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
            out += String(decoding: bytes, as: UTF8.self)
        }
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
