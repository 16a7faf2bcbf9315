/// One Live Activity event found in a device log: what `liveactivitiesd` said, what kind of event that is,
/// and the likely causes (finding codes, then delivery causes). With a send journal, ``pairing`` names the
/// push that caused it and what the validator finds in that payload.
public struct LiveActivityLogEvent: Sendable {
    /// The timestamp exactly as printed in the capture.
    public var time: String
    /// The emitting process (`liveactivitiesd`).
    public var process: String
    /// What the line means (``LogEventKind``).
    public var kind: LogEventKind
    /// The bundle id when the line itself names it; nil otherwise (neighbouring lines are not used).
    public var bundle: String?
    /// Payload finding codes, then delivery causes (`findings.md`); empty for informational kinds.
    public var likelyCauses: [String]
    /// The message as printed (prefixes removed, `<private>` kept).
    public var message: String
    /// 1-based line (text formats, ndjson) or 0-based array index (json style).
    public var line: Int?
    /// 0-based array index for the json style; nil otherwise.
    public var index: Int?
    /// The bundle from the nearest earlier `apsd` "Received message for enabled topic '…'" line with the topic
    /// revealed (used by `--bundle-id` and journal pairing; not reported as `bundle`).
    public var contextBundle: String?
    /// The device-token prefix when an earlier `apsd` line reveals it.
    public var contextToken: String?
    /// Set by ``RejectionPairing``.
    public var pairing: RejectionPairing.Result?

    /// True when the line reports a push the device dropped (not an informational line).
    public var isRejection: Bool { !(LogLineCatalog.pattern(of: kind)?.isInformational ?? true) }

    /// An event with no context, pairing or cause beyond `likelyCauses`.
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

    /// The same object as ``json``, appended as indented UTF-8 JSON text (fast path for large logs).
    public func appendJSON(to o: inout [UInt8], indent: String = "  ") {
        func raw(_ s: String) { o += s.utf8 }
        func str(_ s: String) {
            o.append(34)
            for c in s.utf8 {
                switch c {
                case 34: o += [92, 34]
                case 92: o += [92, 92]
                case 10: o += [92, 110]
                case 13: o += [92, 114]
                case 9: o += [92, 116]
                case 0..<32:
                    let hex = Array("0123456789abcdef".utf8)
                    o += [92, 117, 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]]
                default: o.append(c)
                }
            }
            o.append(34)
        }
        let i2 = indent + "  "
        raw(indent + "{\n" + i2 + "\"time\": "); str(time)
        raw(",\n" + i2 + "\"process\": "); str(process)
        raw(",\n" + i2 + "\"kind\": "); str(kind.rawValue)
        raw(",\n" + i2 + "\"bundle\": ")
        if let bundle { str(bundle) } else { raw("null") }
        raw(",\n" + i2 + "\"likely_causes\": [")
        for (n, c) in likelyCauses.enumerated() { if n > 0 { raw(", ") }; str(c) }
        raw("],\n" + i2 + "\"message\": "); str(message)
        if let index { raw(",\n" + i2 + "\"index\": \(index)") } else if let line { raw(",\n" + i2 + "\"line\": \(line)") }
        if let p = pairing { raw(",\n" + i2 + "\"cause\": " + JSONWriter.compact(p.json)) }
        raw("\n" + indent + "}")
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
    /// Only events at or after this time (`--since`); nil keeps all.
    public var since: LogTimestamp?
    /// Only events of this bundle (`--bundle-id`), judged from the line or the latest `apsd` topic.
    public var bundleID: String?
    private var lastTopicBundle: String?
    private var lastToken: String?

    /// An analyzer with the `--since` and `--bundle-id` filters.
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

    private static let topicMarker = Array("Received message for enabled topic '".utf8)
    private static let tokenMarker = Array("for device token: ".utf8)

    private mutating func noteApsd(_ message: String) {
        var m = message
        m.withUTF8 { b in
            guard let t = Self.find(b, Self.topicMarker) else { return }
            lastTopicBundle = nil
            lastToken = nil
            var e = t
            while e < b.count, b[e] != 39 { e += 1 }
            if e > t, b[t] != 60 /* < */ {
                let topic = String(decoding: UnsafeBufferPointer(rebasing: b[t..<e]), as: UTF8.self)
                lastTopicBundle = LiveActivityPush.bundleID(fromTopic: topic)
            }
            if let k = Self.find(b, Self.tokenMarker) {
                var j = k
                while j < b.count, (b[j] >= 48 && b[j] <= 57) || (b[j] | 0x20 >= 97 && b[j] | 0x20 <= 102) { j += 1 }
                if j - k >= 8 { lastToken = String(decoding: UnsafeBufferPointer(rebasing: b[k..<j]), as: UTF8.self).lowercased() }
            }
        }
    }

    /// Index just after the first occurrence of `needle`, or nil.
    private static func find(_ hay: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Int? {
        let n = needle.count
        guard hay.count >= n else { return nil }
        var i = 0
        while i <= hay.count - n {
            if hay[i] == needle[0] {
                var k = 1
                while k < n, hay[i + k] == needle[k] { k += 1 }
                if k == n { return i + n }
            }
            i += 1
        }
        return nil
    }
}

import ActivityPushCore
import Foundation
