import ActivityPushAPNs
import ActivityPushCore
import COpenSSL
import Foundation

/// `activity-push bench send` — the client against `mock-apns` (a child process, so its CPU is not counted):
/// N pushes with distinct tokens, a start/update/end mix, priority 5/10, 1–4 KB bodies. Prints pushes/s, client
/// CPU µs per push (getrusage), p50/p99 latency, peak RSS, then `h2load` (the ceiling) and Python `aioapns`
/// (the peer) sending the same pushes to the same mock.
func runBenchSend(_ argv: [String]) throws -> Int32 {
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push bench send [--pushes N] [--streams N] [--no-h2load] [--no-aioapns]
          --pushes N    pushes per client (default 10000)
          --streams N   concurrent streams on the one connection, for every client (default 1000)
          --no-h2load   skip the h2load ceiling;  --no-aioapns  skip the Python peer
        targets: ≥ 3× aioapns, ≥ 60 % of h2load, ≤ 50 µs client CPU per push
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--no-h2load", "--no-aioapns"])
    let n = try a.int("--pushes") ?? 10_000
    let streams = try a.int("--streams") ?? 1000
    let runH2load = !a.flag("--no-h2load")
    let runPython = !a.flag("--no-aioapns")
    try a.finish()
    guard n >= 1, streams >= 1 else { throw UsageError("--pushes and --streams must be at least 1") }

    let dir = NSTemporaryDirectory() + "activity-push-bench-send-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let keyPath = dir + "/AuthKey_BENCH12345.p8"
    try BenchSend.writeP256Key(to: keyPath)

    let mock = try BenchSend.startMock(dir: dir, streams: streams)
    defer { mock.process.terminate(); mock.process.waitUntilExit() }
    let bundleID = "com.example.bench"
    let pushes = try BenchSend.pushes(bundleID: bundleID)
    let tokens = (0..<n).map { String(format: "%064x", 0xB000_0000 + $0) }
    let token = try ProviderToken(keyFile: keyPath, keyID: "BENCH12345", teamID: "TEAMBENCH1")
    let sizes = pushes.map(\.body.count)
    print("bench send: \(n) pushes, distinct tokens, start/update/end mix, priority 5/10, bodies \(sizes.min()!)–\(sizes.max()!) B, "
          + "\(streams) streams, TLS mock-apns (child process) at \(mock.url)")

    // Ours.
    let ours = blockingAwait { await BenchSend.runOurs(url: mock.url, ca: mock.ca, token: token, pushes: pushes, tokens: tokens, streams: streams) }
    print(String(format: "  activity-push (libcurl multi): %8.0f pushes/s   client CPU %5.1f µs/push   p50 %6.2f ms   p99 %6.2f ms   peak RSS %.0f MB   %d/%d accepted, %d connection(s)",
                 ours.rate, ours.cpuMicros, ours.p50 * 1000, ours.p99 * 1000, ours.peakRSSMB, ours.ok, n, ours.connections))

    // h2load, the ceiling: same mock, same number of requests, distinct tokens, one connection.
    var h2loadRate: Double?
    if runH2load {
        h2loadRate = try BenchSend.h2load(dir: dir, url: mock.url, jwt: try token.current(), bundleID: bundleID,
                                          body: pushes[pushes.count / 2].body, tokens: tokens, streams: streams)
        if let r = h2loadRate {
            print(String(format: "  h2load (ceiling):             %8.0f req/s      activity-push = %.0f %% of h2load", r, ours.rate / r * 100))
        } else { print("  h2load: not available (install nghttp2-client)") }
    }
    var pythonRate: Double?
    if runPython {
        pythonRate = try BenchSend.aioapns(dir: dir, url: mock.url, ca: mock.ca, keyPath: keyPath, bundleID: bundleID,
                                           pushes: pushes, tokens: tokens, streams: streams)
        if let r = pythonRate {
            print(String(format: "  aioapns (Python peer):        %8.0f pushes/s   activity-push = %.1f× aioapns", r, ours.rate / r))
        } else { print("  aioapns: not available (python3 -m pip install aioapns)") }
    }
    var verdicts = [String(format: "CPU %.1f µs/push ≤ 50: %@", ours.cpuMicros, ours.cpuMicros <= 50 ? "met" : "MISSED")]
    if let r = h2loadRate { verdicts.append(String(format: "≥ 60 %% of h2load: %@", ours.rate >= 0.6 * r ? "met" : "MISSED")) }
    if let r = pythonRate { verdicts.append(String(format: "≥ 3× aioapns: %@", ours.rate >= 3 * r ? "met" : "MISSED")) }
    print("  targets: " + verdicts.joined(separator: "; "))
    return ours.ok == n ? 0 : 1
}

