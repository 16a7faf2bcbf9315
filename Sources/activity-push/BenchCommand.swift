import ActivityPushCore
import Foundation

/// `activity-push bench validate|send|queue` — benchmarks that print figures (never timed tests).
let benchCommand = Command(
    name: "bench",
    summary: "benchmarks: validate (check vs ajv, jsonschema-rs, JSONSerialization, simdjson), send, queue",
    subcommands: [benchValidateCommand, benchSendCommand, benchQueueCommand]
)

let benchValidateCommand = Command(
    name: "validate",
    summary: "checks per second: ours against ajv, jsonschema-rs, JSONSerialization and simdjson; schema read time",
    groups: [OptionGroup(BenchValidate.seconds, BenchValidate.rounds, BenchValidate.payload, BenchValidate.attributes,
                         BenchValidate.largeSwift, BenchValidate.noPython, BenchValidate.noPeers, BenchValidate.iterations)],
    run: BenchValidate.run
)

enum BenchValidate {
    static let seconds = Option<Double>.decimal("--seconds", help: "length of each measurement", default: 1)
    static let rounds = Option<Int>.integer("--rounds", help: "rounds; the median counts", default: 3)
    static let iterations = Option<Int>.integer(
        "--iterations", help: "exactly N checks and nothing else (for valgrind --tool=callgrind)")
    static let payload = Option<String>("--payload", valueName: "FILE", help: "the payload to check",
                                        defaultText: "Fixtures/bench/start-1k.json")
    static let attributes = Option<String>("--attributes", valueName: "PATH", help: "the app's ActivityAttributes source",
                                           defaultText: "Fixtures/bench/DeliveryAttributes.swift")
    static let largeSwift = Option<String>("--swift-500", valueName: "FILE", help: "the Swift file for the schema-read timing",
                                           defaultText: "Fixtures/swift/Large500.swift")
    static let noPython = Flag("--no-python", help: "skip the Python peers")
    static let noPeers = Flag("--no-peers", help: "measure ours and JSONSerialization only")

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
        var iterations = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed = 0.0
        repeat {
            for _ in 0..<500 { body() }
            iterations += 500
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } while elapsed < seconds
        return (iterations, elapsed)
    }

    @Sendable static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let seconds = try arguments.defaultedValue(Self.seconds)
        let rounds = max(1, try arguments.defaultedValue(Self.rounds))
        let iterations = try arguments.value(Self.iterations)
        let payloadPath = try arguments.value(payload) ?? fixture("bench/start-1k.json")
        let attributesPath = try arguments.value(attributes) ?? fixture("bench/DeliveryAttributes.swift")
        let largeSwift = try arguments.value(Self.largeSwift) ?? fixture("swift/Large500.swift")
        let noPython = arguments.isSet(Self.noPython)
        let noPeers = arguments.isSet(Self.noPeers)

        // The same bytes for everyone: the payload in compact form, as sent.
        let original = try Inputs.bytes(payloadPath)
        guard let root = JSONReader.read(original).root else { throw UsageError(.badInput, file: payloadPath, "\(payloadPath): not valid JSON") }
        let body = Array(JSONWriter.compact(root.value).utf8)
        guard let schema = try Inputs.schema([attributesPath]) else { throw UsageError(.failed, "no schema") }
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
            let (checks, checkSeconds) = measure(seconds: seconds) {
                sink &+= validator.check(body: body, nowUnixSeconds: now).findings.count
            }
            record(ours, Double(checks) / checkSeconds)
            let (fullChecks, fullSeconds) = measure(seconds: seconds) {
                sink &+= fullValidator.check(body: body, nowUnixSeconds: now).findings.count
            }
            record(oursFull, Double(fullChecks) / fullSeconds)
            if let peers {
                for result in peers.ajv(seconds: seconds) + (noPython ? [] : peers.python(seconds: seconds)) + [peers.simdjson(seconds: seconds)] {
                    record(result.label, result.perSecond, valid: result.valid || result.problem != nil, problem: result.problem)
                }
            }
            let (parses, parseSeconds) = measure(seconds: seconds) {
                if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] { sink &+= object.count }
            }
            record(foundation, Double(parses) / parseSeconds)
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
            let started = DispatchTime.now().uptimeNanoseconds
            let read = try? SwiftSourceReader.read(sources: [(file: largeSwift, text: swiftText)])
            sink &+= read?.types.count ?? 0
            times.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
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
