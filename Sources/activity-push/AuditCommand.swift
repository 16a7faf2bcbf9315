import ActivityPushCore
import ActivityPushDiagnosis
import Foundation

/// `activity-push audit DIR [--attributes PATH]... [--format text|json|sarif] [--max-sites N [--allow-skipped]]`
/// Exit: 0 no problem, 1 problems found, more start-building sites than `--max-sites`, or files skipped with
/// `--max-sites` (unless `--allow-skipped`), 2 usage / unreadable.
let auditCommand = Command(
    name: "audit",
    summary: "find every place in a server codebase that builds a Live Activity payload, and its mistakes"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push audit DIR [--attributes PATH]... [--format text|json|sarif] [--max-sites N [--allow-skipped]]
          DIR              server codebase (TS/JS, Python, Go, Java/Kotlin, Swift, Ruby, PHP, JSON/templates);
                           node_modules, vendor, build, tests, docs and tool folders (.git, .build, .next…)
                           are pruned. Files that cannot be judged (over 2 MB and mentioning aps, unreadable,
                           binary) are listed as skipped (text: a skipped: section; json: "skipped")
          --attributes P   the app's ActivityAttributes Swift source (file or folder): judge attributes-type
                           names and attribute keys against it
          --max-sites N    exit 1 when more than N sites build a start payload (CI guard for "one builder"),
                           or when any file was skipped (a site there would not be counted)
          --allow-skipped  with --max-sites: skipped files do not fail the guard
        exit: 0 no problem, 1 problems, too many start sites or skipped files (--max-sites), 2 usage error or
              unreadable DIR
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--allow-skipped"])
    let format = a.value("--format") ?? "text"
    guard ["text", "json", "sarif"].contains(format) else {
        throw UsageError("--format must be text, json or sarif, got '\(format)'")
    }
    let maxSites = try a.int("--max-sites")
    let allowSkipped = a.flag("--allow-skipped")
    let attributePaths = a.values("--attributes")
    try a.finish()
    guard a.positionals.count == 1, let dir = a.positionals.first else {
        throw UsageError("give one directory to audit (got \(a.positionals.count) arguments)")
    }
    var schema: ActivitySchema?
    if !attributePaths.isEmpty {
        schema = try Inputs.schema(attributePaths)
    }
    let report: PayloadSiteReport
    do { report = try PayloadSiteAudit(schema: schema).run(root: dir) } catch let e as DeviceLogError {
        throw UsageError(e.description)
    }
    switch format {
    case "json": print(JSONWriter.pretty(report.json))
    case "sarif":
        print(report.sarif)
        for s in report.skipped { printError("activity-push audit: skipped \(s.file): \(s.reason)") }
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
