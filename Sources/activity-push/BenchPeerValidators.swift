import ActivityPushCore
import Foundation

/// What `bench validate` compares `check` with, each on the same payload bytes: the validators a Node or Python
/// backend would pick instead (against the JSON Schema this tool exports), and simdjson's bare parse as the
/// floor. Each peer runs in its own process (scripts/bench_ajv.js, scripts/bench_jsonschema.py,
/// scripts/bench_simdjson.cpp built with g++) and prints one JSON object per runner: `per_sec`, `valid`,
/// `version`, or `error`.
struct BenchPeers {
    /// One measured peer: its label and payloads/s, or why it did not run.
    struct Result {
        var label: String
        var perSecond: Double?
        var valid: Bool
        var problem: String?
    }

    let directory: URL
    let schemaFile: URL
    let payloadFile: URL
    /// The simdjson runner, compiled once per bench run; nil with the reason when it could not be built.
    private(set) var simdjsonExecutable: URL?
    private(set) var simdjsonProblem: String?

    init(schema: ActivitySchema, body: [UInt8]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("activity-push-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        schemaFile = directory.appendingPathComponent("schema.json")
        payloadFile = directory.appendingPathComponent("payload.json")
        try JSONWriter.pretty(JSONSchemaExporter.document(for: schema)).write(to: schemaFile, atomically: true, encoding: .utf8)
        try Data(body).write(to: payloadFile)
    }

    func removeFiles() { try? FileManager.default.removeItem(at: directory) }

    /// Builds scripts/bench_simdjson.cpp against Debian's libsimdjson (`g++ -O2 … -lsimdjson`).
    mutating func buildSimdjson() {
        let source = BenchValidate.fixture("../scripts/bench_simdjson.cpp")
        let executable = directory.appendingPathComponent("bench_simdjson")
        let (status, _, errors) = Self.run(["g++", "-O2", "-std=c++17", source, "-o", executable.path, "-lsimdjson"])
        if status == 0 {
            simdjsonExecutable = executable
        } else {
            simdjsonProblem = "could not build \(source) (apt-get install g++ libsimdjson-dev): "
                + (errors.split(separator: "\n").first.map(String.init) ?? "g++ exit \(status)")
        }
    }

    /// ajv 6 (Debian node-ajv) + JSON.parse.
    func ajv(seconds: Double) -> [Result] {
        let script = BenchValidate.fixture("../scripts/bench_ajv.js")
        let out = Self.runJSON(["node", script, schemaFile.path, payloadFile.path, String(seconds)])
        return [Self.result(out, label: { "ajv \($0) + JSON.parse (node)" }, fallback: "ajv + JSON.parse (node)",
                            install: "apt-get install nodejs node-ajv")]
    }

    /// jsonschema-rs + orjson, and the pure-Python jsonschema and fastjsonschema after json.loads.
    func python(seconds: Double) -> [Result] {
        let script = BenchValidate.fixture("../scripts/bench_jsonschema.py")
        let out = Self.runJSON(["python3", script, schemaFile.path, payloadFile.path, String(seconds)])
        let install = "scripts/install-deps.sh, or pip install jsonschema-rs orjson jsonschema fastjsonschema"
        return [
            Self.result(out?["jsonschema-rs"], label: { "jsonschema-rs \($0) (python)" }, fallback: "jsonschema-rs + orjson (python)", install: install),
            Self.result(out?["fastjsonschema"], label: { "fastjsonschema \($0) + json.loads (python)" }, fallback: "fastjsonschema (python)", install: install),
            Self.result(out?["jsonschema"], label: { "jsonschema \($0) + json.loads (python)" }, fallback: "jsonschema (python)", install: install),
        ]
    }

    /// simdjson's DOM parse alone: no validation, the floor.
    func simdjson(seconds: Double) -> Result {
        guard let simdjsonExecutable else {
            return Result(label: "simdjson (C++, parse only)", perSecond: nil, valid: false, problem: simdjsonProblem)
        }
        let out = Self.runJSON([simdjsonExecutable.path, payloadFile.path, String(seconds)])
        let implementation = out?["implementation"]?.value.stringValue.map { ", \($0)" } ?? ""
        return Self.result(out, label: { "simdjson \($0) (C++\(implementation), parse only — the floor)" },
                           fallback: "simdjson (C++, parse only)", install: "apt-get install g++ libsimdjson-dev")
    }

    private static func result(_ node: JSONNode?, label: (String) -> String, fallback: String, install: String) -> Result {
        guard let node else { return Result(label: fallback, perSecond: nil, valid: false, problem: "did not run (\(install))") }
        if let error = node["error"]?.value.stringValue {
            return Result(label: fallback, perSecond: nil, valid: false, problem: "\(error) (\(install))")
        }
        let version = node["version"]?.value.stringValue ?? "?"
        return Result(label: label(version), perSecond: node["per_sec"]?.value.numberValue?.doubleValue,
                      valid: node["valid"]?.value == .bool(true), problem: nil)
    }

    private static func runJSON(_ arguments: [String]) -> JSONNode? {
        let (status, out, _) = run(arguments)
        guard status == 0 else { return nil }
        return JSONReader.read(Array(out.utf8)).root
    }

    /// Runs a program found on PATH; returns its exit status, stdout and the start of stderr (127 when it cannot
    /// start). Stderr goes to a file, so a chatty peer cannot fill a pipe and stall.
    static func run(_ arguments: [String]) -> (Int32, String, String) {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("activity-push-bench-\(getpid())-stderr")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil),
              let errorHandle = try? FileHandle(forWritingTo: errorFile) else { return (127, "", "cannot create \(errorFile.path)") }
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errorHandle
        do { try process.run() } catch { return (127, "", "\(error)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorHandle.close()
        let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(errors.prefix(2000)))
    }
}
