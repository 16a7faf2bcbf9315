import ActivityPushCore
import Foundation

/// `activity-push bench validate|send|queue` — benchmarks that print figures (never timed tests).
let benchCommand = Command(
    name: "bench",
    summary: "benchmarks: validate (check vs ajv, jsonschema-rs, JSONSerialization, simdjson), send, queue"
) { argv in
    guard let sub = argv.first, sub != "--help" else {
        print("usage: activity-push bench validate [--seconds S] [--rounds N] [--payload FILE --attributes PATH]\n"
              + "                                   [--no-python] [--no-peers] [--iterations N]\n"
              + "       activity-push bench send …      (see bench send --help)\n"
              + "       activity-push bench queue …     (see bench queue --help)")
        return argv.isEmpty ? 2 : 0
    }
    let rest = Array(argv.dropFirst())
    switch sub {
    case "validate": return try BenchValidate.run(rest)
    default:
        if let extra = benchSubcommands[sub] { return try extra(rest) }
        throw UsageError("unknown benchmark '\(sub)' (known: validate, \(benchSubcommands.keys.sorted().joined(separator: ", ")))")
    }
}

/// Benchmarks other modules add (`send`, `queue`): name → entry point.
let benchSubcommands: [String: @Sendable ([String]) throws -> Int32] = [
    "queue": runBenchQueue,
    "send": runBenchSend,
]

