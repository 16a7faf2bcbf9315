/// Judges a Live Activity push the way APNs and the device's `liveactivitiesd` would, naming each distinct
/// cause where the device only logs "Incoming message does not contain usable attributes".
///
/// Each rule lives in one place, named by its finding code (grep the code to find the rule and its tests):
/// body and placement (`PlacementRules.swift`), events and times (`EventRules.swift`), push-to-start
/// (`StartRules.swift`), the app's schema (`SchemaRules.swift`), APNs headers (`HeaderRules.swift`).
/// All causes are reported in one run, including the contents of keys found at the wrong level.
/// Rules and their Apple sources: `shared/spec/live-activity-push.md`; codes: `shared/spec/findings.md`.
public struct Validator: Sendable {
    public var schema: ActivitySchema? {
        didSet { expectedStrings = ExpectedStrings.table(for: schema) }
    }
    /// `--strict`: unknown `content-state` keys become errors.
    public var strict: Bool
    /// The keys and values this validator expects, built once so reading a push need not build them again.
    private(set) var expectedStrings: JSONKeyTable

    public init(schema: ActivitySchema? = nil, strict: Bool = false) {
        self.schema = schema
        self.strict = strict
        expectedStrings = ExpectedStrings.table(for: schema)
    }

    /// For tests: read without the known-strings table (the results must not change).
    mutating func forgetExpectedStrings() { expectedStrings = JSONKeyTable([]) }

    /// Checks one body and, when given, its APNs request headers.
    /// - Parameters:
    ///   - body: the exact bytes sent to APNs (UTF-8 JSON).
    ///   - headers: request headers (names case-insensitive); nil skips header rules. A `:path` starting
    ///     `/4/broadcasts/` or an `apns-channel-id` header makes it a broadcast request.
    ///   - nowUnixSeconds: the clock for staleness rules, UNIX seconds; nil skips them.
    public func check(body: [UInt8], headers: APNsHeaders? = nil, nowUnixSeconds: Double? = nil) -> ValidationReport {
        var check = PushCheck(validator: self, headers: headers, now: nowUnixSeconds)
        check.run(body: body)
        return ValidationReport(findings: check.findings)
    }
}

/// One run of the validator over one push: the parsed body, where each Live Activity key was found, and the
/// findings so far. Rules are extensions of this type, one file per group.
struct PushCheck {
    let validator: Validator
    let headers: APNsHeaders?
    let now: Double?
    var findings: [Finding] = []

    /// The body's root object and `aps` (when present and an object).
    var root: JSONNode?
    var aps: JSONNode?
    /// The event as written, when it is one of start / update / end.
    var event: LiveActivityEvent?

    init(validator: Validator, headers: APNsHeaders?, now: Double?) {
        self.validator = validator
        self.headers = headers
        self.now = now
    }

    var isBroadcast: Bool {
        guard let headers else { return false }
        return headers["apns-channel-id"] != nil || (headers[":path"]?.hasPrefix("/4/broadcasts/") ?? false)
    }

    mutating func report(_ code: FindingCode, _ severity: Severity? = nil, at path: String, _ position: SourcePosition?,
                         _ message: String, fix: String? = nil) {
        let sev = severity ?? FindingCatalog.entry(code)?.severity ?? .error
        findings.append(Finding(code: code, severity: sev, path: path, position: position, message: message, fix: fix))
    }

    /// A Live Activity key looked up inside `aps`, or — when absent there — at the root, where it was misplaced.
    struct Located {
        let node: JSONNode
        let keyPosition: SourcePosition
        let key: String
        let misplaced: Bool
        /// Dotted path as written (`aps.attributes` or `attributes`); built only when a rule needs it.
        var path: String { misplaced ? key : "aps." + key }
    }

    func locate(_ key: String) -> Located? {
        if let m = aps?.member(key) {
            return Located(node: m.value, keyPosition: m.keyPosition, key: key, misplaced: false)
        }
        if let m = root?.member(key) {
            return Located(node: m.value, keyPosition: m.keyPosition, key: key, misplaced: true)
        }
        return nil
    }

    /// Bodies beyond this are judged too large without being parsed: APNs takes at most 5 KB.
    static let parseLimit = 1 << 20

    mutating func run(body: [UInt8]) {
        checkBodySize(body)
        if body.count > Self.parseLimit {
            if let headers { checkHeaders(headers) }
            return
        }
        let document = JSONReader.read(body, knownStrings: validator.expectedStrings)
        reportJSONProblems(document.problems)
        defer {
            if let headers { checkHeaders(headers) }
            findings.sort(by: Self.order)
        }
        guard let rootNode = document.root else { return }
        guard rootNode.value.members != nil else {
            report(.missingAPS, at: "$", rootNode.position,
                   "the body is JSON \(rootNode.value.kindWithArticle), not an object with an \"aps\" dictionary; the device ignores it",
                   fix: "send {\"aps\": {\"timestamp\": …, \"event\": …, \"content-state\": {…}}}")
            return
        }
        root = rootNode
        checkAPSPresence()
        checkRootKeys()
        checkAPSKeys()
        checkEvent()
        checkTimes()
        checkContentState()
        checkRelevanceScore()
        checkAlert()
        checkStartKeys()
        checkSchema()
        checkPartSizes(bodySize: body.count)
        if isBroadcast, event == .start, let ev = locate("event") {
            report(.startViaBroadcast, at: ev.path, ev.node.position,
                   "a broadcast push cannot start a Live Activity; APNs delivers it but no activity starts",
                   fix: "send the start to each device's push-to-start token (POST /3/device/<token>); use the channel for update and end")
        }
    }

    static func order(_ a: Finding, _ b: Finding) -> Bool {
        switch (a.line, b.line) {
        case let (la?, lb?):
            if la != lb { return la < lb }
            return (a.column ?? 0) < (b.column ?? 0)
        case (.some, nil): return true
        case (nil, .some): return false
        default: return false
        }
    }
}
