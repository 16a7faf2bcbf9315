/// How bad a finding is. `error`: the device or APNs rejects or mis-reads the push. `warning`: it is delivered
/// but something will not work as meant. `info`: something the validator could not judge.
public struct Severity: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `error`: APNs or the device rejects or mis-reads the push.
    public static let error = Severity(rawValue: "error")
    /// `warning`: delivered, but something will not work as meant.
    public static let warning = Severity(rawValue: "warning")
    /// `info`: something the validator could not judge.
    public static let info = Severity(rawValue: "info")
    public var description: String { rawValue }

    private var rank: Int { self == .error ? 2 : self == .warning ? 1 : 0 }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// A stable kebab-case name for one kind of mistake (see `findings.md`). Codes are API: never renamed.
/// An open set: codes from newer versions round-trip unchanged.
public struct FindingCode: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
}

/// One thing the validator found, with where it is and how to fix it.
public struct Finding: Sendable, Hashable, Codable {
    /// What kind of mistake (stable; see ``FindingCatalog``).
    public var code: FindingCode
    /// How bad it is.
    public var severity: Severity
    /// Dotted JSON path as written in the payload (`aps.attributes.alert_title`; `$` for the whole body;
    /// `headers.apns-topic` for a header).
    public var path: String
    /// 1-based line and column in the payload file; nil for headers and for the body as a whole when unknown.
    public var line: Int?
    /// 1-based column (Unicode scalars) with ``line``.
    public var column: Int?
    /// What is wrong and what the device or APNs will do with it.
    public var message: String
    /// How to fix it, concretely (the right key, spelling or number), or nil.
    public var fix: String?

    /// A finding; `position` gives ``line`` and ``column`` (nil for headers or an unknown place).
    public init(code: FindingCode, severity: Severity, path: String, position: SourcePosition?,
                message: String, fix: String? = nil) {
        self.code = code
        self.severity = severity
        self.path = path
        self.line = position?.line
        self.column = position?.column
        self.message = message
        self.fix = fix
    }
}

/// The validator's verdict on one push.
public struct ValidationReport: Sendable, Hashable {
    /// Every finding, in the order the rules report them.
    public var findings: [Finding]
    /// True when no finding is an error: APNs and the device would accept the push as meant.
    public var accept: Bool { !findings.contains(where: { $0.severity == .error }) }
    /// The findings of severity error.
    public var errors: [Finding] { findings.filter { $0.severity == .error } }

    /// A report of `findings`.
    public init(findings: [Finding]) { self.findings = findings }
}
