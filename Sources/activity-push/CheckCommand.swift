import ActivityPushCore
import Foundation

/// `activity-push check PAYLOAD.json [--attributes PATH]... [--headers HEADERS.json] [--now UNIX_SECONDS]
/// [--strict] [--format text|json|sarif]` — the contract in findings.md. Exit 0 accepted, 1 rejected, 2 could not judge.
let checkCommand = Command(
    name: "check",
    summary: "judge a payload (and headers) the way APNs and the device would"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push check PAYLOAD.json [--attributes PATH]... [--schema SCHEMA.json] [--headers HEADERS.json]
                                   [--now UNIX_SECONDS] [--strict] [--format text|json|sarif]
          --attributes  the app's .swift file or folder declaring its ActivityAttributes types (repeatable)
          --schema      the app's types as saved by `activity-push schema --format json` (instead of --attributes)
          --headers     JSON object of APNs request headers (apns-push-type, apns-topic, apns-priority, …)
          --now         clock for staleness rules, UNIX seconds (default: now)
          --strict      unknown content-state keys are errors
          --format      text (default), json, sarif
        PAYLOAD.json may also be a Firebase Cloud Messaging v1 message ({"message": {"apns": {"live_activity_token",
        "headers", "payload"}}} or the message itself): apns.payload is judged as the APNs body and apns.headers as
        its headers (--headers values win), with paths and positions into the message.
        exit: 0 accepted (warnings allowed), 1 rejected, 2 could not judge
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--strict"])
    let attributes = a.values("--attributes")
    let schemaPath = a.value("--schema")
    let headersPath = a.value("--headers")
    let now = try a.double("--now") ?? Date().timeIntervalSince1970
    guard now >= 0, now < 100_000_000_000 else { throw UsageError("--now is UNIX seconds (e.g. 1767225600), got \(now)") }
    let strict = a.flag("--strict")
    let format = a.value("--format") ?? "text"
    try a.finish()
    guard ["text", "json", "sarif"].contains(format) else { throw UsageError("--format must be text, json or sarif") }
    guard let payloadPath = a.positionals.first, a.positionals.count == 1 else {
        throw UsageError("give exactly one PAYLOAD.json (or - for standard input)")
    }
    let body = try Inputs.bytes(payloadPath)
    if schemaPath != nil, !attributes.isEmpty { throw UsageError("give --attributes or --schema, not both") }
    let schema = try schemaPath.map(Inputs.schemaDescription) ?? Inputs.schema(attributes)
    var headers: APNsHeaders? = nil
    var positions: [String: SourcePosition] = [:]
    if let headersPath { (headers, positions) = try { let r = try Inputs.headers(headersPath); return (Optional(r.0), r.1) }() }
    if schema == nil {
        Inputs.noteMissingSchema()
    }
    let report = Validator(schema: schema, strict: strict).check(body: body, headers: headers, nowUnixSeconds: now)
    let files = ReportFormatter.Files(payload: payloadPath, headers: headersPath, headerPositions: positions)
    switch format {
    case "json": print(ReportFormatter.json(report))
    case "sarif": print(ReportFormatter.sarif([(report, files)]))
    default: Inputs.writeStdout(ReportFormatter.text(report, files: files))
    }
    return report.accept ? 0 : 1
}
