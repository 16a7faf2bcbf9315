import ActivityPushCore
import Foundation

/// One line of a send journal: one push handed to APNs (or the mock). The client, the queue and the mock
/// APNs server write one JSON object per line (NDJSON, UTF-8); `activity-push logs --journal FILE` reads it to
/// pair each device rejection with the push sent just before it.
///
/// Line format (keys; every key but `time` optional):
/// ```
/// {"time": "2026-11-24T19:02:04.981Z" | 1795633324.981,   // ISO 8601 (any offset) or UNIX seconds
///  "token": "80a1f2c3",            // device token or its redacted prefix (hex; "…"/"*" padding ignored)
///  "bundle": "com.example.kora",   // bundle id; or "topic": "com.example.kora.push-type.liveactivity"
///  "apns-id": "…", "status": 200, "reason": "BadDeviceToken",   // APNs answer when known
///  "event": "start",                // aps.event as sent
///  "headers": {"apns-push-type": "liveactivity", …},
///  "body": "{\"aps\":{…}}",        // the exact body bytes as a JSON string — or "payload": {…} as an object
///  "source": "retry-queue"}          // which part of the server sent it
/// ```
/// Writers should prefer `body` (exact bytes, so the validator's line:column refer to what was sent).
public struct SendJournalEntry: Sendable, Hashable, Codable {
    /// When the push was sent, UNIX seconds.
    public var time: Double
    /// UTC offset (seconds) of an ISO 8601 `time`, when one was given; used to read device times without a zone.
    public var utcOffset: Int?
    /// The device token or its redacted prefix (hex; `…`/`*` padding ignored when pairing).
    public var token: String?
    /// The app's bundle id.
    public var bundle: String?
    /// `apns-topic` as sent (`<bundle>.push-type.liveactivity`); gives the bundle when `bundle` is absent.
    public var topic: String?
    /// `apns-id` of the push (request or APNs answer).
    public var apnsID: String?
    /// APNs's HTTP status, when known (200 = accepted by APNs).
    public var status: Int?
    /// APNs's `reason` string for a refusal (e.g. `BadDeviceToken`).
    public var reason: String?
    /// `aps.event` of the push (`start`, `update`, `end`).
    public var event: String?
    /// The request headers as sent (lowercase names).
    public var headers: [String: String]?
    /// The body exactly as sent (JSON text).
    public var body: String?
    /// Where the entry came from (journal file:line), for messages.
    public var source: String?

