import ActivityPushCore
import Foundation

/// `activity-push build --attributes PATH --event … [flags]` prints `{"headers": {...}, "payload": {...}}`,
/// or the findings and exit 1 when the inputs cannot make a valid push.
let buildCommand = Command(
    name: "build",
    summary: "build a push with the one builder and print its headers and payload",
    synopsis: ["--event start|update|end [options]"],
    groups: [OptionGroup(CommonOptions.attributes, CommonOptions.bundleID(), buildFormat), BuildFlags.group],
    notes: "without --bundle-id, apns-topic uses com.example.app\nexit: 0 built, 1 the inputs cannot make a valid push (findings), 2 usage error"
) { arguments in
    let schema = try CommonOptions.schema(arguments)
    let format = try arguments.defaultedValue(buildFormat)
    guard let flags = try BuildFlags.read(arguments) else { throw UsageError(.missingOption, option: "--event", "--event start|update|end is required") }
    try arguments.expectNoPositionals()
    let bundleID = try CommonOptions.bundleIDOrPlaceholder(arguments, command: "build")
    do {
        let request = try flags.push(bundleID: bundleID, schema: schema).get().build(schema: schema)
        var headers: [(String, JSONValue)] = request.headers.map { ($0.name, .string($0.value)) }
        if case .broadcast = request.destination { headers.append((":path", .string("/4/broadcasts/apps/\(request.bundleID)"))) }
        let payload = JSONReader.read(request.body).root!.value
        print(JSONWriter.pretty(.obj([("headers", .obj(headers)), ("payload", payload)])))
        for warning in request.warnings {
            printError("warning: \(warning.path): \(warning.message) [\(warning.code)]" + (warning.fix.map { "\n    fix: \($0)" } ?? ""))
        }
        return 0
    } catch let error as PushBuildError {
        let report = ValidationReport(findings: error.findings)
        if format == .text {
            Inputs.writeStdout(ReportFormatter.text(report, files: .init(payload: "<built payload>")))
        } else {
            print(ReportFormatter.json(report))
        }
        return 1
    }
}

/// `build --format`: json prints the push (or the findings as JSON), text prints findings for people.
private let buildFormat = Option<OutputFormat>.format([.json, .text], default: .json)
