import Foundation

/// Alert shown with a Live Activity push (`aps.alert`). The device builds an alert only when both `title` and
/// `body` are present; a push-to-start needs one. Source: Apple, "Starting and updating Live Activities with
/// ActivityKit push notifications" (start payload must include an alert).
public struct LiveActivityAlert: Sendable, Hashable {
    /// Plain text or a localization key with arguments.
    public enum Text: Sendable, Hashable {
        /// Text shown as is.
        case plain(String)
        /// `{"loc-key": key, "loc-args": args}`: a key of the app's `Localizable.strings`, with its format arguments.
        case localized(key: String, args: [String])

        var json: JSONValue {
            switch self {
            case .plain(let s): return .string(s)
            case .localized(let key, let args):
                return .obj([("loc-key", .string(key)), ("loc-args", .arr(args.map { .string($0) }))])
            }
        }
    }

    /// `aps.alert.title`.
    public var title: Text
    /// `aps.alert.body`.
    public var body: Text
    /// Sound file name in the app bundle (`aps.alert.sound`), or nil.
    public var sound: String?

    /// An alert from plain or localized texts.
    public init(title: Text, body: Text, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// An alert from plain texts.
    public init(title: String, body: String, sound: String? = nil) {
        self.init(title: .plain(title), body: .plain(body), sound: sound)
    }

    var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("title", title.json), ("body", body.json)]
        if let sound { pairs.append(("sound", .string(sound))) }
        return .obj(pairs)
    }
}

/// The one Live Activity payload builder. Every sending path — CLI, queue, console, APNs client — takes the
/// ``PushRequest`` this makes, so a payload mistake is fixed in one place.
///
/// It can only express the shapes Apple documents: every Live Activity key inside `aps`; alert text only in
/// `aps.alert`; an alert required for `start`; `dismissal-date` only on `end`; `start` only to a device
/// (push-to-start token), never to a broadcast channel. All `aps` times are **UNIX seconds** (since
/// 1970-01-01). Dates *inside* `attributes` / `content-state` are whatever the app's `Codable` types expect —
/// by default seconds since 2001-01-01 (``ActivityAttributes`` values are encoded that way for you).
///
/// ``build(schema:)`` runs the ``Validator`` on the result (with the app's schema when given) and throws
/// ``PushBuildError`` on any error finding, so a `PushRequest` is always one the device accepts.
public struct LiveActivityPush: Sendable {
    /// `.push-type.liveactivity`, appended to the bundle id to form `apns-topic` for device pushes.
    public static let topicSuffix = ".push-type.liveactivity"

    /// The bundle id in an `apns-topic`: the topic without ``topicSuffix`` (unchanged when it has none).
    public static func bundleID(fromTopic topic: String) -> String {
        topic.hasSuffix(topicSuffix) ? String(topic.dropLast(topicSuffix.count)) : topic
    }

