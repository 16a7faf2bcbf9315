/// The builder refused: the inputs cannot make a push the device would accept.
///
/// Its kinds are the error findings' ``FindingCode``s (``codes``), each with the field (``Finding/path``) and the
/// fix (``Finding/fix``), so a caller branches on `codes.contains(.missingAttributesType)` rather than on text.
/// ``description`` is one line per error finding: `path: message [code]`.
public struct PushBuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every finding; at least one is an error.
    public var findings: [Finding]
    /// A refusal with its findings.
    public init(findings: [Finding]) { self.findings = findings }

    /// The findings that refuse the push (severity error), in the order the rules reported them.
    public var errors: [Finding] { findings.filter { $0.severity == .error } }
    /// The codes of ``errors``: what went wrong, one per refusing finding.
    public var codes: [FindingCode] { errors.map(\.code) }

    /// `path: message [code]` for each error finding, one per line.
    public var description: String {
        errors.map { "\($0.path): \($0.message) [\($0.code)]" }.joined(separator: "\n")
    }
}
