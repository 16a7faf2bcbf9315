import Foundation

/// Events and times: `missing-event`, `invalid-event`, `missing-timestamp`, `invalid-timestamp`,
/// `timestamp-in-milliseconds`, `timestamp-not-integer`, `timestamp-stale`, `timestamp-in-future`, `dismissal-date-ignored`,
/// `stale-date-in-past`, `relevance-score-invalid`.
/// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications" (event, timestamp,
/// stale-date, dismissal-date are UNIX seconds); device parser lines in spec §7.1.
extension PushCheck {
    /// Seconds between 1970-01-01 and 2001-01-01 (Foundation's reference date).
    static let referenceDateOffset: Double = 978_307_200
    /// A UNIX-seconds time above this is taken for milliseconds (10^11 s is year 5138).
    static let millisecondsThreshold: Double = 100_000_000_000
    /// How far `timestamp` may be from now before it is suspicious (10 minutes).
    static let timestampTolerance: Double = 600

    /// `missing-event`, `invalid-event`. Sets `event` for the rules after it.
    mutating func checkEvent() {
        guard aps != nil || root?.member(LiveActivityKeys.event) != nil else { return }
        guard let ev = locate(LiveActivityKeys.event) else {
            let renamed = aps?.value.members?.first(where: { LiveActivityKeys.intendedKey(for: $0.key) == LiveActivityKeys.event })
            report(.missingEvent, at: "aps.event", aps?.position,
                   "aps has no \"event\"; the device drops the push (\"Incoming message does not contain an event type\")",
                   fix: renamed.map { "rename \"\($0.key)\" to \"event\"" } ?? "add \"event\": \"start\", \"update\" or \"end\"")
            return
        }
        guard let s = ev.node.value.stringValue else {
            report(.invalidEvent, at: ev.path, ev.node.position,
                   "event is \(ev.node.value.kindWithArticle); the device accepts only the strings \"start\", \"update\", \"end\" (\"Incoming message contains an illegal event type\")",
                   fix: "send \"event\": \"update\" (or \"start\" / \"end\")")
            return
        }
        let candidate = LiveActivityEvent(rawValue: s)
        if LiveActivityEvent.known.contains(candidate) {
            event = candidate
            return
        }
        let lower = LiveActivityEvent(rawValue: s.lowercased().trimmingCharacters(in: .whitespaces))
        let suggestion = LiveActivityEvent.known.contains(lower) ? lower.rawValue
            : ["started": "start", "begin": "start", "updated": "update", "ended": "end", "stop": "end", "finish": "end"][s.lowercased()]
        report(.invalidEvent, at: ev.path, ev.node.position,
               "event \"\(s)\" is not start, update or end (lowercase); the device logs \"Incoming message contains an illegal event type\" and drops it",
               fix: suggestion.map { "write \"\($0)\"" } ?? "use \"start\", \"update\" or \"end\"")
    }

    /// `missing-timestamp`, `invalid-timestamp`, `timestamp-in-milliseconds`, `timestamp-stale`,
    /// `timestamp-in-future`, `stale-date-in-past`, `dismissal-date-ignored`.
    mutating func checkTimes() {
        if aps != nil || root?.member(LiveActivityKeys.timestamp) != nil {
            if let ts = locate(LiveActivityKeys.timestamp) {
                if let seconds = unixSeconds(ts, name: "timestamp"), let now {
                    let delta = seconds - now
                    if delta < -Self.timestampTolerance {
                        let hint = looksLikeReferenceDate(seconds, now: now)
                            ? " It looks like seconds since 2001-01-01; aps times are UNIX seconds (add 978307200)." : ""
                        report(.timestampStale, at: ts.path, ts.node.position,
                               "timestamp is \(describeInterval(-delta)) before now; the device ignores an update older than the last one it applied.\(hint)",
                               fix: "set timestamp to the current UNIX time when sending (now: \(JSONNumber.wholeText(now)))")
                    } else if delta > Self.timestampTolerance {
                        report(.timestampInFuture, at: ts.path, ts.node.position,
                               "timestamp is \(describeInterval(delta)) after now; later updates with the real time will look older and be ignored (more than ~8 h ahead is dropped)",
                               fix: "set timestamp to the current UNIX time when sending (now: \(JSONNumber.wholeText(now)))")
                    }
                }
            } else {
                let renamed = aps?.value.members?.first(where: { LiveActivityKeys.intendedKey(for: $0.key) == LiveActivityKeys.timestamp })
                report(.missingTimestamp, at: "aps.timestamp", aps?.position,
                       "aps has no \"timestamp\"; the device drops the push (\"Incoming message does not contain a timestamp\")",
                       fix: renamed.map { "rename \"\($0.key)\" to \"timestamp\"" } ?? "add \"timestamp\": <current UNIX time in seconds>")
            }
        }
        if let stale = locate(LiveActivityKeys.staleDate), let seconds = unixSeconds(stale, name: "stale-date"), let now, seconds < now {
            let severity: Severity = event == .start ? .error : .warning
            let hint = looksLikeReferenceDate(seconds, now: now)
                ? " It looks like seconds since 2001-01-01; stale-date is UNIX seconds (add 978307200 → \(JSONNumber.wholeText(seconds + Self.referenceDateOffset)))." : ""
            report(.staleDateInPast, severity, at: stale.path, stale.node.position,
                   (event == .start ? "stale-date is in the past, so the activity is created already stale and never presented."
                                    : "stale-date is in the past; the activity shows as stale at once.") + hint,
                   fix: "use a future UNIX time, e.g. now + 3600 = \(JSONNumber.wholeText(now + 3600))")
        }
        if let dismissal = locate(LiveActivityKeys.dismissalDate) {
            if let seconds = unixSeconds(dismissal, name: "dismissal-date"), let now, seconds < now,
               looksLikeReferenceDate(seconds, now: now) {
                // A past dismissal-date removes the activity at once — on purpose, or because seconds since 2001 were sent.
                report(.dismissalDateReferenceEpoch, at: dismissal.path, dismissal.node.position,
                       "dismissal-date \(JSONNumber.wholeText(seconds)) is in the past as UNIX seconds, so the ended activity is removed at once; it looks like seconds since 2001-01-01",
                       fix: "dismissal-date is UNIX seconds: send \(JSONNumber.wholeText(seconds + Self.referenceDateOffset)) (add 978307200), or a past value only if you mean to remove it now")
            }
            if let event, event != .end {
                report(.dismissalDateIgnored, at: dismissal.path, dismissal.keyPosition,
                       "dismissal-date has effect only with event \"end\"; on \(event) the device ignores it",
                       fix: "remove dismissal-date here; send it with the end event")
            }
        }
    }

