/// One Live Activity event found in a device log: what `liveactivitiesd` said, what kind of event that is,
/// and the likely causes (finding codes, then delivery causes). With a send journal, ``pairing`` names the
/// push that caused it and what the validator finds in that payload.
public struct LiveActivityLogEvent: Sendable {
    /// The timestamp exactly as printed in the capture.
    public var time: String
    public var process: String
    public var kind: LogEventKind
    /// The bundle id when the line itself names it; nil otherwise (neighbouring lines are not used).
    public var bundle: String?
    /// Payload finding codes, then delivery causes (`findings.md`); empty for informational kinds.
    public var likelyCauses: [String]
    public var message: String
    /// 1-based line (text formats, ndjson) or 0-based array index (json style).
    public var line: Int?
    public var index: Int?
    /// The bundle from the nearest earlier `apsd` "Received message for enabled topic '…'" line with the topic
    /// revealed (used by `--bundle-id` and journal pairing; not reported as `bundle`).
    public var contextBundle: String?
    /// The device-token prefix when an earlier `apsd` line reveals it.
    public var contextToken: String?
    /// Set by ``RejectionPairing``.
    public var pairing: RejectionPairing.Result?

    public var isRejection: Bool { !(LogLineCatalog.pattern(of: kind)?.isInformational ?? true) }

    public init(time: String, process: String, kind: LogEventKind, bundle: String?, likelyCauses: [String],
                message: String, line: Int?, index: Int?) {
        self.time = time
        self.process = process
        self.kind = kind
        self.bundle = bundle
        self.likelyCauses = likelyCauses
        self.message = message
        self.line = line
        self.index = index
    }

    /// The JSON object `logs --format json` prints (key order as in `logs/*.expected.json`).
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("time", .string(time)), ("process", .string(process)), ("kind", .string(kind.rawValue)),
            ("bundle", bundle.map { .string($0) } ?? .null),
            ("likely_causes", JSONValue.arr(likelyCauses.map { .string($0) })),
            ("message", .string(message)),
        ]
        if let index { pairs.append(("index", JSONValue.int(index))) } else if let line { pairs.append(("line", JSONValue.int(line))) }
        if let p = pairing { pairs.append(("cause", p.json)) }
        return JSONValue.obj(pairs)
    }
}

/// Turns device-log entries into Live Activity events: keeps `liveactivitiesd` lines that match the
/// ``LogLineCatalog``, remembers the topic / token revealed by the latest `apsd` line, and applies the
/// `--since` / `--bundle-id` filters.
public struct LiveActivityLogAnalyzer {
    public var since: LogTimestamp?
    public var bundleID: String?
    private var lastTopicBundle: String?
    private var lastToken: String?

    public init(since: LogTimestamp? = nil, bundleID: String? = nil) {
        self.since = since
        self.bundleID = bundleID
    }

    /// The event for one entry, or nil when the entry is not a Live Activity event (or is filtered out).
    public mutating func event(for entry: DeviceLogEntry) -> LiveActivityLogEvent? {
        if entry.process == "apsd" {
            noteApsd(entry.message)
            return nil
        }
        guard entry.process == "liveactivitiesd", let pattern = LogLineCatalog.pattern(for: entry.message) else {
            return nil
        }
        if let since, let t = LogTimestamp.parse(entry.time), !t.isAtOrAfter(since) { return nil }
        var e = LiveActivityLogEvent(time: entry.time, process: entry.process, kind: pattern.kind,
                                     bundle: LogLineCatalog.bundle(in: entry.message, kind: pattern.kind),
                                     likelyCauses: pattern.likelyCauses, message: entry.message,
                                     line: entry.line, index: entry.index)
        e.contextBundle = e.bundle ?? lastTopicBundle
        e.contextToken = lastToken
        if let want = bundleID, let have = e.contextBundle, have != want { return nil }
        return e
    }

    private mutating func noteApsd(_ message: String) {
        guard message.contains("Received message for enabled topic") else { return }
        lastTopicBundle = nil
        lastToken = nil
        if let r = message.range(of: "enabled topic '") {
            let rest = message[r.upperBound...]
            if let end = rest.firstIndex(of: "'") {
                let topic = String(rest[..<end])
                if !topic.hasPrefix("<") {
                    lastTopicBundle = topic.replacingOccurrences(of: ".push-type.liveactivity", with: "")
                }
            }
        }
        if let r = message.range(of: "for device token: ") {
            let tok = message[r.upperBound...].prefix(while: { $0.isHexDigit })
            if tok.count >= 8 { lastToken = String(tok).lowercased() }
        }
    }
}

import Foundation
