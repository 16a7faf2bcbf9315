/// Faults the mock injects into APNs endpoints (`/3/device`, `/4/broadcasts`, `/1/apps`; never `/_mock`).
///
/// Spec syntax (`--faults SPEC` and the body of `POST /_mock/faults`): comma-separated rules
/// `ACTION[:WHEN]`, checked in order for each request.
/// - ACTION: `429` (TooManyRequests, `Retry-After: 1`), `429=SECONDS` (Retry-After value), `500`
///   (InternalServerError), `503` (ServiceUnavailable), `delay=MS` (answer normally after MS milliseconds;
///   `ms`/`s` suffix allowed), `goaway` (GOAWAY with `{"reason":"Shutdown"}`, request not processed), `drop`
///   (close the TCP connection without an answer).
/// - WHEN: `next=N` (the next N requests, the default being `next=1`), `share=P` (each request with probability
///   P: `0.25` or `25%`), or `all`.
/// - `none` or an empty spec clears every fault.
/// Delays add up and combine with at most one other fault; the first other rule that fires decides the answer.
/// Example: `429=30:next=2,503:share=10%,delay=200ms:all`.
public struct MockFaultPlan: Sendable, Equatable, CustomStringConvertible {
    public enum Action: Sendable, Equatable {
        case tooManyRequests(retryAfterSeconds: Int)
        case internalServerError
        case serviceUnavailable
        case delay(milliseconds: Int)
        case goaway
        case drop
    }

    public enum Selection: Sendable, Equatable {
        /// The next `n` requests (counts down as they are hit).
        case next(Int)
        /// Each request with this probability (0…1).
        case share(Double)
    }

    public struct Rule: Sendable, Equatable {
        public var action: Action
        public var selection: Selection
        public init(action: Action, selection: Selection) {
            self.action = action
            self.selection = selection
        }
    }

    public var rules: [Rule]

    public init(rules: [Rule] = []) { self.rules = rules }

    /// Parses the spec syntax above. Throws `MockAPNsError.faults` naming the bad rule and the accepted forms.
    public init(spec: String) throws {
        var rules: [Rule] = []
        let trimmed = spec.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed == "none" {
            self.rules = []
            return
        }
        for raw in trimmed.split(separator: ",") {
            let text = raw.trimmingCharacters(in: .whitespaces)
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard let actionText = parts.first, !actionText.isEmpty else { throw Self.bad(text, "empty rule") }
            let action = try Self.parseAction(actionText, rule: text)
            let selection = try parts.count > 1 ? Self.parseSelection(parts[1], rule: text) : .next(1)
            rules.append(Rule(action: action, selection: selection))
        }
        self.rules = rules
    }

    public var description: String {
        if rules.isEmpty { return "none" }
        return rules.map { r in
            let a: String
            switch r.action {
            case .tooManyRequests(let s): a = "429=\(s)"
            case .internalServerError: a = "500"
            case .serviceUnavailable: a = "503"
            case .delay(let ms): a = "delay=\(ms)ms"
            case .goaway: a = "goaway"
            case .drop: a = "drop"
            }
            switch r.selection {
            case .next(let n): return "\(a):next=\(n)"
            case .share(let p): return p >= 1 ? "\(a):all" : "\(a):share=\(p)"
            }
        }.joined(separator: ",")
    }

    /// Picks the faults for one request and counts down `next=N` rules. `random` returns a value in 0..<1.
    mutating func draw(random: () -> Double) -> (action: Action?, delayMilliseconds: Int) {
        var delay = 0
        var chosen: Action?
        var i = 0
        while i < rules.count {
            let r = rules[i]
            if case .delay = r.action {} else if chosen != nil { i += 1; continue }
            let fires: Bool
            switch r.selection {
            case .next(let n): fires = n > 0
            case .share(let p): fires = random() < p
            }
            if fires {
                if case .delay(let ms) = r.action { delay += ms } else { chosen = r.action }
                if case .next(let n) = r.selection {
                    if n <= 1 { rules.remove(at: i); continue }
                    rules[i].selection = .next(n - 1)
                }
            }
            i += 1
        }
        return (chosen, delay)
    }

    private static func parseAction(_ s: String, rule: String) throws -> Action {
        let lower = s.lowercased()
        switch lower {
        case "429": return .tooManyRequests(retryAfterSeconds: 1)
        case "500": return .internalServerError
        case "503": return .serviceUnavailable
        case "goaway": return .goaway
        case "drop": return .drop
        default: break
        }
        if lower.hasPrefix("429=") {
            guard let n = Int(lower.dropFirst(4)), n >= 0 else { throw bad(rule, "429=SECONDS needs a whole number of seconds") }
            return .tooManyRequests(retryAfterSeconds: n)
        }
        if lower.hasPrefix("delay=") {
            var v = String(lower.dropFirst(6))
            var scale = 1.0
            if v.hasSuffix("ms") { v.removeLast(2) } else if v.hasSuffix("s") { v.removeLast(); scale = 1000 }
            guard let d = Double(v), d >= 0, d * scale <= 600_000 else {
                throw bad(rule, "delay=MS needs milliseconds between 0 and 600000 (e.g. delay=250ms or delay=2s)")
            }
            return .delay(milliseconds: Int(d * scale))
        }
        throw bad(rule, "unknown action '\(s)'")
    }

    private static func parseSelection(_ s: String, rule: String) throws -> Selection {
        let lower = s.lowercased().trimmingCharacters(in: .whitespaces)
        if lower == "all" { return .share(1) }
        if lower.hasPrefix("next=") {
            guard let n = Int(lower.dropFirst(5)), n > 0 else { throw bad(rule, "next=N needs a positive whole number") }
            return .next(n)
        }
        if lower.hasPrefix("share=") {
            var v = String(lower.dropFirst(6))
            var scale = 1.0
            if v.hasSuffix("%") { v.removeLast(); scale = 0.01 }
            guard let p = Double(v), p * scale >= 0, p * scale <= 1 else {
                throw bad(rule, "share=P needs a probability such as 0.25 or 25%")
            }
            return .share(p * scale)
        }
        throw bad(rule, "unknown selector '\(s)'")
    }

    private static func bad(_ rule: String, _ why: String) -> MockAPNsError {
        .faults("bad fault rule '\(rule)': \(why). Rules are ACTION[:WHEN], ACTION one of 429, 429=SECONDS, 500, 503, "
                + "delay=MS, goaway, drop; WHEN one of next=N, share=P (0.25 or 25%), all; e.g. '429=30:next=2,503:share=10%'")
    }
}

import Foundation