enum BenchSend {
    struct Figures: Sendable {
        var rate: Double, cpuMicros: Double, p50: Double, p99: Double, peakRSSMB: Double, ok: Int, connections: Int
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
            do { out.append(try p.build()) } catch { throw UsageError("bench payload \(k) refused: \(error)") }
        }
        return out
    }

    static func runOurs(url: String, ca: String, token: ProviderToken, pushes: [PushRequest], tokens: [String],
                        streams: Int) async -> Figures {
        let client: APNsClient
        do {
            client = try APNsClient(environment: .custom(url), token: token,
                                    transport: HTTP2TransportConfiguration(caFile: ca, maxConcurrentStreams: streams,
                                                                           requestTimeoutSeconds: 60))
        } catch { return Figures(rate: 0, cpuMicros: 0, p50: 0, p99: 0, peakRSSMB: 0, ok: 0, connections: 0) }
        // Warm up: connect, authenticate, let the server raise its stream limit.
        for i in 0..<min(200, tokens.count) { _ = try? await client.send(pushes[i % pushes.count], deviceToken: tokens[i]) }
        let window = streams * 2
        let cpu0 = cpuSeconds()
        let t0 = ContinuousClock.now
        let (latencies, ok) = await withTaskGroup(of: (Double, Bool).self) { g -> ([Double], Int) in
            var lat: [Double] = []
            lat.reserveCapacity(tokens.count)
            var ok = 0
            for i in 0..<tokens.count {
                if i >= window, let (l, good) = await g.next() { lat.append(l); if good { ok += 1 } }
                let push = pushes[i % pushes.count]
                let tok = tokens[i]
                g.addTask {
                    let s = ContinuousClock.now
                    let r = try? await client.send(push, deviceToken: tok)
                    let d = ContinuousClock.now - s
                    return (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18, r?.response?.status == 200)
                }
            }
            for await (l, good) in g { lat.append(l); if good { ok += 1 } }
            return (lat, ok)
        }
        let elapsed = ContinuousClock.now - t0
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cpu = cpuSeconds() - cpu0
        let connections = client.transport.statistics.connectionsOpened
        await client.shutdown()
        let sorted = latencies.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        var ru = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &ru)
        return Figures(rate: Double(tokens.count) / seconds, cpuMicros: cpu / Double(tokens.count) * 1e6, p50: pct(0.5),
                       p99: pct(0.99), peakRSSMB: Double(ru.ru_maxrss) / 1024, ok: ok, connections: connections)
    }

    static func cpuSeconds() -> Double {
        var ru = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &ru)
        return Double(ru.ru_utime.tv_sec) + Double(ru.ru_utime.tv_usec) / 1e6 + Double(ru.ru_stime.tv_sec) + Double(ru.ru_stime.tv_usec) / 1e6
    }

    struct Mock { var process: Process; var url: String; var ca: String }

    /// Starts `activity-push mock-apns` (TLS, any token) as a child process and reads its URL and CA path.
    static func startMock(dir: String, streams: Int, faults: String? = nil) throws -> Mock {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        if !FileManager.default.isExecutableFile(atPath: p.executableURL!.path) {
            p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        p.arguments = ["mock-apns", "--tls-dir", dir + "/tls", "--accept-any-token", "--quiet",
                       "--max-concurrent-streams", String(streams), "--streams-before-token", String(streams)]
            + (faults.map { ["--faults", $0] } ?? [])
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
            throw UsageError("mock-apns did not start (output: \(text.prefix(200)))")
        }
        return Mock(process: p, url: url, ca: ca)
    }

    static func writeP256Key(to path: String) throws {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw UsageError("OpenSSL: no EC support") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else { throw UsageError("OpenSSL: cannot make a P-256 key") }
        defer { EVP_PKEY_free(key) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0, let f = fdopen(fd, "w") else { throw UsageError("\(path): cannot write the bench key") }
        defer { fclose(f) }
        guard PEM_write_PrivateKey(f, key, nil, nil, 0, nil, nil) == 1 else { throw UsageError("OpenSSL: cannot write the key") }
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

    /// h2load over one TLS connection with the same request count and distinct tokens; returns req/s.
    static func h2load(dir: String, url: String, jwt: String, bundleID: String, body: [UInt8], tokens: [String],
                       streams: Int) throws -> Double? {
        guard let exe = which("h2load") else { return nil }
        let bodyPath = dir + "/h2load-body.json"
        try Data(body).write(to: URL(fileURLWithPath: bodyPath))
        let urisPath = dir + "/h2load-uris.txt"
        try Data(tokens.map { url + "/3/device/" + $0 }.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: urisPath))
        guard let out = run(exe, ["-n", String(tokens.count), "-c", "1", "-m", String(streams), "-d", bodyPath, "-i", urisPath,
                                  "-H", "authorization: bearer \(jwt)", "-H", "apns-push-type: liveactivity",
                                  "-H", "apns-topic: \(bundleID).push-type.liveactivity", "-H", "apns-priority: 10"]) else { return nil }
        // "finished in 1.23s, 8123.45 req/s, …"
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
              let part = line.split(separator: ",").dropFirst().first,
              let rate = Double(part.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") else { return nil }
        if let req = out.split(separator: "\n").first(where: { $0.hasPrefix("requests:") }) { print("    h2load \(req)") }
        return rate
    }

    /// Python aioapns sending the same pushes (same tokens, bodies, priorities) over one connection; pushes/s.
    static func aioapns(dir: String, url: String, ca: String, keyPath: String, bundleID: String, pushes: [PushRequest],
                        tokens: [String], streams: Int) throws -> Double? {
        guard let python = which("python3") else { return nil }
        guard run(python, ["-c", "import aioapns"]).map({ $0.isEmpty }) == true else { return nil }
        let script = BenchValidate.fixture("../scripts/bench_aioapns.py")
        guard FileManager.default.fileExists(atPath: script) else { return nil }
        var json = "["
        for (i, t) in tokens.enumerated() {
            let p = pushes[i % pushes.count]
            if i > 0 { json += "," }
            json += #"{"token":"\#(t)","priority":\#(p.headers["apns-priority"] ?? "10"),"body":"# + p.bodyString + "}"
        }
        json += "]"
        let pushesPath = dir + "/aioapns-pushes.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: pushesPath))
        guard let out = run(python, [script, url, ca, keyPath, "BENCH12345", "TEAMBENCH1", bundleID + ".push-type.liveactivity",
                                     pushesPath, String(streams)]),
              let line = out.split(separator: "\n").first(where: { $0.hasPrefix("aioapns ") }) else { return nil }
        print("    " + line)
        guard let rate = line.split(separator: " ").first(where: { $0.hasPrefix("rate=") }).flatMap({ Double($0.dropFirst(5)) }) else { return nil }
        return rate
    }
}
