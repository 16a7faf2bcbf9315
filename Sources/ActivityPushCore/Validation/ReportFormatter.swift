/// Renders a ``ValidationReport`` for people (compiler-style text), programs (the `check --format json`
/// contract of findings.md) and GitHub code scanning (SARIF 2.1.0).
public enum ReportFormatter {
    /// Where findings point in the files checked: the payload file, and the headers file for `headers.*` paths.
    public struct Files: Sendable {
        /// The payload file's name as shown in messages (`-` or `<built payload>` when not a file).
        public var payload: String
        /// The headers file's name, when one was checked.
        public var headers: String?
        /// Positions of header names inside the headers file (lowercase name → position), for header findings.
        public var headerPositions: [String: SourcePosition]

        /// Files for a report; without a headers file, header findings point at the payload file.
        public init(payload: String, headers: String? = nil, headerPositions: [String: SourcePosition] = [:]) {
            self.payload = payload
            self.headers = headers
            self.headerPositions = headerPositions
        }

        /// File, line and column a finding points at.
        public func location(of f: Finding) -> (file: String, line: Int?, column: Int?) {
            if f.path.hasPrefix("headers.") {
                let name = String(f.path.dropFirst("headers.".count))
                let pos = headerPositions[name]
                return (headers ?? payload, pos?.line, pos?.column)
            }
            return (payload, f.line, f.column)
        }
    }

    /// `payload.json:7:5: error: … [unknown-attribute-key]` then an indented `fix:` line; a summary last.
    public static func text(_ report: ValidationReport, files: Files) -> String {
        var out = ""
        for finding in report.findings {
            let loc = files.location(of: finding)
            var prefix = loc.file
            if let l = loc.line { prefix += ":\(l)" + (loc.column.map { ":\($0)" } ?? "") }
            out += "\(prefix): \(finding.severity): \(finding.path): \(finding.message) [\(finding.code)]\n"
            if let fix = finding.fix { out += "    fix: \(fix)\n" }
        }
        let errorCount = report.findings.filter { $0.severity == .error }.count
        let warningCount = report.findings.filter { $0.severity == .warning }.count
        out += report.accept
            ? "\(files.payload): accepted" + (warningCount > 0 ? " with \(warningCount) warning\(warningCount == 1 ? "" : "s")" : "") + "\n"
            : "\(files.payload): rejected: \(errorCount) error\(errorCount == 1 ? "" : "s")" + (warningCount > 0 ? ", \(warningCount) warning\(warningCount == 1 ? "" : "s")" : "") + "\n"
        return out
    }

    /// `{"accept": Bool, "findings": [{"code", "severity", "path", "line", "column", "message", "fix"}]}`.
    public static func json(_ report: ValidationReport, pretty: Bool = true) -> String {
        let value = jsonValue(report)
        return pretty ? JSONWriter.pretty(value) : JSONWriter.compact(value)
    }

    /// The `check --format json` object: `{"accept": Bool, "findings": [FINDING]}`.
    public static func jsonValue(_ report: ValidationReport) -> JSONValue {
        .obj([
            ("accept", .bool(report.accept)),
            ("findings", .arr(report.findings.map(findingJSON))),
        ])
    }

    /// One FINDING: `code`, `severity`, `path`, `line`, `column`, `message`, `fix` (null when absent).
    public static func findingJSON(_ f: Finding) -> JSONValue {
        .obj([
            ("code", .string(f.code.rawValue)),
            ("severity", .string(f.severity.rawValue)),
            ("path", .string(f.path)),
            ("line", f.line.map { .int($0) } ?? .null),
            ("column", f.column.map { .int($0) } ?? .null),
            ("message", .string(f.message)),
            ("fix", f.fix.map { .string($0) } ?? .null),
        ])
    }

    /// SARIF 2.1.0 with one run; rules from ``FindingCatalog``.
    public static func sarif(_ reports: [(ValidationReport, Files)], toolVersion: String = ActivityPushVersion.current) -> String {
        var results: [JSONValue] = []
        var usedCodes: [FindingCode] = []
        for (report, files) in reports {
            for finding in report.findings {
                if !usedCodes.contains(finding.code) { usedCodes.append(finding.code) }
                let loc = files.location(of: finding)
                var region: [(String, JSONValue)] = []
                if let l = loc.line { region.append(("startLine", .int(l))) }
                if let c = loc.column { region.append(("startColumn", .int(c))) }
                var physical: [(String, JSONValue)] = [("artifactLocation", .obj([("uri", .string(loc.file))]))]
                if !region.isEmpty { physical.append(("region", .obj(region))) }
                results.append(.obj([
                    ("ruleId", .string(finding.code.rawValue)),
                    ("level", .string(sarifLevel(finding.severity))),
                    ("message", .obj([("text", .string(finding.message + (finding.fix.map { " Fix: " + $0 } ?? "")))])),
                    ("locations", .arr([.obj([
                        ("physicalLocation", .obj(physical)),
                        ("logicalLocations", .arr([.obj([("fullyQualifiedName", .string(finding.path))])])),
                    ])])),
                ]))
            }
        }
        let rules: [JSONValue] = usedCodes.map { code in
            let entry = FindingCatalog.entry(code)
            return .obj([
                ("id", .string(code.rawValue)),
                ("name", .string(code.rawValue)),
                ("shortDescription", .obj([("text", .string(entry?.summary ?? code.rawValue))])),
                ("defaultConfiguration", .obj([("level", .string(sarifLevel(entry?.severity ?? .error)))])),
            ])
        }
        let doc: JSONValue = .obj([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .arr([.obj([
                ("tool", .obj([("driver", .obj([
                    ("name", .string("activity-push")),
                    ("version", .string(toolVersion)),
                    ("informationUri", .string("https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications")),
                    ("rules", .arr(rules)),
                ]))])),
                ("results", .arr(results)),
            ])])),
        ])
        return JSONWriter.pretty(doc)
    }

    /// The SARIF `level` of a severity: `error`, `warning`, or `note` for info.
    package static func sarifLevel(_ s: Severity) -> String {
        s == .error ? "error" : s == .warning ? "warning" : "note"
    }
}

/// The toolkit's version, as SARIF output reports it (`tool.driver.version`).
public enum ActivityPushVersion {
    /// Semantic version of this release.
    public static let current = "0.1.0"
}