enum BenchValidate {
    /// Where the bundled benchmark inputs live, relative to the executable's repository checkout or the cwd.
    static func fixture(_ relative: String) -> String {
        let candidates = [
            FileManager.default.currentDirectoryPath + "/Fixtures/" + relative,
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/" + relative).path,
        ]
        return candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) ?? candidates[0]
    }

    /// Runs `body` repeatedly for about `seconds` and returns (iterations, elapsed seconds).
    @inline(never)
    static func measure(seconds: Double, _ body: () -> Void) -> (Int, Double) {
        for _ in 0..<200 { body() }  // warm up
        var n = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed = 0.0
        repeat {
            for _ in 0..<500 { body() }
            n += 500
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } while elapsed < seconds
        return (n, elapsed)
    }

    static func run(_ argv: [String]) throws -> Int32 {
        var a = try Arguments(argv, booleanFlags: ["--no-python", "--no-peers"])
        let seconds = try a.double("--seconds") ?? 1
        let rounds = max(1, try a.int("--rounds") ?? 3)
        let iterations = try a.int("--iterations")
        let payloadPath = a.value("--payload") ?? fixture("bench/start-1k.json")
        let attributesPath = a.value("--attributes") ?? fixture("bench/DeliveryAttributes.swift")
        let largeSwift = a.value("--swift-500") ?? fixture("swift/Large500.swift")
        let noPython = a.flag("--no-python")
        let noPeers = a.flag("--no-peers")
        try a.finish()

        // The same bytes for everyone: the payload in compact form, as sent.
        let original = try Inputs.bytes(payloadPath)
        guard let root = JSONReader.read(original).root else { throw UsageError("\(payloadPath): not valid JSON") }
        let body = Array(JSONWriter.compact(root.value).utf8)
        guard let schema = try Inputs.schema([attributesPath]) else { throw UsageError("no schema") }
        let validator = Validator(schema: schema)
        let now = Double(root["aps"]?["timestamp"]?.value.numberValue?.int64Value ?? 0)
        var sink = 0

        if let iterations {
            // Exactly N checks and nothing else, for `valgrind --tool=callgrind` (instruction counts per check).
            for _ in 0..<iterations { sink &+= validator.check(body: body, nowUnixSeconds: now).findings.count }
            print("\(iterations) checks, \(sink) findings")
            return 0
        }

        let report = validator.check(body: body, nowUnixSeconds: now)
        print("payload: \(payloadPath) (\(body.count) bytes compact), schema: \(attributesPath)")
        print("verdict: \(report.accept ? "accepted" : "rejected"), \(report.findings.count) findings"
              + (report.findings.isEmpty ? " (the quiet scan proves it finding-free in one pass; any push with a finding gets the full check)" : ""))
        #if DEBUG
        print("note: this is a debug build; measure with `swift build -c release` (make bench)")
        #endif

        var peers = noPeers ? nil : try BenchPeers(schema: schema, body: body)
        defer { peers?.removeFiles() }
        peers?.buildSimdjson()

        // Every runner once per round, in turn, so a burst of load elsewhere hits all of them; the median round counts.
        var rates: [String: [Double]] = [:]
        var labels: [String] = []
        var problems: [String: String] = [:]
        var invalid: Set<String> = []
        func record(_ label: String, _ perSecond: Double?, valid: Bool = true, problem: String? = nil) {
            if !labels.contains(label) { labels.append(label) }
            if let perSecond { rates[label, default: []].append(perSecond) }
            if let problem { problems[label] = problem }
            if !valid { invalid.insert(label) }
        }
        let ours = "ours: check (parse + every rule + schema)"
        // The same check with the quiet scan off: what a push with a finding costs (reader, tree, every rule).
        let oursFull = "ours: full check (reader, tree, rules: a push with a finding)"
        var fullValidator = validator
        fullValidator.usesQuietScan = false
        let foundation = "Foundation JSONSerialization (parse only)"
        let data = Data(body)
        for _ in 0..<rounds {
            let (nv, tv) = measure(seconds: seconds) { sink &+= validator.check(body: body, nowUnixSeconds: now).findings.count }
            record(ours, Double(nv) / tv)
            let (nf, tf) = measure(seconds: seconds) { sink &+= fullValidator.check(body: body, nowUnixSeconds: now).findings.count }
            record(oursFull, Double(nf) / tf)
            if let peers {
                for result in peers.ajv(seconds: seconds) + (noPython ? [] : peers.python(seconds: seconds)) + [peers.simdjson(seconds: seconds)] {
                    record(result.label, result.perSecond, valid: result.valid || result.problem != nil, problem: result.problem)
                }
            }
            let (np, tp) = measure(seconds: seconds) {
                if let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] { sink &+= o.count }
            }
            record(foundation, Double(np) / tp)
        }

        func median(_ label: String) -> Double? {
            guard let values = rates[label]?.sorted(), !values.isEmpty else { return nil }
            return values[values.count / 2]
        }
        let oursRate = median(ours) ?? 0
        print("median of \(rounds) rounds of \(String(format: "%.1f", seconds)) s each, same \(body.count) bytes:")
        print("  " + pad("", 64) + "    payloads/s  µs/payload  ours vs it")
        for label in labels {
            guard let rate = median(label) else {
                print("  \(pad(label, 64))  not run: \(problems[label] ?? "no result")")
                continue
            }
            let ratio = label == ours ? "" : oursRate >= rate
                ? String(format: "ours %.2f× faster", oursRate / rate) : String(format: "ours %.2f× slower", rate / oursRate)
            print(String(format: "  %@  %12.0f  %10.2f  %@%@", pad(label, 64), rate, 1e6 / rate, ratio,
                         invalid.contains(label) ? "  [judged the payload invalid!]" : ""))
        }
        if let ajv = labels.first(where: { $0.hasPrefix("ajv") }), let ajvRate = median(ajv) {
            print(String(format: "  ours / ajv + JSON.parse: %.2f× (target ≥ 2×)", oursRate / ajvRate))
            if let fullRate = median(oursFull) {
                print(String(format: "  ours, full check / ajv + JSON.parse: %.2f×", fullRate / ajvRate))
            }
        }
        if let parseRate = median(foundation) {
            print(String(format: "  ours / bare JSONSerialization parse: %.2f× its rate", oursRate / parseRate))
        }

        let swiftText = try String(contentsOfFile: largeSwift, encoding: .utf8)
        let lines = swiftText.split(separator: "\n", omittingEmptySubsequences: false).count
        var times: [Double] = []
        for _ in 0..<200 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let s = try? SwiftSourceReader.read(sources: [(file: largeSwift, text: swiftText)])
            sink &+= s?.types.count ?? 0
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        times.sort()
        print(String(format: "schema read of %@ (%d lines): median %.3f ms, p99 %.3f ms (target < 5 ms)",
                     (largeSwift as NSString).lastPathComponent, lines, times[times.count / 2], times[times.count * 99 / 100]))
        if sink == 42 { print("") }
        return 0
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
