import ActivityPushCore
import Foundation

extension BenchValidate {
    /// The same payload validated by Python `jsonschema` and `fastjsonschema` against the JSON Schema this tool
    /// exports — what a Node, Go or Python backend would pick instead (scripts/bench_jsonschema.py).
    static func pythonValidators(schema: ActivitySchema, body: [UInt8], seconds: Double, oursPerSec: Double) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("activity-push-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let schemaFile = dir.appendingPathComponent("schema.json")
        let payloadFile = dir.appendingPathComponent("payload.json")
        try JSONWriter.pretty(JSONSchemaExporter.document(for: schema)).write(to: schemaFile, atomically: true, encoding: .utf8)
        try Data(body).write(to: payloadFile)
        let script = fixture("../scripts/bench_jsonschema.py")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script, schemaFile.path, payloadFile.path, String(seconds)]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard let result = JSONReader.read(Array(data)).root else {
            print("python validators: could not run \(script) (python3 with `pip install jsonschema fastjsonschema`)")
            return
        }
        for name in ["jsonschema", "fastjsonschema"] {
            guard let r = result[name] else { continue }
            if let err = r["error"]?.value.stringValue {
                print("python \(name): not run: \(err) (pip install jsonschema fastjsonschema)")
                continue
            }
            let rate = r["per_sec"]?.value.numberValue?.doubleValue ?? 0
            let valid = r["valid"].map { $0.value == .bool(true) } ?? false
            let target = name == "jsonschema" ? "target ≥ 20×" : "target > 1×"
            print(String(format: "python %@ (json.loads + validate, exported JSON Schema): %10.0f payloads/s  %7.2f µs/payload  ours is %.1f× faster (%@)%@",
                         name, rate, 1e6 / max(rate, 1), oursPerSec / max(rate, 1), target, valid ? "" : "  [payload judged invalid!]"))
        }
    }
}
