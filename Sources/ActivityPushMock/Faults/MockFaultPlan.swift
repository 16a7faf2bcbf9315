/// Faults the mock injects into APNs endpoints (`/3/device`, `/4/broadcasts`, `/1/apps`; never `/_mock`).
///
/// Spec syntax (`--faults SPEC` and the body of `POST /_mock/faults`): comma-separated rules
/// `ACTION[:WHEN]`, checked in order for each request.
/// - ACTION: `429` (TooManyRequests, `Retry-After: 1`), `429=SECONDS` (Retry-After value), `500`
///   (InternalServerError), `503` (ServiceUnavailable), `delay=MS` (answer normally after MS milliseconds;
///   `ms`/`s` suffix allowed), `goaway` (graceful: GOAWAY with `{"reason":"Shutdown"}` naming the highest
///   stream processed so far; this request and every later stream are not processed, every stream at or below
///   it is still answered, then the connection closes), `goaway-abrupt` (the same GOAWAY, then the connection
///   closes at once: answers still owed are never sent), `drop-before` (close the TCP connection at once;
///   the request is not processed — `drop` is an alias of it), `drop-after` (process the request — delivered
///   and journaled with its status — then close the connection without sending the answer), `refused`
///   (RST_STREAM with REFUSED_STREAM; the request is not processed), `streams=N` (answer normally, then send
///   SETTINGS_MAX_CONCURRENT_STREAMS = N on this connection, as APNs did after a rejection in rdar 27870881).
/// - WHEN: `next=N` (the next N requests, the default being `next=1`), `share=P` (each request with probability
///   P: `0.25` or `25%`), or `all`.
/// - `none` or an empty spec clears every fault.
/// Delays add up, `streams=N` combines too (the last one that fires wins); they combine with at most one other
/// fault, and the first other rule that fires decides the answer.
/// Example: `429=30:next=2,503:share=10%,delay=200ms:all`.
public struct MockFaultPlan: Sendable, Equatable, CustomStringConvertible {
    public enum Action: Sendable, Equatable {
        case tooManyRequests(retryAfterSeconds: Int)
        case internalServerError
        case serviceUnavailable
        case delay(milliseconds: Int)
        /// Graceful GOAWAY: streams up to the last processed one are answered, then the connection closes.
        case goaway
        /// GOAWAY, then close at once.
        case goawayAbrupt
        /// Close the connection before processing the request (spelled `drop-before`, or `drop`).
        case drop
        /// Process the request, then close the connection without answering (`drop-after`).
        case dropAfterProcessing
        /// RST_STREAM REFUSED_STREAM, not processed (`refused`).
        case refused
        /// Answer normally, then SETTINGS_MAX_CONCURRENT_STREAMS = N on the connection (`streams=N`).
        case maxConcurrentStreams(Int)

        /// Modifiers combine with the rule that decides the answer.
        var isModifier: Bool {
            switch self {
            case .delay, .maxConcurrentStreams: return true
            default: return false
            }
        }

        /// The spec spelling (`drop` is written `drop-before`).
        public var specText: String {
            switch self {
            case .tooManyRequests(let seconds): return "429=\(seconds)"
            case .internalServerError: return "500"
            case .serviceUnavailable: return "503"
            case .delay(let milliseconds): return "delay=\(milliseconds)ms"
            case .goaway: return "goaway"
            case .goawayAbrupt: return "goaway-abrupt"
            case .drop: return "drop-before"
            case .dropAfterProcessing: return "drop-after"
            case .refused: return "refused"
            case .maxConcurrentStreams(let count): return "streams=\(count)"
            }
        }
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
        return rules.map { rule in
            let action = rule.action.specText
            switch rule.selection {
            case .next(let count): return "\(action):next=\(count)"
            case .share(let probability): return probability >= 1 ? "\(action):all" : "\(action):share=\(probability)"
            }
        }.joined(separator: ",")
    }

    /// What one request gets: the deciding fault (nil: answer normally) and the modifiers.
    struct Draw: Equatable {
        var action: Action?
        var delayMilliseconds = 0
        var maxConcurrentStreams: Int?
    }

    /// Picks the faults for one request and counts down `next=N` rules. `random` returns a value in 0..<1.
    mutating func draw(random: () -> Double) -> Draw {
        var result = Draw()
        var index = 0
        while index < rules.count {
            let rule = rules[index]
            if !rule.action.isModifier, result.action != nil { index += 1; continue }
            let fires: Bool
            switch rule.selection {
            case .next(let count): fires = count > 0
            case .share(let probability): fires = random() < probability
            }
            if fires {
                switch rule.action {
                case .delay(let milliseconds): result.delayMilliseconds += milliseconds
                case .maxConcurrentStreams(let count): result.maxConcurrentStreams = count
                default: result.action = rule.action
                }
                if case .next(let count) = rule.selection {
                    if count <= 1 { rules.remove(at: index); continue }
                    rules[index].selection = .next(count - 1)
                }
            }
            index += 1
        }
        return result
    }

    private static func parseAction(_ s: String, rule: String) throws -> Action {
        let lower = s.lowercased()
        switch lower {
        case "429": return .tooManyRequests(retryAfterSeconds: 1)
        case "500": return .internalServerError
        case "503": return .serviceUnavailable
        case "goaway": return .goaway
        case "goaway-abrupt": return .goawayAbrupt
        case "drop", "drop-before": return .drop
        case "drop-after": return .dropAfterProcessing
        case "refused": return .refused
        default: break
        }
        if lower.hasPrefix("streams=") {
            guard let count = Int(lower.dropFirst(8)), count >= 0, count <= Int(Int32.max) else {
                throw bad(rule, "streams=N needs a whole number of streams (0 or more), e.g. streams=1")
            }
            return .maxConcurrentStreams(count)
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
                + "delay=MS, goaway, goaway-abrupt, drop-before (or drop), drop-after, refused, streams=N; WHEN one of next=N, share=P (0.25 or 25%), all; e.g. '429=30:next=2,503:share=10%'")
    }
}

import Foundation