    /// `aps.event`: fixed by the factory used (`start`, `update`, `end`).
    public private(set) var event: LiveActivityEvent
    /// The app's bundle id; `apns-topic` is `<bundleID>.push-type.liveactivity` (device pushes).
    public var bundleID: String
    /// `aps.timestamp`, UNIX seconds. Use the current time: the device ignores an update older than the last one applied.
    public var timestampUnixSeconds: Int64
    /// `aps.content-state`: a JSON object matching the app's `ContentState`.
    public var contentState: JSONValue
    /// `aps.attributes-type` (start only): the Swift type name exactly, case included, no module prefix.
    public private(set) var attributesType: String?
    /// `aps.attributes` (start only): the type's stored properties, nothing else.
    public private(set) var attributes: JSONValue?
    /// `aps.alert`; required for a start, optional (it lights the screen) for update and end.
    public var alert: LiveActivityAlert?
    /// `aps.stale-date`, UNIX seconds.
    public var staleDateUnixSeconds: Int64?
    /// `aps.dismissal-date`, UNIX seconds (end only; a past value removes the activity at once).
    public private(set) var dismissalDateUnixSeconds: Int64?
    /// `aps.relevance-score`: orders several activities of the app (any finite Double).
    public var relevanceScore: Double?
    /// Start only, iOS 18+: `input-push-token: 1` asks the device for an update token for the new activity.
    public private(set) var requestsUpdateToken: Bool = false
    /// Start only, iOS 18+: `input-push-channel`, the broadcast channel the new activity subscribes to.
    public private(set) var inputPushChannel: String?
    /// `apns-priority`: 10 (default) or 5 (does not count against the hourly budget). Broadcast also allows 1.
    public var priority: APNsPriority = .immediate
    /// `apns-expiration`, UNIX seconds; `0` means deliver once or drop (avoid for starts). nil omits the header.
    public var expirationUnixSeconds: Int64?
    /// `apns-id` (canonical lowercase UUID); nil lets APNs generate one.
    public var apnsID: UUID?
    /// `apns-collapse-id` (≤ 64 bytes), e.g. to keep racing retries of a start from creating two activities.
    public var collapseID: String?
    /// Broadcast channel (iOS 18+): when set the push goes to `/4/broadcasts/apps/<bundle>` with `apns-channel-id`.
    public private(set) var broadcastChannelID: String?

    private init(event: LiveActivityEvent, bundleID: String, timestamp: Int64, contentState: JSONValue) {
        self.event = event
        self.bundleID = bundleID
        self.timestampUnixSeconds = timestamp
        self.contentState = contentState
    }

    /// Current time in UNIX seconds.
    public static func nowUnixSeconds() -> Int64 { Int64(Date().timeIntervalSince1970) }

    // MARK: Dynamic front door (JSON values, checked against a schema read from the app's source)

    /// A push-to-start (iOS 17.2+), sent to a push-to-start token.
    /// - Parameters:
    ///   - bundleID: the app's bundle id (`apns-topic` is `<bundleID>.push-type.liveactivity`).
    ///   - attributesType: the Swift type name exactly (e.g. `"PizzaDeliveryAttributes"`).
    ///   - attributes: a JSON object with the type's stored properties only.
    ///   - contentState: a JSON object matching `ContentState`.
    ///   - alert: required for start; title and body.
    ///   - timestampUnixSeconds: `aps.timestamp`, UNIX seconds (default now).
    ///   - staleDateUnixSeconds: `aps.stale-date`, UNIX seconds.
    ///   - relevanceScore: `aps.relevance-score`.
    ///   - requestUpdateToken: iOS 18+, sets `input-push-token: 1`.
    ///   - inputPushChannel: iOS 18+, subscribes the activity to a broadcast channel (not with `requestUpdateToken`).
    public static func start(bundleID: String, attributesType: String, attributes: JSONValue, contentState: JSONValue,
                             alert: LiveActivityAlert, timestampUnixSeconds: Int64 = nowUnixSeconds(),
                             staleDateUnixSeconds: Int64? = nil, relevanceScore: Double? = nil,
                             requestUpdateToken: Bool = false, inputPushChannel: String? = nil) -> LiveActivityPush {
        var p = LiveActivityPush(event: .start, bundleID: bundleID, timestamp: timestampUnixSeconds, contentState: contentState)
        p.attributesType = attributesType
        p.attributes = attributes
        p.alert = alert
        p.staleDateUnixSeconds = staleDateUnixSeconds
        p.relevanceScore = relevanceScore
        p.requestsUpdateToken = requestUpdateToken
        p.inputPushChannel = inputPushChannel
        return p
    }

    /// An update, sent to an activity's update token (or to a broadcast channel with ``toBroadcast(channelID:)``).
    public static func update(bundleID: String, contentState: JSONValue, timestampUnixSeconds: Int64 = nowUnixSeconds(),
                              alert: LiveActivityAlert? = nil, staleDateUnixSeconds: Int64? = nil,
                              relevanceScore: Double? = nil) -> LiveActivityPush {
        var p = LiveActivityPush(event: .update, bundleID: bundleID, timestamp: timestampUnixSeconds, contentState: contentState)
        p.alert = alert
        p.staleDateUnixSeconds = staleDateUnixSeconds
        p.relevanceScore = relevanceScore
        return p
    }

