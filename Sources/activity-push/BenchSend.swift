import ActivityPushAPNs
import ActivityPushCore
import COpenSSL
import Foundation
import Synchronization

/// `activity-push bench send` — for each round-trip time (mock-apns `--faults delay=MSms:all`), the same pushes
/// (distinct tokens, start/update/end mix, priority 5/10, 1–4 KB bodies) to the same TLS mock (a child process)
/// from h2load `-c 1 -m STREAMS` (the ceiling), this client (in process, one connection) and Python aioapns.
/// Each as pushes/s, % of h2load, client CPU µs/push (getrusage; h2load and aioapns measured by /usr/bin/time),
/// p50/p99 latency and peak RSS.
let benchSendCommand = Command(
    name: "send",
    summary: "pushes/s, CPU µs/push and latency against h2load and aioapns, per round-trip time",
    groups: [OptionGroup(BenchSendOptions.pushes, BenchSendOptions.streams, BenchSendOptions.rtt,
                         BenchSendOptions.noH2load, BenchSendOptions.noAioapns)],
    notes: "goals: at 150 ms ≥ 90 % of h2load; at 0 ms ≤ 20 µs client CPU per push",
    run: runBenchSend
)

enum BenchSendOptions {
    static let pushes = Option<Int>.integer("--pushes", help: "pushes per client and round-trip time", default: 5000)
    static let streams = Option<Int>.integer("--streams", help: "concurrent streams on the one connection, for every client", default: 1000)
    static let rtt = Option<String>("--rtt", valueName: "MS,…", help: "round-trip times to emulate, in milliseconds", default: "0,50,150")
    static let noH2load = Flag("--no-h2load", help: "skip the h2load ceiling")
    static let noAioapns = Flag("--no-aioapns", help: "skip the Python peer")
}

