/// Judges a Live Activity push the way APNs and the device's `liveactivitiesd` would.
/// PLACEHOLDER — rules being implemented. API shape is fixed.
public struct Validator: Sendable {
    public var schema: ActivitySchema?
    /// `--strict`: unknown `content-state` keys become errors.
    public var strict: Bool

    public init(schema: ActivitySchema? = nil, strict: Bool = false) {
        self.schema = schema
        self.strict = strict
    }

    /// Checks one body (and its headers when given). `nowUnixSeconds` is the clock for staleness rules
    /// (nil: staleness rules that need a clock are skipped).
    public func check(body: [UInt8], headers: APNsHeaders? = nil, nowUnixSeconds: Double? = nil) -> ValidationReport {
        ValidationReport(findings: [])
    }
}
