import ActivityPushCore
import ActivityPushDiagnosis
import Foundation

/// `activity-push audit DIR [--attributes PATH]... [--format text|json|sarif] [--max-sites N [--allow-skipped]]`
/// Exit: 0 no problem, 1 problems found, more start-building sites than `--max-sites`, or files skipped with
/// `--max-sites` (unless `--allow-skipped`), 2 usage / unreadable.
enum AuditOptions {
    static let format = Option<OutputFormat>.format([.text, .json, .sarif], default: .text)
    static let maxSites = Option<Int>.integer(
        "--max-sites", help: "exit 1 when more than N sites build a start payload (CI guard for \"one builder\"),\n"
            + "or when any file was skipped (a site there would not be counted)")
    static let allowSkipped = Flag("--allow-skipped", help: "with --max-sites: skipped files do not fail the guard")
    static let attributes = Option<String>(
        "--attributes", valueName: "PATH",
        help: "the app's ActivityAttributes Swift source (file or folder): judge attributes-type\n"
            + "names and attribute keys against it", repeatable: true)
}

let auditCommand = Command(
    name: "audit",
    summary: "find every place in a server codebase that builds a Live Activity payload, and its mistakes",
    synopsis: ["DIR [options]"],
    groups: [OptionGroup(AuditOptions.attributes, AuditOptions.format, AuditOptions.maxSites, AuditOptions.allowSkipped)],
    notes: """
    DIR: server codebase (TS/JS, Python, Go, Java/Kotlin, Swift, Ruby, PHP, JSON/templates); node_modules,
    vendor, build, tests, docs and tool folders (.git, .build, .next…) are pruned. Files that cannot be judged
    (over 2 MB and mentioning aps, unreadable, binary) are listed as skipped (text: a skipped: section; json:
    "skipped")
    exit: 0 no problem, 1 problems, too many start sites or skipped files (--max-sites), 2 usage error or
          unreadable DIR
    """
) { arguments in
    let format = try arguments.defaultedValue(AuditOptions.format)
    let maxSites = try arguments.value(AuditOptions.maxSites)
    let allowSkipped = arguments.isSet(AuditOptions.allowSkipped)
    let attributePaths = try arguments.values(AuditOptions.attributes)
    guard arguments.positionals.count == 1, let directory = arguments.positionals.first else {
        throw UsageError(.badArguments, "give one directory to audit (got \(arguments.positionals.count) arguments)")
    }
    var schema: ActivitySchema?
    if !attributePaths.isEmpty {
        schema = try Inputs.schema(attributePaths)
    }
    let report: PayloadSiteReport
    do { report = try PayloadSiteAudit(schema: schema).run(root: directory) } catch let error as DeviceLogError {
        throw UsageError(refused: error, file: error.input)
    }
    switch format {
    case .json: print(JSONWriter.pretty(report.json))
    case .sarif:
        print(report.sarif)
        for skipped in report.skipped { printError("activity-push audit: skipped \(skipped.file): \(skipped.reason)") }
    default: print(report.text, terminator: "")
    }
    var status: Int32 = report.sites.contains(where: { !$0.problems.isEmpty }) ? 1 : 0
    if let maxSites, report.startSites.count > maxSites {
        printError("activity-push audit: \(report.startSites.count) places build a start payload (max \(maxSites)): "
                   + report.startSites.map { "\($0.file):\($0.line)" }.joined(separator: ", "))
        status = 1
    }
    if maxSites != nil, !report.skipped.isEmpty, !allowSkipped {
        printError("activity-push audit: \(report.skipped.count) file(s) were skipped, so --max-sites cannot vouch for them: "
                   + report.skipped.prefix(5).map(\.file).joined(separator: ", ") + (report.skipped.count > 5 ? ", …" : "")
                   + ". Fix: make them readable / audit their source, or pass --allow-skipped")
        status = 1
    }
    return status
}
