import ActivityPushCore
import Foundation

/// From likely to actual: pairs a device rejection with the push sent just before it (send journal) and
/// re-checks that payload with the ``Validator``, so the answer names *the* cause instead of a list of suspects.
///
/// A journal entry is a candidate when it was sent at most `window` seconds before the device line (and at most
/// `skew` seconds after it, for clock drift), APNs did not refuse it (`status` absent or 200), and its bundle
/// and token prefix agree with what the log reveals (unknown values match anything). The latest candidate wins.
public struct RejectionPairing: Sendable {
    /// The send journal, oldest first.
    public var journal: [SendJournalEntry]
    /// Checks the paired payload (with the app's schema when given).
    public var validator: Validator
    /// Seconds before the device line a push may have been sent.
    public var window: Double
    /// Seconds a journal clock may run ahead of the device clock.
    public var skew: Double
    /// Offset used for device times printed without a zone (compact, idevicesyslog), seconds east of UTC.
    public var deviceUTCOffset: Int

    /// A pairing over `journal` (sorted by time here); `window` and `skew` in seconds, `deviceUTCOffset` in seconds east of UTC.
    public init(journal: [SendJournalEntry], validator: Validator, window: Double = 120, skew: Double = 2,
                deviceUTCOffset: Int = TimeZone.current.secondsFromGMT()) {
        self.journal = journal.sorted(by: { $0.time < $1.time })
        self.validator = validator
        self.window = window
        self.skew = skew
        self.deviceUTCOffset = deviceUTCOffset
    }

    /// The pairing of one rejection.
    public struct Result: Sendable {
        /// The journal entry of the push that most likely caused the event.
        public var entry: SendJournalEntry
        /// Findings in the paired payload whose code is one of the event's likely causes: *the* cause.
        public var causes: [Finding]
        /// Other error findings in that payload.
        public var otherErrors: [Finding]
        /// Delivery causes (not visible in a payload) left when the payload passes.
        public var deliveryCauses: [String]
        /// When the journal entry has no body to re-check.
        public var bodyMissing: Bool

        /// "rejected at 11:02:05: `unknown-attribute-key` aps.attributes.alert_title (sent by retry-queue, apns-id …)"
        public func summary(at time: String) -> String {
            var what: String
            if bodyMissing {
                what = "paired push has no body in the journal"
            } else if !causes.isEmpty {
                what = causes.map { "`\($0.code)` \($0.path)" }.joined(separator: ", ")
            } else if !otherErrors.isEmpty {
                what = "payload errors " + otherErrors.map { "`\($0.code)` \($0.path)" }.joined(separator: ", ")
                    + " (not the usual cause of this line)"
            } else if !deliveryCauses.isEmpty {
                what = "payload passes the validator; delivery cause: " + deliveryCauses.joined(separator: " or ")
            } else {
                what = "payload passes the validator (rules not covering this case, or a schema is needed: --attributes)"
            }
            var by: [String] = []
            if let sender = entry.source { by.append("sent by \(sender)") }
            if let id = entry.apnsID { by.append("apns-id \(id)") }
            if let token = entry.token { by.append("token \(token)") }
            return "rejected at \(time): \(what)" + (by.isEmpty ? "" : " (\(by.joined(separator: ", ")))")
        }

        var json: JSONValue {
            func f(_ x: Finding) -> JSONValue {
                JSONValue.obj([("code", .string(x.code.rawValue)), ("path", .string(x.path)),
                                ("message", .string(x.message))])
            }
            var pairs: [(String, JSONValue)] = [("sent_at", JSONValue.double(entry.time))]
            if let sender = entry.source { pairs.append(("source", .string(sender))) }
            if let id = entry.apnsID { pairs.append((APNsHeaderName.id.rawValue, .string(id))) }
            if let token = entry.token { pairs.append(("token", .string(token))) }
            pairs.append(("findings", JSONValue.arr(causes.map(f))))
            pairs.append(("other_errors", JSONValue.arr(otherErrors.map(f))))
            pairs.append(("delivery_causes", JSONValue.arr(deliveryCauses.map { .string($0) })))
            return JSONValue.obj(pairs)
        }
    }

    /// Pairs `event` (a rejection) with its push and re-checks it; nil when no journal entry fits.
    public func pair(_ event: LiveActivityLogEvent) -> Result? {
        guard event.isRejection, let ts = LogTimestamp.parse(event.time) else { return nil }
        // The push sent last at or before the device line; only when there is none, the first one sent within
        // `skew` after it (the two clocks may disagree by that much).
        var best: SendJournalEntry?
        var justAfter: SendJournalEntry?
        for entry in journal.reversed() {
            guard let deviceTime = ts.unixSeconds(assumingOffset: entry.utcOffset ?? deviceUTCOffset, assumingDateOf: entry.time)
            else { continue }
            if entry.time > deviceTime + skew { continue }
            if entry.time < deviceTime - window { break }
            if let status = entry.status, status != 200 { continue }
            if let want = event.contextBundle, let have = entry.bundleID, want != have { continue }
            if let want = event.contextToken, let have = entry.token, !Self.tokenPrefixesAgree(want, have) { continue }
            if entry.time > deviceTime {
                justAfter = entry  // walking backwards: the last one kept is the closest after the line
                continue
            }
            best = entry
            break
        }
        guard let entry = best ?? justAfter else { return nil }
        let pattern = LogLineCatalog.pattern(of: event.kind)
        guard let body = entry.body else {
            return Result(entry: entry, causes: [], otherErrors: [], deliveryCauses: pattern?.deliveryCauses ?? [],
                          bodyMissing: true)
        }
        var headers: APNsHeaders?
        if let sentHeaders = entry.headers { headers = APNsHeaders(sentHeaders.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) }) }
        let report = validator.check(body: Array(body.utf8), headers: headers, nowUnixSeconds: entry.time)
        let likely = Set(event.likelyCauses)
        let causes = report.findings.filter { likely.contains($0.code.rawValue) }
        let others = report.errors.filter { !likely.contains($0.code.rawValue) }
        return Result(entry: entry, causes: causes, otherErrors: others,
                      deliveryCauses: causes.isEmpty ? (pattern?.deliveryCauses ?? []) : [], bodyMissing: false)
    }

    /// Redacted tokens: compare the hex digits both sides show.
    static func tokenPrefixesAgree(_ a: String, _ b: String) -> Bool {
        let ownDigits = a.lowercased().prefix(while: { $0.isHexDigit })
        let otherDigits = b.lowercased().prefix(while: { $0.isHexDigit })
        let shared = min(ownDigits.count, otherDigits.count)
        guard shared >= 4 else { return true }
        return ownDigits.prefix(shared) == otherDigits.prefix(shared)
    }
}
