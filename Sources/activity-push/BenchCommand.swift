import ActivityPushCore
import Foundation

/// `activity-push bench validate|send|queue` — benchmarks that print figures (never timed tests).
let benchCommand = Command(
    name: "bench",
    summary: "benchmarks: validate (check vs bare parse vs Python validators), send, queue"
) { argv in
    guard let sub = argv.first, sub != "--help" else {
        print("usage: activity-push bench validate [--seconds S] [--payload FILE --attributes PATH] [--no-python]\n"
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
        var a = try Arguments(argv, booleanFlags: ["--no-python"])
        let seconds = try a.double("--seconds") ?? 2
        let payloadPath = a.value("--payload") ?? fixture("bench/start-1k.json")
        let attributesPath = a.value("--attributes") ?? fixture("bench/DeliveryAttributes.swift")
        let largeSwift = a.value("--swift-500") ?? fixture("swift/Large500.swift")
        let noPython = a.flag("--no-python")
        try a.finish()

        // The same bytes for everyone: the payload in compact form, as sent.
        let original = try Inputs.bytes(payloadPath)
        guard let root = JSONReader.read(original).root else { throw UsageError("\(payloadPath): not valid JSON") }
        let body = Array(JSONWriter.compact(root.value).utf8)
        guard let schema = try Inputs.schema([attributesPath]) else { throw UsageError("no schema") }
        let validator = Validator(schema: schema)
        let now = Double(root["aps"]?["timestamp"]?.value.numberValue?.int64Value ?? 0)
        let report = validator.check(body: body, nowUnixSeconds: now)
        print("payload: \(payloadPath) (\(body.count) bytes compact), schema: \(attributesPath)")
        print("verdict: \(report.accept ? "accepted" : "rejected"), \(report.findings.count) findings")
        #if DEBUG
        print("note: this is a debug build; measure with `swift build -c release` (make bench)")
        #endif

        var sink = 0
        let (nv, tv) = measure(seconds: seconds) { sink &+= validator.check(body: body, nowUnixSeconds: now).findings.count }
        let data = Data(body)
        let (np, tp) = measure(seconds: seconds) {
            if let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] { sink &+= o.count }
        }
        let validateUS = tv / Double(nv) * 1e6
        let parseUS = tp / Double(np) * 1e6
        let perSec = Double(nv) / tv
        print(String(format: "check validation (parse + every rule + schema): %10.0f payloads/s  %7.2f µs/payload", perSec, validateUS))
        print(String(format: "bare JSONSerialization parse of the same bytes: %10.0f payloads/s  %7.2f µs/payload", Double(np) / tp, parseUS))
        print(String(format: "  ratio validation / bare parse: %.2f× (target ≤ 1.5×)", validateUS / parseUS))

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

        if !noPython {
            try BenchValidate.pythonValidators(schema: schema, body: body, seconds: seconds, oursPerSec: perSec)
        }
        if sink == 42 { print("") }
        return 0
    }

}