    /// Reads an `aps` time as UNIX seconds, reporting `invalid-timestamp` / `timestamp-in-milliseconds`.
    mutating func unixSeconds(_ loc: Located, name: String) -> Double? {
        guard let n = loc.node.value.numberValue else {
            let asString = loc.node.value.stringValue.flatMap { Double($0) ?? ShapeJudge.parseISO8601($0)?.timeIntervalSince1970 }
                .flatMap { $0.isFinite && $0 >= 0 && $0 < Self.millisecondsThreshold ? $0 : nil }
            report(.invalidTimestamp, at: loc.path, loc.node.position,
                   "\(name) is \(loc.node.value.kindWithArticle); it must be a JSON number of UNIX seconds" + (name == "timestamp" ? " (the device logs \"Incoming message does not contain a timestamp\")" : ""),
                   fix: asString.map { "write the number without quotes: \(Int64($0))" } ?? "send \(name) as a number of seconds since 1970-01-01 UTC")
            return nil
        }
        let v = n.doubleValue
        if Self.isWholeUnixSeconds(v) { return v }
        if v >= Self.millisecondsThreshold && v < Self.millisecondsThreshold * 1000 {
            let seconds = (v / 1000).rounded(.down)
            report(.timestampInMilliseconds, at: loc.path, loc.node.position,
                   "\(name) \(n.lexeme) looks like milliseconds; APNs Live Activity times are UNIX seconds, so this is tens of thousands of years ahead",
                   fix: "divide by 1000: \(JSONNumber.wholeText(seconds))")
            return nil
        }
        if !v.isFinite || v < 0 || v >= Self.millisecondsThreshold {
            report(.invalidTimestamp, at: loc.path, loc.node.position,
                   "\(name) \(n.lexeme) is not a time: APNs Live Activity times are UNIX seconds since 1970 (about \(JSONNumber.wholeText(now ?? 1_767_225_600)) now)",
                   fix: "send the current UNIX time in seconds")
            return nil
        }
        if v != v.rounded(.down) {
            report(.timestampNotInteger, at: loc.path, loc.node.position,
                   "\(name) \(n.lexeme) has a fractional part (e.g. Date.now()/1000); Apple's Live Activity times are whole UNIX seconds",
                   fix: "floor it: \(JSONNumber.wholeText(v.rounded(.down)))")
        }
        return v
    }

    /// A time none of `invalid-timestamp`, `timestamp-in-milliseconds`, `timestamp-not-integer` names: whole UNIX
    /// seconds from 0 up to the milliseconds threshold.
    static func isWholeUnixSeconds(_ v: Double) -> Bool {
        v.isFinite && v >= 0 && v < millisecondsThreshold && v == v.rounded(.down)
    }

    func looksLikeReferenceDate(_ seconds: Double, now: Double) -> Bool {
        abs(seconds + Self.referenceDateOffset - now) < 86_400 * 366
    }

    func describeInterval(_ s: Double) -> String {
        if s < 3600 { return "\(Int(s / 60)) min" }
        if s < 86_400 * 2 { return String(format: "%.1f h", s / 3600) }
        if s < 86_400 * 730 { return "\(Int(s / 86_400)) days" }
        return String(format: "%.1f years", s / (86_400 * 365.25))
    }

    /// `relevance-score-invalid`: must be a finite number (any value; not limited to 0–1 for Live Activities).
    mutating func checkRelevanceScore() {
        guard let rs = locate(LiveActivityKeys.relevanceScore) else { return }
        if let n = rs.node.value.numberValue, n.doubleValue.isFinite { return }
        report(.relevanceScoreInvalid, at: rs.path, rs.node.position,
               "relevance-score is \(rs.node.value.kindName == "number" ? "not finite" : rs.node.value.kindWithArticle); it must be a finite number",
               fix: rs.node.value.stringValue.flatMap(Double.init).map { "write the number without quotes: \($0)" } ?? "send a number such as 50 or 100")
    }
}
