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
    public func appendJSON(to output: inout [UInt8], indent: String = "  ") {
        func raw(_ s: String) { output += s.utf8 }
        func str(_ text: String) {
            output.append(34)
            for byte in text.utf8 {
                switch byte {
                case 34: output += [92, 34]
                case 92: output += [92, 92]
                case 10: output += [92, 110]
                case 13: output += [92, 114]
                case 9: output += [92, 116]
                case 0..<32:
                    let hex = Array("0123456789abcdef".utf8)
                    output += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                default: output.append(byte)
                }
            }
            output.append(34)
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
        if let cause = pairing { raw(",\n" + i2 + "\"cause\": " + JSONWriter.compact(cause.json)) }
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
        if let cause = pairing { pairs.append(("cause", cause.json)) }
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
        if let since, let stamp = LogTimestamp.parse(entry.time), !stamp.isAtOrAfter(since) { return nil }
        var event = LiveActivityLogEvent(time: entry.time, process: entry.process, kind: pattern.kind,
                                     bundle: LogLineCatalog.bundle(in: entry.message, kind: pattern.kind),
                                     likelyCauses: pattern.likelyCauses, message: entry.message,
                                     line: entry.line, index: entry.index)
        event.contextBundle = event.bundle ?? lastTopicBundle
        event.contextToken = lastToken
        if let want = bundleID, let have = event.contextBundle, have != want { return nil }
        return event
    }

    private static let topicMarker = Array("Received message for enabled topic '".utf8)
    private static let tokenMarker = Array("for device token: ".utf8)

    private mutating func noteApsd(_ message: String) {
        var text = message
        text.withUTF8 { bytes in
            guard let topicStart = Self.find(bytes, Self.topicMarker) else { return }
            lastTopicBundle = nil
            lastToken = nil
            var topicEnd = topicStart
            while topicEnd < bytes.count, bytes[topicEnd] != 39 { topicEnd += 1 }
            if topicEnd > topicStart, bytes[topicStart] != 60 /* < */ {
                let topic = String(decoding: UnsafeBufferPointer(rebasing: bytes[topicStart..<topicEnd]), as: UTF8.self)
                lastTopicBundle = LiveActivityPush.bundleID(fromTopic: topic)
            }
            if let tokenStart = Self.find(bytes, Self.tokenMarker) {
                var tokenEnd = tokenStart
                while tokenEnd < bytes.count, (bytes[tokenEnd] >= 48 && bytes[tokenEnd] <= 57) || (bytes[tokenEnd] | 0x20 >= 97 && bytes[tokenEnd] | 0x20 <= 102) { tokenEnd += 1 }
                if tokenEnd - tokenStart >= 8 { lastToken = String(decoding: UnsafeBufferPointer(rebasing: bytes[tokenStart..<tokenEnd]), as: UTF8.self).lowercased() }
            }
        }
    }

    /// Index just after the first occurrence of `needle`, or nil.
    private static func find(_ hay: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Int? {
        let needleCount = needle.count
        guard hay.count >= needleCount else { return nil }
        var offset = 0
        while offset <= hay.count - needleCount {
            if hay[offset] == needle[0] {
                var matched = 1
                while matched < needleCount, hay[offset + matched] == needle[matched] { matched += 1 }
                if matched == needleCount { return offset + needleCount }
            }
            offset += 1
        }
        return nil
    }
}

import ActivityPushCore
import Foundation
