import ActivityPushCore
/// How a payload site builds its body (open set).
public struct PayloadSiteKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Object / dict / map / struct literal (typed struct construction such as Go `startEnvelope{…}` included).
    public static let literal = PayloadSiteKind(rawValue: "literal")
    /// Setter / builder API (node-apn `note.event = …`, apns2 `SetEvent`, pushy, APNSwift notification types).
    public static let builder = PayloadSiteKind(rawValue: "builder")
    /// A string template producing the JSON body.
    public static let template = PayloadSiteKind(rawValue: "template")
    /// A JSON file sent as the body.
    public static let jsonFile = PayloadSiteKind(rawValue: "json-file")
}

/// One place in a codebase that builds a Live Activity payload, and the mistakes visible there.
public struct PayloadSite: Sendable {
    /// Path relative to the audited directory.
    public var file: String
    /// First line of the expression that creates the payload (1-based); `endLine` closes it.
    public var line: Int
    /// Last line of that expression (1-based).
    public var endLine: Int
    /// How the site builds the body.
    public var kind: PayloadSiteKind
    /// `start`, `update`, `end` or `unknown`.
    public var event: String
    /// Finding codes (`findings.md`) visible at this site, each with a message.
    public var problems: [(code: FindingCode, message: String)]
    /// The `attributes-type` value when the code spells it out (literal, constant, template text).
    public var attributesType: String?

    /// The site as the audit's JSON output prints it (`file`, `line`, `endLine`, `kind`, `event`, `problems`, `attributesType`).
    public var json: JSONValue {
        .obj([("file", .string(file)), ("line", .int(line)), ("end_line", .int(endLine)),
              ("kind", .string(kind.rawValue)), ("event", .string(event)),
              ("problems", .arr(problems.map { .string($0.code.rawValue) })),
              ("messages", .arr(problems.map { .string($0.message) }))])
    }
}

/// The result of auditing one directory.
public struct PayloadSiteReport: Sendable {
    /// Every payload site found, in file and line order.
    public var sites: [PayloadSite]
    /// Files read (after pruning dependency / build / test directories).
    public var filesScanned: Int
    /// Source files and folders that could not be judged (too large with payload words in them, unreadable,
    /// binary), sorted by path.
    public var skipped: [SkippedSourceFile] = []
    /// Sites that build a `start` payload (what `--max-sites` counts).
    public var startSites: [PayloadSite] { sites.filter { $0.event == "start" } }

    /// `{"sites": [{"file", "line", "end_line", "kind", "event", "problems", "messages"}], "files_scanned",
    /// "start_sites", "skipped": [{"file", "reason"}]}`
    public var json: JSONValue {
        .obj([("sites", .arr(sites.map(\.json))), ("files_scanned", .int(filesScanned)),
              ("start_sites", .int(startSites.count)), ("skipped", .arr(skipped.map(\.json)))])
    }

    /// Compiler-style lines, one per site, problems indented under it, and a summary.
    public var text: String {
        var out = ""
        for site in sites {
            out += "\(site.file):\(site.line): \(site.event) payload built here (\(site.kind))"
            out += site.problems.isEmpty ? "\n" : ", \(site.problems.count) problem(s)\n"
            for problem in site.problems { out += "    \(problem.code): \(problem.message)\n" }
        }
        if !skipped.isEmpty {
            out += "skipped: \(skipped.count) file(s) not scanned (a payload built there is not reported):\n"
            for skippedFile in skipped { out += "    \(skippedFile.file): \(skippedFile.reason)\n" }
        }
        let withProblems = sites.filter { !$0.problems.isEmpty }.count
        out += "\(sites.count) payload site(s) (\(startSites.count) building start) in \(Set(sites.map(\.file)).count) file(s), \(withProblems) with problems; \(filesScanned) files read"
        out += skipped.isEmpty ? "\n" : ", \(skipped.count) skipped\n"
        return out
    }

    /// SARIF 2.1.0 (via the validator's formatter): every problem as a result at its site, plus one
    /// `payload-site` note per site so a CI view shows every place that builds a payload.
    public var sarif: String {
        let reports: [(ValidationReport, ReportFormatter.Files)] = sites.map { site in
            var findings = site.problems.map {
                Finding(code: $0.code, severity: .error, path: "$", position: SourcePosition(line: site.line, column: 1, offset: 0),
                        message: $0.message)
            }
            findings.append(Finding(code: "payload-site", severity: .info, path: "$",
                                    position: SourcePosition(line: site.line, column: 1, offset: 0),
                                    message: "Live Activity \(site.event) payload built here (\(site.kind)); lines \(site.line)-\(site.endLine)."))
            return (ValidationReport(findings: findings), ReportFormatter.Files(payload: site.file))
        }
        return ReportFormatter.sarif(reports)
    }
}