    /// An entry; `time` in UNIX seconds, every other field optional.
    public init(time: Double, token: String? = nil, bundle: String? = nil, topic: String? = nil,
                apnsID: String? = nil, status: Int? = nil, reason: String? = nil, event: String? = nil,
                headers: [String: String]? = nil, body: String? = nil, source: String? = nil) {
        self.time = time
        self.token = token
        self.bundle = bundle
        self.topic = topic
        self.apnsID = apnsID
        self.status = status
        self.reason = reason
        self.event = event
        self.headers = headers
        self.body = body
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case time, token, bundle, topic, status, reason, event, headers, body, source
        case apnsID = "apns-id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let seconds = try? container.decode(Double.self, forKey: .time) {
            time = seconds
        } else {
            let text = try container.decode(String.self, forKey: .time)
            guard let (seconds, off) = Self.parseISO8601(text) else {
                throw DecodingError.dataCorruptedError(forKey: .time, in: container,
                                                       debugDescription: "not ISO 8601 or UNIX seconds: \(text)")
            }
            time = seconds
            utcOffset = off
        }
        token = try container.decodeIfPresent(String.self, forKey: .token)
        bundle = try container.decodeIfPresent(String.self, forKey: .bundle)
        topic = try container.decodeIfPresent(String.self, forKey: .topic)
        apnsID = try container.decodeIfPresent(String.self, forKey: .apnsID)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        event = try container.decodeIfPresent(String.self, forKey: .event)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        source = try container.decodeIfPresent(String.self, forKey: .source)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(bundle, forKey: .bundle)
        try container.encodeIfPresent(topic, forKey: .topic)
        try container.encodeIfPresent(apnsID, forKey: .apnsID)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(event, forKey: .event)
        try container.encodeIfPresent(headers, forKey: .headers)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encodeIfPresent(source, forKey: .source)
    }

    /// The bundle id: `bundle`, else `topic` without `.push-type.liveactivity`.
    public var bundleID: String? {
        bundle ?? topic.map { $0.replacingOccurrences(of: LiveActivityPush.topicSuffix, with: "") }
    }

    /// One journal line (compact JSON, no newline) — what writers append.
    public var jsonLine: String {
        var pairs: [(String, JSONValue)] = [("time", .number(JSONNumber(time)))]
        func add(_ key: String, _ value: String?) { if let value { pairs.append((key, .string(value))) } }
        add("token", token); add("bundle", bundle); add("topic", topic); add(APNsHeaderName.id.rawValue, apnsID)
        if let status { pairs.append(("status", JSONValue.int(status))) }
        add("reason", reason); add("event", event)
        if let headers {
            pairs.append(("headers", JSONValue.obj(headers.sorted(by: { $0.key < $1.key }).map { ($0.key, .string($0.value)) })))
        }
        add("body", body); add("source", source)
        return JSONWriter.compact(JSONValue.obj(pairs))
    }

    /// Reads one journal line. Accepts `payload` (object or string) for `body`, `apns_id`/`apnsId` for `apns-id`,
    /// `bundleId`/`bundle_id` for `bundle`, `time`/`ts`/`sent_at` for the time.
    /// - Throws: ``DeviceLogError`` naming the line and what is wrong.
    public init(jsonLine line: String, lineNumber: Int, file: String) throws {
        let doc = JSONReader.read(line)
        guard let root = doc.root, case .object = root.value else {
            let why = doc.problems.first.map { "\($0.message) at column \($0.position.column)" } ?? "not a JSON object"
            throw DeviceLogError(.badJournalLine, input: file, line: lineNumber, "\(file):\(lineNumber): journal line is not a JSON object (\(why))")
        }
        func str(_ keys: String...) -> String? {
            for key in keys { if let value = root[key]?.value.stringValue { return value } }
            return nil
        }
        var sentAt: Double?
        var off: Int?
        for key in ["time", "ts", "sent_at", "sentAt", "timestamp"] {
            guard let value = root[key]?.value else { continue }
            if let number = value.numberValue { sentAt = number.doubleValue; break }
            if let text = value.stringValue {
                if let seconds = Double(text) { sentAt = seconds; break }
                if let (seconds, offset) = Self.parseISO8601(text) { sentAt = seconds; off = offset; break }
                throw DeviceLogError(.badJournalLine, input: file, line: lineNumber, "\(file):\(lineNumber): \"\(key)\" is not ISO 8601 or UNIX seconds: \(text)")
            }
        }
        guard var time = sentAt else {
            throw DeviceLogError(.badJournalLine, input: file, line: lineNumber, "\(file):\(lineNumber): journal line has no \"time\" (ISO 8601 or UNIX seconds)")
        }
        if time > 100_000_000_000 { time /= 1000 } // milliseconds written by a JS writer
        guard time.isFinite, LogTimestamp.unixSecondsRange.contains(time) else {
            throw DeviceLogError(.badJournalLine, input: file, line: lineNumber, "\(file):\(lineNumber): time \(sentAt!) is out of range (not finite, or beyond the years 1 to 9999)", fix: "write UNIX seconds or ISO 8601")
        }
        self.init(time: time)
        utcOffset = off
        token = str("token", "device_token", "deviceToken")
        bundle = str("bundle", "bundle_id", "bundleId", "bundleID")
        topic = str("topic", APNsHeaderName.topic.rawValue)
        apnsID = str(APNsHeaderName.id.rawValue, "apns_id", "apnsId", "apnsID")
        if let code = root["status"]?.value.numberValue?.int64Value { status = Int(code) }
        reason = str("reason")
        event = str("event")
        if let members = root["headers"]?.value.members {
            var headerMap: [String: String] = [:]
            for member in members { if let value = member.value.value.stringValue { headerMap[member.key.lowercased()] = value } }
            headers = headerMap
            if topic == nil { topic = headerMap[APNsHeaderName.topic.rawValue] }
        }
        for key in ["body", "payload"] {
            guard let value = root[key]?.value else { continue }
            if let text = value.stringValue { body = text } else if case .object = value { body = JSONWriter.compact(value) }
            if body != nil { break }
        }
        source = str("source", "sender")
    }

    /// Reads every line of a journal file (blank lines skipped).
    /// - Throws: ``DeviceLogError`` for an unreadable file or a bad line (file:line named).
    public static func readJournal(path: String) throws -> [SendJournalEntry] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DeviceLogError(.unreadable, input: path, "\(path): journal cannot be read")
        }
        return try readJournal(bytes: [UInt8](data), file: path)
    }

    /// Parses a journal already read (`file` names it in errors).
    public static func readJournal(bytes: [UInt8], file path: String) throws -> [SendJournalEntry] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DeviceLogError(.notUTF8, input: path, "\(path): journal is not UTF-8 text")
        }
        var out: [SendJournalEntry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            out.append(try SendJournalEntry(jsonLine: trimmed, lineNumber: index + 1, file: path))
        }
        return out
    }

    /// `2026-11-24T19:02:04.981Z`, `2026-11-24 11:02:04-08:00`… → (UNIX seconds, offset seconds).
    static func parseISO8601(_ s: String) -> (Double, Int?)? {
        guard let ts = LogTimestamp.parse(s), let year = ts.year, let month = ts.month, let day = ts.day else { return nil }
        let off = ts.utcOffset
        let days = LogTimestamp.days(fromCivil: year, month, day)
        return (Double(days) * 86_400 + ts.secondsOfDay - Double(off ?? 0), off)
    }
}
