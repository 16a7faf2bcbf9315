import ActivityPushCore
import Foundation

/// `activity-push build --attributes PATH --event … [flags]` prints `{"headers": {...}, "payload": {...}}`,
/// or the findings and exit 1 when the inputs cannot make a valid push.
let buildCommand = Command(
    name: "build",
    summary: "build a push with the one builder and print its headers and payload"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        print("usage: activity-push build [--attributes PATH]... [--bundle-id ID] [--format json|text] --event … [flags]\n"
              + "  --attributes PATH          the app's .swift file or folder (checks the values against its types)\n"
              + "  --bundle-id ID             app bundle id; apns-topic is ID.push-type.liveactivity (default com.example.app)\n"
              + BuildFlags.help)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: BuildFlags.booleanFlags)
    let schema = try Inputs.schema(a.values("--attributes"))
    let bundleID = a.value("--bundle-id")
    let format = a.value("--format") ?? "json"
    guard let flags = try BuildFlags.read(&a) else { throw UsageError("--event start|update|end is required") }
    try a.finish()
    if !a.positionals.isEmpty { throw UsageError("unexpected argument '\(a.positionals[0])'") }
    guard ["json", "text"].contains(format) else { throw UsageError("--format must be json or text") }
    if let bundleID, bundleID.isEmpty || bundleID.contains(where: { $0.isWhitespace || $0 == "/" }) {
        throw UsageError("--bundle-id must be the app's bundle identifier, e.g. com.example.app")
    }
    if bundleID == nil { printError("activity-push build: no --bundle-id; apns-topic uses com.example.app") }
    do {
        let request = try flags.push(bundleID: bundleID ?? "com.example.app", schema: schema).get().build(schema: schema)
        var headers: [(String, JSONValue)] = request.headers.map { ($0.name, .string($0.value)) }
        if case .broadcast = request.destination { headers.append((":path", .string("/4/broadcasts/apps/\(request.bundleID)"))) }
        let payload = JSONReader.read(request.body).root!.value
        print(JSONWriter.pretty(.obj([("headers", .obj(headers)), ("payload", payload)])))
        for w in request.warnings { printError("warning: \(w.path): \(w.message) [\(w.code)]" + (w.fix.map { "\n    fix: \($0)" } ?? "")) }
        return 0
    } catch let error as PushBuildError {
        let report = ValidationReport(findings: error.findings)
        if format == "text" {
            Inputs.writeStdout(ReportFormatter.text(report, files: .init(payload: "<built payload>")))
        } else {
            print(ReportFormatter.json(report))
        }
        return 1
    }
}