@Sendable func runBenchSend(_ arguments: ParsedArguments) async throws -> Int32 {
    let n = try arguments.value(BenchSendOptions.pushes) ?? 5000
    let streams = try arguments.value(BenchSendOptions.streams) ?? 1000
    let rttText = try arguments.value(BenchSendOptions.rtt) ?? "0,50,150"
    let runH2load = !arguments.isSet(BenchSendOptions.noH2load)
    let runPython = !arguments.isSet(BenchSendOptions.noAioapns)
    guard n >= 1, streams >= 1 else { throw UsageError(.badValue, option: "--pushes", "--pushes and --streams must be at least 1") }
    let rtts = try rttText.split(separator: ",").map { part -> Int in
        guard let ms = Int(part.trimmingCharacters(in: .whitespaces)), ms >= 0, ms <= 10_000 else {
            throw UsageError(.badValue, option: "--rtt", "--rtt: '\(part)' is not a number of milliseconds 0–10000 (e.g. --rtt 0,50,150)")
        }
        return ms
    }

    let dir = NSTemporaryDirectory() + "activity-push-bench-send-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let keyPath = dir + "/AuthKey_BENCH12345.p8"
    try BenchSend.writeP256Key(to: keyPath)
    let bundleID = "com.example.bench"
    let pushes = try BenchSend.pushes(bundleID: bundleID)
    let tokens = (0..<n).map { String(format: "%064x", 0xB000_0000 + $0) }
    let token = try ProviderToken(keyFile: keyPath, keyID: "BENCH12345", teamID: "TEAMBENCH1")
    let sizes = pushes.map(\.body.count)
    var cpuModel = "unknown CPU"
    if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
       let colon = line.firstIndex(of: ":") {
        cpuModel = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    print("bench send: \(n) pushes per client, distinct tokens, start/update/end mix, priority 5/10, bodies "
          + "\(sizes.min()!)–\(sizes.max()!) B, \(streams) streams on one TLS connection; machine: "
          + "\(ProcessInfo.processInfo.activeProcessorCount) CPUs (\(cpuModel))")
    print("  rtt     client                  pushes/s  % h2load  CPU µs/push   p50 ms   p99 ms  RSS MB  ok")
    var goals: [String] = []
    var allOK = true
    for rtt in rtts {
        let mock = try BenchSend.startMock(dir: dir + "/rtt-\(rtt)", streams: streams, delayMilliseconds: rtt)
        defer { mock.process.terminate(); mock.process.waitUntilExit() }
        var ceiling: BenchSend.Figures?
        if runH2load {
            ceiling = try BenchSend.h2load(dir: dir, url: mock.url, jwt: try token.current(), bundleID: bundleID,
                                           body: pushes[pushes.count / 2].body, tokens: tokens, streams: streams)
            if let ceiling { BenchSend.printRow(rtt: rtt, name: "h2load -c 1 -m \(streams)", ceiling, ceiling: ceiling, n: n) }
            else { print("  \(rtt) ms  h2load: not available (install nghttp2-client)") }
        }
        // The callback API (`APNsClient.submit`, no task per push) and the async one (`send`, one await per push
        // from a fixed set of tasks), each on a fresh client and connection.
        let ours = await BenchSend.runOurs(url: mock.url, ca: mock.ca, token: token, pushes: pushes, tokens: tokens,
                                           streams: streams, mode: .submit)
        BenchSend.printRow(rtt: rtt, name: "activity-push submit", ours, ceiling: ceiling, n: n)
        let oursAsync = await BenchSend.runOurs(url: mock.url, ca: mock.ca, token: token, pushes: pushes, tokens: tokens,
                                                streams: streams, mode: .async)
        BenchSend.printRow(rtt: rtt, name: "activity-push async", oursAsync, ceiling: ceiling, n: n)
        if ours.ok != n || oursAsync.ok != n { allOK = false }
        if runPython {
            if let peer = try BenchSend.aioapns(dir: dir, url: mock.url, ca: mock.ca, keyPath: keyPath, bundleID: bundleID,
                                                pushes: pushes, tokens: tokens, streams: streams) {
                BenchSend.printRow(rtt: rtt, name: "aioapns (Python)", peer, ceiling: ceiling, n: n)
            } else { print("  \(rtt) ms  aioapns: not available (python3 -m pip install aioapns)") }
        }
        print("         transport: \(ours.connections) connection(s), \(ours.streamsOpened) streams, \(ours.refused) refused, "
              + "\(ours.resetsReceived) resets received")
        if rtt == 150, let ceiling {
            goals.append(String(format: "150 ms: %.0f %% (submit), %.0f %% (async) of h2load (goal ≥ 90 %%): %@",
                                ours.rate / ceiling.rate * 100, oursAsync.rate / ceiling.rate * 100,
                                min(ours.rate, oursAsync.rate) >= 0.9 * ceiling.rate ? "met" : "MISSED"))
        }
        if rtt == 0 {
            let h2loadCPU = ceiling.map { String(format: "; h2load %.1f µs per request", $0.cpuMicros) } ?? ""
            goals.append(String(format: "0 ms: %.1f µs (submit), %.1f µs (async) client CPU per push%@ (goal ≤ 20): %@",
                                ours.cpuMicros, oursAsync.cpuMicros, h2loadCPU, ours.cpuMicros <= 20 ? "met" : "MISSED"))
        }
    }
    if !goals.isEmpty { print("  goals: " + goals.joined(separator: "; ")) }
    return allOK ? 0 : 1
}

enum BenchSend {
    struct Figures: Sendable {
        var rate: Double, cpuMicros: Double, p50: Double, p99: Double, peakRSSMB: Double, ok: Int
        var connections = 0, streamsOpened = 0, refused = 0, resetsReceived = 0
    }

    static func printRow(rtt: Int, name: String, _ f: Figures, ceiling: Figures?, n: Int) {
        let share = ceiling.map { String(format: "%7.0f %%", f.rate / $0.rate * 100) } ?? "        –"
        print(String(format: "  %3d ms  %-21@ %9.0f  %@  %11.1f  %7.2f  %7.2f  %6.0f  %d/%d", rtt, name as NSString,
                     f.rate, share, f.cpuMicros, f.p50 * 1000, f.p99 * 1000, f.peakRSSMB, f.ok, n))
    }

    /// 60 pushes cycling start/update/end and priority 10/5, bodies padded to 1–4 KB.
    static func pushes(bundleID: String) throws -> [PushRequest] {
        var out: [PushRequest] = []
        for k in 0..<60 {
            let target = 1000 + (k * 997) % 3000
            let note = String(repeating: "x", count: max(1, target - 230))
            let state: JSONValue = .obj([("status", .string("step \(k)")), ("etaMinutes", .int(k)), ("note", .string(note))])
            var p: LiveActivityPush
            switch k % 3 {
            case 0:
                p = .start(bundleID: bundleID, attributesType: "DeliveryAttributes", attributes: .obj([("orderID", .string("A-\(k)"))]),
                           contentState: state, alert: LiveActivityAlert(title: "Order A-\(k)", body: "On its way"))
            case 1: p = .update(bundleID: bundleID, contentState: state)
            default: p = .end(bundleID: bundleID, contentState: state)
            }
            p.priority = k % 2 == 0 ? .immediate : .considerate
            do { out.append(try p.build()) } catch { throw UsageError(.failed, "bench payload \(k) refused: \(error)") }
        }
        return out
    }

    enum Mode { case submit, async }

    /// Latencies and successes of one run, filled from the completions (any thread).
    final class Tally: Sendable {
        struct State {
            var latencies: [Double] = []
            var ok = 0
            var finished = 0
        }
        let state = Mutex(State())
        let next = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let total: Int
        init(total: Int) {
            self.total = total
            state.withLock { $0.latencies.reserveCapacity(total) }
        }
        func record(since start: UInt64, ok: Bool) {
            let latency = Double(monotonicNanoseconds() &- start) / 1e9
            let finished = state.withLock { state -> Int in
                state.latencies.append(latency)
                if ok { state.ok += 1 }
                state.finished += 1
                return state.finished
            }
            if finished == total { done.signal() }
        }
    }

    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Sends every token once with `streams × 2` pushes in flight. `.submit`: `APNsClient.submit` and its
    /// completion (on the client's thread) submits the next push — no task per push. `.async`: `streams × 2`
    /// tasks, each awaiting `send` for one push after another.
    static func runOurs(url: String, ca: String, token: ProviderToken, pushes: [PushRequest], tokens: [String],
                        streams: Int, mode: Mode) async -> Figures {
        let client: APNsClient
        do {
            client = try APNsClient(environment: .custom(url), token: token,
                                    transport: HTTP2TransportConfiguration(caFile: ca, maxConcurrentStreams: streams,
                                                                           requestTimeoutSeconds: 60))
        } catch { return Figures(rate: 0, cpuMicros: 0, p50: 0, p99: 0, peakRSSMB: 0, ok: 0) }
        // Warm up: connect and authenticate (the connection opens up after the first valid answer).
        _ = try? await client.send(pushes[0], deviceToken: tokens[0])
        let window = min(streams * 2, tokens.count)
        let tally = Tally(total: tokens.count)
        let cpu0 = cpuSeconds()
        let t0 = ContinuousClock.now
        switch mode {
        case .submit:
            @Sendable func sendNext() {
                let index = tally.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < tokens.count else { return }
                let start = monotonicNanoseconds()
                do {
                    try client.submit(pushes[index % pushes.count], deviceToken: tokens[index]) { result in
                        tally.record(since: start, ok: result.response?.status == 200)
                        sendNext()
                    }
                } catch {
                    tally.record(since: start, ok: false)
                    sendNext()
                }
            }
            for _ in 0..<window { sendNext() }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    tally.done.wait()
                    continuation.resume()
                }
            }
        case .async:
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<window {
                    group.addTask {
                        while true {
                            let index = tally.next.wrappingAdd(1, ordering: .relaxed).oldValue
                            guard index < tokens.count else { return }
                            let start = monotonicNanoseconds()
                            let result = try? await client.send(pushes[index % pushes.count], deviceToken: tokens[index])
                            tally.record(since: start, ok: result?.response?.status == 200)
                        }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - t0
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cpu = cpuSeconds() - cpu0
        let counters = client.transport.statistics
        await client.shutdown()
        let (latencies, ok) = tally.state.withLock { ($0.latencies, $0.ok) }
        let sorted = latencies.sorted()
        var ru = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &ru)
        return Figures(rate: Double(tokens.count) / seconds, cpuMicros: cpu / Double(tokens.count) * 1e6,
                       p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), peakRSSMB: Double(ru.ru_maxrss) / 1024, ok: ok,
                       connections: counters.connectionsOpened, streamsOpened: counters.streamsOpened,
                       refused: counters.refused, resetsReceived: counters.resetsReceived)
    }

    static func cpuSeconds() -> Double {
        var ru = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &ru)
        return Double(ru.ru_utime.tv_sec) + Double(ru.ru_utime.tv_usec) / 1e6 + Double(ru.ru_stime.tv_sec) + Double(ru.ru_stime.tv_usec) / 1e6
    }

    struct Mock { var process: Process; var url: String; var ca: String }

    /// Starts `activity-push mock-apns` (TLS, any token) as a child process and reads its URL and CA path.
    static func startMock(dir: String, streams: Int, delayMilliseconds: Int) throws -> Mock {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        if !FileManager.default.isExecutableFile(atPath: p.executableURL!.path) {
            p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        p.arguments = ["mock-apns", "--tls-dir", dir + "/tls", "--accept-any-token", "--quiet",
                       "--max-concurrent-streams", String(streams), "--streams-before-token", String(streams)]
        if delayMilliseconds > 0 { p.arguments! += ["--faults", "delay=\(delayMilliseconds)ms:all"] }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let d = out.fileHandleForReading.availableData
            if d.isEmpty { break }
            text += String(decoding: d, as: UTF8.self)
            if text.contains("mock-apns ca "), text.hasSuffix("\n") { break }
        }
        var url: String?
        var ca: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("mock-apns listening on ") { url = String(line.dropFirst("mock-apns listening on ".count)) }
            if line.hasPrefix("mock-apns ca ") { ca = String(line.dropFirst("mock-apns ca ".count)) }
        }
        guard let url, let ca else {
            p.terminate()
            throw UsageError(.failed, "mock-apns did not start (output: \(text.prefix(200)))")
        }
        return Mock(process: p, url: url, ca: ca)
    }

    static func writeP256Key(to path: String) throws {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw UsageError(.failed, "OpenSSL: no EC support") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else { throw UsageError(.failed, "OpenSSL: cannot make a P-256 key") }
        defer { EVP_PKEY_free(key) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0, let f = fdopen(fd, "w") else { throw UsageError(.failed, file: path, "\(path): cannot write the bench key") }
        defer { fclose(f) }
        guard PEM_write_PrivateKey(f, key, nil, nil, 0, nil, nil) == 1 else { throw UsageError(.failed, "OpenSSL: cannot write the key") }
    }

    static func run(_ exe: String, _ args: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        do { try p.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func which(_ name: String) -> String? {
        for d in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(d)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// Runs `exe` under GNU time; returns its output and its CPU seconds (user + system) and peak RSS in MB.
    static func runTimed(_ exe: String, _ args: [String]) -> (output: String, cpuSeconds: Double, rssMB: Double)? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time"),
              let out = run("/usr/bin/time", ["-f", "timed: %U %S %M"] + [exe] + args) else { return nil }
        guard let line = out.split(separator: "\n").last(where: { $0.hasPrefix("timed: ") }) else { return (out, 0, 0) }
        let parts = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard parts.count == 3 else { return (out, 0, 0) }
        return (out, parts[0] + parts[1], parts[2] / 1024)
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    /// h2load over one TLS connection with the same request count and distinct tokens (`-c 1 -m STREAMS`).
    static func h2load(dir: String, url: String, jwt: String, bundleID: String, body: [UInt8], tokens: [String],
                       streams: Int) throws -> Figures? {
        guard let exe = which("h2load") else { return nil }
        let bodyPath = dir + "/h2load-body.json"
        try Data(body).write(to: URL(fileURLWithPath: bodyPath))
        let urisPath = dir + "/h2load-uris.txt"
        try Data(tokens.map { url + "/3/device/" + $0 }.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: urisPath))
        let logPath = dir + "/h2load-log.tsv"
        try? FileManager.default.removeItem(atPath: logPath)
        guard let (out, cpu, rss) = runTimed(exe, ["-n", String(tokens.count), "-c", "1", "-m", String(streams), "-d", bodyPath,
                                                   "-i", urisPath, "--log-file", logPath,
                                                   "-H", "authorization: bearer \(jwt)", "-H", "apns-push-type: liveactivity",
                                                   "-H", "apns-topic: \(bundleID)\(LiveActivityPush.topicSuffix)", "-H", "apns-priority: 10"])
        else { return nil }
        // "finished in 1.23s, 8123.45 req/s, …"
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
              let part = line.split(separator: ",").dropFirst().first,
              let rate = Double(part.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") else { return nil }
        // --log-file: start (µs), status, duration (µs) per request.
        var latencies: [Double] = []
        var ok = 0
        if let log = try? String(contentsOfFile: logPath, encoding: .utf8) {
            for row in log.split(separator: "\n") {
                let fields = row.split(separator: "\t")
                guard fields.count >= 3, let micros = Double(fields[2]) else { continue }
                latencies.append(micros / 1e6)
                if fields[1] == "200" { ok += 1 }
            }
        }
        latencies.sort()
        return Figures(rate: rate, cpuMicros: cpu / Double(tokens.count) * 1e6, p50: percentile(latencies, 0.5),
                       p99: percentile(latencies, 0.99), peakRSSMB: rss, ok: ok)
    }

    /// Python aioapns sending the same pushes (same tokens, bodies, priorities) over one connection.
    static func aioapns(dir: String, url: String, ca: String, keyPath: String, bundleID: String, pushes: [PushRequest],
                        tokens: [String], streams: Int) throws -> Figures? {
        guard let python = which("python3") else { return nil }
        guard run(python, ["-c", "import aioapns"]).map({ $0.isEmpty }) == true else { return nil }
        let script = BenchValidate.fixture("../scripts/bench_aioapns.py")
        guard FileManager.default.fileExists(atPath: script) else { return nil }
        var json = "["
        for (i, t) in tokens.enumerated() {
            let p = pushes[i % pushes.count]
            if i > 0 { json += "," }
            json += #"{"token":"\#(t)","priority":\#(p.headers.priority ?? "10"),"body":"# + p.bodyString + "}"
        }
        json += "]"
        let pushesPath = dir + "/aioapns-pushes.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: pushesPath))
        guard let (out, cpu, rss) = runTimed(python, [script, url, ca, keyPath, "BENCH12345", "TEAMBENCH1",
                                                      bundleID + LiveActivityPush.topicSuffix, pushesPath, String(streams)]),
              let line = out.split(separator: "\n").first(where: { $0.hasPrefix("aioapns ") }) else { return nil }
        func field(_ name: String) -> Double? {
            line.split(separator: " ").first(where: { $0.hasPrefix(name + "=") }).flatMap { Double($0.dropFirst(name.count + 1)) }
        }
        guard let rate = field("rate") else { return nil }
        // The script's CPU covers its whole run (interpreter start, key load, warm-up push): an upper bound.
        return Figures(rate: rate, cpuMicros: cpu / Double(tokens.count) * 1e6, p50: (field("p50ms") ?? 0) / 1000,
                       p99: (field("p99ms") ?? 0) / 1000, peakRSSMB: rss, ok: Int(field("ok") ?? 0))
    }
}
