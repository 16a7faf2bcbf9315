/// Judges a Live Activity push the way APNs and the device's `liveactivitiesd` would, naming each distinct
/// cause where the device only logs "Incoming message does not contain usable attributes".
///
/// Each rule lives in one place, named by its finding code (grep the code to find the rule and its tests):
/// body and placement (`PlacementRules.swift`), events and times (`EventRules.swift`), push-to-start
/// (`StartRules.swift`), the app's schema (`SchemaRules.swift`), APNs headers (`HeaderRules.swift`).
/// All causes are reported in one run, including the contents of keys found at the wrong level.
/// Rules and their Apple sources: `shared/spec/live-activity-push.md`; codes: `shared/spec/findings.md`.
public struct Validator: Sendable {
    /// The app's types; nil judges only APNs and payload-shape rules.
    public var schema: ActivitySchema? {
        didSet {
            expectedStrings = ExpectedStrings.table(for: schema)
            quietPlan = QuietScanPlan(schema: schema)
        }
    }
    /// `--strict`: unknown `content-state` keys become errors.
    public var strict: Bool
    /// The keys and values this validator expects, built once so reading a push need not build them again.
    private(set) var expectedStrings: JSONKeyTable
    /// The schema compiled for ``QuietPushScan`` (nil without a schema): built once, not per check.
    private(set) var quietPlan: QuietScanPlan?
    /// For tests and `bench validate`: false judges every push with the full check (the results must not change).
    package var usesQuietScan = true

    /// A validator, with the app's schema when known.
    public init(schema: ActivitySchema? = nil, strict: Bool = false) {
        self.schema = schema
        self.strict = strict
        expectedStrings = ExpectedStrings.table(for: schema)
        quietPlan = QuietScanPlan(schema: schema)
    }

    /// For tests: read without the known-strings table (the results must not change).
    mutating func forgetExpectedStrings() { expectedStrings = JSONKeyTable([]) }

    /// Checks one body and, when given, its APNs request headers.
    /// - Parameters:
    ///   - body: the exact bytes sent to APNs (UTF-8 JSON) — or a Firebase Cloud Messaging v1 message
    ///     (`{"message": {"apns": {"live_activity_token", "headers", "payload"}}}` or the message itself): then
    ///     `apns.payload` is judged as the body and `apns.headers` as headers, with paths and positions into
    ///     the message (``FCMEnvelope``).
    ///   - headers: request headers (names case-insensitive); nil skips header rules. A `:path` starting
    ///     `/4/broadcasts/` or an `apns-channel-id` header makes it a broadcast request.
    ///   - nowUnixSeconds: the clock for staleness rules, UNIX seconds; nil skips them.
    public func check(body: [UInt8], headers: APNsHeaders? = nil, nowUnixSeconds: Double? = nil) -> ValidationReport {
        var check = PushCheck(validator: self, headers: headers, now: nowUnixSeconds)
        // A body the quiet scan proves draws no body finding skips the reader and the body rules; any other body
        // (and every broadcast) gets the full check, which alone builds findings.
        if usesQuietScan, let quietPlan, !check.isBroadcast,
           let event = QuietPushScan.quietEvent(of: body, plan: quietPlan, now: nowUnixSeconds) {
            check.event = event
            if let headers {
                check.checkHeaders(headers)
                check.findings.sort(by: PushCheck.order)
            }
            return ValidationReport(findings: check.findings)
        }
        check.run(body: body)
        return ValidationReport(findings: check.findings)
    }
}

/// One run of the validator over one push: the parsed body, where each Live Activity key was found, and the
/// findings so far. Rules are extensions of this type, one file per group.
struct PushCheck {
    let validator: Validator
    /// The request headers judged: those given, and for an FCM message those in `apns.headers` (given ones win).
    var headers: APNsHeaders?
    let now: Double?
    var findings: [Finding] = []

    /// The body's root object and `aps` (when present and an object).
    var root: JSONNode?
    var aps: JSONNode?
    /// The event as written, when it is one of start / update / end.
    var event: LiveActivityEvent?
    /// Set when the body is an FCM v1 message: the APNs payload inside it is judged, paths point into it.
    var envelope: FCMEnvelope?

    init(validator: Validator, headers: APNsHeaders?, now: Double?) {
        self.validator = validator
        self.headers = headers
        self.now = now
    }