    /// An end with the final content state. `dismissalDateUnixSeconds`: when to remove it from the Lock Screen
    /// (UNIX seconds; past → at once; omitted → up to 4 hours).
    public static func end(bundleID: String, contentState: JSONValue, timestampUnixSeconds: Int64 = nowUnixSeconds(),
                           dismissalDateUnixSeconds: Int64? = nil, alert: LiveActivityAlert? = nil,
                           staleDateUnixSeconds: Int64? = nil, relevanceScore: Double? = nil) -> LiveActivityPush {
        var p = LiveActivityPush(event: .end, bundleID: bundleID, timestamp: timestampUnixSeconds, contentState: contentState)
        p.dismissalDateUnixSeconds = dismissalDateUnixSeconds
        p.alert = alert
        p.staleDateUnixSeconds = staleDateUnixSeconds
        p.relevanceScore = relevanceScore
        return p
    }

    /// The same update or end sent to a broadcast channel (iOS 18+). A start cannot be broadcast:
    /// ``build(schema:)`` refuses it with `start-via-broadcast`.
    public func toBroadcast(channelID: String) -> LiveActivityPush {
        var p = self
        p.broadcastChannelID = channelID
        return p
    }

    // MARK: Output

    /// The `aps` dictionary and the whole body, keys in Apple's documented order.
    public var payload: JSONValue {
        var aps: [(String, JSONValue)] = [
            ("timestamp", .number(JSONNumber(lexeme: String(timestampUnixSeconds)))),
            ("event", .string(event.rawValue)),
            ("content-state", contentState),
        ]
        if let attributesType { aps.append(("attributes-type", .string(attributesType))) }
        if let attributes { aps.append(("attributes", attributes)) }
        if let alert { aps.append(("alert", alert.json)) }
        if let staleDateUnixSeconds { aps.append(("stale-date", .number(JSONNumber(lexeme: String(staleDateUnixSeconds))))) }
        if let dismissalDateUnixSeconds { aps.append(("dismissal-date", .number(JSONNumber(lexeme: String(dismissalDateUnixSeconds))))) }
        if let relevanceScore { aps.append(("relevance-score", .double(relevanceScore))) }
        if requestsUpdateToken { aps.append(("input-push-token", .int(1))) }
        if let inputPushChannel { aps.append(("input-push-channel", .string(inputPushChannel))) }
        return .obj([("aps", .obj(aps))])
    }

    /// The APNs request headers for this push.
    public var headers: APNsHeaders {
        var headers = APNsHeaders.liveActivity(bundleID: bundleID, broadcastChannelID: broadcastChannelID,
                                               expirationUnixSeconds: expirationUnixSeconds, priority: priority)
        if let apnsID { headers.apnsID = apnsID.uuidString.lowercased() }
        if let collapseID { headers.collapseID = collapseID }
        return headers
    }

    /// Builds and checks the push. With `schema`, `attributes-type`, `attributes` and `content-state` are
    /// checked against the app's types (read by ``SwiftSourceReader``).
    /// - Throws: ``PushBuildError`` holding every error finding when the push would be rejected by APNs or the device.
    public func build(schema: ActivitySchema? = nil) throws(PushBuildError) -> PushRequest {
        let body = Array(JSONWriter.compact(payload).utf8)
        let headers = self.headers
        let report = Validator(schema: schema).check(body: body, headers: headers)
        guard report.accept else { throw PushBuildError(findings: report.findings) }
        let destination: PushDestination = broadcastChannelID.map { .broadcast(channelID: $0) } ?? .device
        return PushRequest(event: event, bundleID: bundleID, destination: destination, headers: headers, body: body,
                           warnings: report.findings)
    }
}
