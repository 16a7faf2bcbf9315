import ActivityPushCore
import Foundation

/// `activity-push check PAYLOAD.json [--attributes PATH]... [--headers HEADERS.json] [--now UNIX_SECONDS]
/// [--strict] [--format text|json|sarif]` — the contract in findings.md. Exit 0 accepted, 1 rejected, 2 could not judge.
enum CheckOptions {
    static let schema = Option<String>(
        "--schema", valueName: "SCHEMA.json",
        help: "the app's types as saved by `activity-push schema --format json` (instead of --attributes)")
    static let headers = Option<String>(
        "--headers", valueName: "HEADERS.json",
        help: "JSON object of APNs request headers (apns-push-type, apns-topic, apns-priority, …)")
    static let now = Option<Double>.decimal("--now", valueName: "UNIX_SECONDS",
                                            help: "clock for staleness rules, UNIX seconds", defaultText: "now")
    static let strict = Flag("--strict", help: "unknown content-state keys are errors")
    static let format = Option<OutputFormat>.format([.text, .json, .sarif], default: .text)
}

let checkCommand = Command(
    name: "check",
    summary: "judge a payload (and headers) the way APNs and the device would",
    synopsis: ["PAYLOAD.json [options]"],
    groups: [OptionGroup(CommonOptions.attributes, CheckOptions.schema, CheckOptions.headers, CheckOptions.now,
                         CheckOptions.strict, CheckOptions.format)],
    notes: """
    PAYLOAD.json may also be a Firebase Cloud Messaging v1 message ({"message": {"apns": {"live_activity_token",
    "headers", "payload"}}} or the message itself): apns.payload is judged as the APNs body and apns.headers as
    its headers (--headers values win), with paths and positions into the message.
    exit: 0 accepted (warnings allowed), 1 rejected, 2 could not judge
    """
) { arguments in
    let attributes = try arguments.values(CommonOptions.attributes)
    let schemaPath = try arguments.value(CheckOptions.schema)
    let headersPath = try arguments.value(CheckOptions.headers)
    let now = try arguments.value(CheckOptions.now) ?? Date().timeIntervalSince1970
    guard now >= 0, now < 100_000_000_000 else { throw UsageError(.badValue, option: "--now", "--now is UNIX seconds (e.g. 1767225600), got \(now)") }
    let strict = arguments.isSet(CheckOptions.strict)
    let format = try arguments.defaultedValue(CheckOptions.format)
    guard let payloadPath = arguments.positionals.first, arguments.positionals.count == 1 else {
        throw UsageError(.badArguments, "give exactly one PAYLOAD.json (or - for standard input)")
    }
    let body = try Inputs.bytes(payloadPath)
    if schemaPath != nil, !attributes.isEmpty { throw UsageError(.conflictingOptions, "give --attributes or --schema, not both") }
    let schema = try schemaPath.map(Inputs.schemaDescription) ?? Inputs.schema(attributes)
    var headers: APNsHeaders? = nil
    var positions: [String: SourcePosition] = [:]
    if let headersPath {
        let (readHeaders, readPositions) = try Inputs.headers(headersPath)
        headers = readHeaders
        positions = readPositions
    }
    if schema == nil {
        Inputs.noteMissingSchema()
    }
    let report = Validator(schema: schema, strict: strict).check(body: body, headers: headers, nowUnixSeconds: now)
    let files = ReportFormatter.Files(payload: payloadPath, headers: headersPath, headerPositions: positions)
    switch format {
    case .json: print(ReportFormatter.json(report))
    case .sarif: print(ReportFormatter.sarif([(report, files)]))
    default: Inputs.writeStdout(ReportFormatter.text(report, files: files))
    }
    return report.accept ? 0 : 1
}