    var isBroadcast: Bool {
        guard let headers else { return false }
        return headers.channelID != nil || (headers[":path"]?.hasPrefix("/4/broadcasts/") ?? false)
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
        if body.count > Self.parseLimit {
            checkBodySize(body.count)
            if let headers { checkHeaders(headers) }
            return
        }
        let document = JSONReader.read(body, knownStrings: validator.expectedStrings)
        reportJSONProblems(document.problems)
        let bodyFindings = findings.count  // findings before this point carry paths into the whole document
        var headerPositions: [String: SourcePosition] = [:]
        defer {
            if let headers { checkHeaders(headers) }
            if let envelope {
                moveIntoEnvelope(envelope, from: bodyFindings, headerPositions: headerPositions)
                checkEnvelope(envelope)
            }
            findings.sort(by: Self.order)
        }
        guard var rootNode = document.root else { return checkBodySize(body.count) }
        var bodySize = body.count
        if let found = FCMEnvelope(root: rootNode) {
            envelope = found
            if let (fromEnvelope, positions) = found.requestHeaders {
                var merged = fromEnvelope
                headerPositions = positions
                for field in headers ?? APNsHeaders() {
                    merged[field.name] = field.value
                    // A --headers value wins: findings on it belong to the headers file (`headers.<name>`).
                    headerPositions[field.name.lowercased()] = nil
                }
                headers = merged
            }
            guard let payload = found.payload?.value else {
                report(.missingAPS, at: "$", found.apns.position,
                       "this FCM message has no \(found.apnsPath).payload, so FCM sends APNs no Live Activity body",
                       fix: "put the APNs body in \(found.apnsPath).payload: {\"aps\": {\"timestamp\": …, \"event\": …, \"content-state\": {…}}}")
                return
            }
            rootNode = payload
            bodySize = JSONWriter.compact(payload.value).utf8.count  // what FCM sends to APNs
        } else if let broken = FCMEnvelope.brokenMessage(root: rootNode) {
            checkBodySize(bodySize)
            return report(.fcmEnvelopeInvalid, at: broken.path, broken.position, broken.message, fix: broken.fix)
        }
        checkBodySize(bodySize)
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
        checkPartSizes(bodySize: bodySize)
        if isBroadcast, event == .start, let ev = locate("event") {
            report(.startViaBroadcast, at: ev.path, ev.node.position,
                   "a broadcast push cannot start a Live Activity; APNs delivers it but no activity starts",
                   fix: "send the start to each device's push-to-start token (POST /3/device/<token>); use the channel for update and end")
        }
    }

    /// Rewrites the paths of the findings from `start` on into the FCM envelope; header findings get the
    /// position of the header's name in `apns.headers` when it came from there.
    mutating func moveIntoEnvelope(_ envelope: FCMEnvelope, from start: Int, headerPositions: [String: SourcePosition]) {
        for i in findings.indices where i >= start {
            let path = findings[i].path
            if path.hasPrefix("headers.") {
                // A header given with --headers (not in apns.headers) keeps its `headers.` path and the headers file.
                guard let position = headerPositions[String(path.dropFirst("headers.".count))] else { continue }
                findings[i].line = position.line
                findings[i].column = position.column
            } else if path == "$", let payload = envelope.payload {
                findings[i].line = payload.value.position.line
                findings[i].column = payload.value.position.column
            }
            findings[i].path = envelope.envelopePath(path)
        }
    }

    /// `fcm-envelope-invalid` (headers not an object, a header value not a string: FCM answers 400) and
    /// `fcm-missing-live-activity-token` (FCM then sends an ordinary notification). Source: Firebase REST
    /// `ApnsConfig` (`headers`: map of string to string; `live_activity_token`).
    mutating func checkEnvelope(_ envelope: FCMEnvelope) {
        if let malformed = envelope.malformedHeaders {
            report(.fcmEnvelopeInvalid, at: envelope.apnsPath + ".headers", malformed.value.position,
                   "\(envelope.apnsPath).headers is \(malformed.value.value.kindWithArticle); FCM wants an object of header names to string values and refuses the message (400 INVALID_ARGUMENT)",
                   fix: "send \"headers\": {\"apns-priority\": \"10\"}")
        }
        for member in envelope.headers ?? [] {
            if case .string = member.value.value { continue }
            let text: String
            switch member.value.value {
            case .number(let n): text = n.lexeme
            case .bool(let b): text = b ? "true" : "false"
            default: text = "…"
            }
            report(.fcmEnvelopeInvalid, at: envelope.apnsPath + ".headers." + member.key, member.value.position,
                   "\(envelope.apnsPath).headers.\(member.key) is \(member.value.value.kindWithArticle); FCM header values are strings and FCM answers 400 INVALID_ARGUMENT",
                   fix: "send \"\(member.key)\": \"\(text)\"")
        }
        if !envelope.hasLiveActivityToken {
            report(.fcmMissingLiveActivityToken, at: envelope.apnsPath + ".live_activity_token", envelope.apns.position,
                   "no \(envelope.apnsPath).live_activity_token: FCM sends this as an ordinary notification to the FCM token, not to the Live Activity, and does not set apns-push-type or apns-topic",
                   fix: "add \"live_activity_token\": the activity's push token (or push-to-start token) as hex, next to headers and payload")
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
