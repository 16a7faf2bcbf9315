import ActivityPushCore

/// What `GET /v1/activities/{id}` and `activity-push activities show` answer: the activity, each device (tokens
/// redacted), its newest queued pushes with their `apns-id` and APNs answer, and its newest journal rows — at most
/// ``recentRows`` of each unless all are asked for (``Detail/all``), with ``pushCount``/``journalCount`` giving the
/// totals. Times UNIX seconds.
public struct ActivityView: Sendable, Hashable {
    /// How much of the activity a view carries: a held update adds a journal row per device, so an unbounded view
    /// grows with the activity's life (issue 11: 45 MB listings).
    public enum Detail: Sendable, Hashable {
        /// No pushes or journal rows (their counts only): list items and the answers of start/update/end.
        case summary
        /// The newest ``ActivityView/recentRows`` pushes and journal rows.
        case recent
        /// Every push and journal row (`?pushes=all`).
        case all
    }

    /// Pushes and journal rows a ``Detail/recent`` view carries (each, newest).
    public static let recentRows = 50

    /// One device of the activity.
    public struct Device: Sendable, Hashable {
        /// The app's device id.
        public var deviceID: String
        /// Its state.
        public var state: ActivityDeviceState
        /// The event of the push held for its update token (newest wins), if any.
        public var held: String?
        /// The push-to-start token the start went to, redacted.
        public var pushToStartToken: String?
        /// The activity's update token, redacted, once the device posted it.
        public var updateToken: String?
        /// Why APNs retired its token, if it did.
        public var tokenRetired: String?
    }

    /// One queued push of the activity.
    public struct Push: Sendable, Hashable {
        /// `start`, `update` or `end`.
        public var event: String
        /// The device it went to (empty for a broadcast).
        public var deviceID: String
        /// The queue row (`activity-push queue journal --id N`).
        public var pushID: Int64
        /// The `apns-id` every attempt carries.
        public var apnsID: String
        /// `apns-priority`.
        public var priority: Int
        /// Not sent before, UNIX seconds.
        public var notBeforeUnixSeconds: Double
        /// The budget that held it or lowered its priority, if one did.
        public var budget: String?
        /// The target token, redacted.
        public var target: String
        /// The queue state (`pending`, `inflight`, `sent`, `dead`, `superseded`).
        public var queueState: String
        /// APNs's last status, once answered.
        public var status: Int?
        /// APNs's last reason (Apple's spelling), if any.
        public var reason: String?
        /// What the device did, when the server is mock-apns and the console looked it up (`started`, …).
        public var deviceOutcome: String?
    }

    /// One line of the activity's journal.
    public struct Note: Sendable, Hashable {
        /// UNIX seconds.
        public var atUnixSeconds: Double
        /// The device it is about, if one.
        public var deviceID: String?
        /// What happened.
        public var text: String
    }

    /// The caller's activity id.
    public var activityID: String
    /// `attributes-type`.
    public var attributesType: String
    /// `sandbox` or `production` (the queue environment).
    public var environment: APNsEnvironment
    /// The broadcast channel its updates and ends go to (`"channel": true`), nil for device pushes.
    public var channelID: String? = nil
    /// Its state.
    public var state: ActivityState
    /// Why it ended, once ended.
    public var endReason: String?
    /// UNIX seconds.
    public var createdUnixSeconds: Double
    /// UNIX seconds, once ended.
    public var endedUnixSeconds: Double?
    /// The newest `aps.timestamp` given (UNIX seconds).
    public var lastTimestamp: Int64
    /// Devices in the order the start named them.
    public var devices: [Device]
    /// Queued pushes, oldest first.
    public var pushes: [Push]
    /// The journal, oldest first.
    public var journal: [Note]
    /// All pushes of the activity (``pushes`` may hold only the newest).
    public var pushCount = 0
    /// All journal rows of the activity (``journal`` may hold only the newest).
    public var journalCount = 0
    /// The pushes the start/update/end that answered this view queued, the first ``recentRows`` of them (nil for a
    /// plain read); ``queuedCount`` counts them all.
    public var queued: [Push]? = nil
    /// How many pushes the start/update/end that answered this view queued.
    public var queuedCount = 0
    /// Set when the start/update/end that answered this view was a repeat and changed nothing (answered 200).
    public var repeated = false

    /// Devices that had no push-to-start token (no start sent to them).
    public var devicesWithoutToken: [String] { devices.filter { $0.state == .noToken }.map(\.deviceID) }

    /// Devices by state name (`starting`, `started`, `no-token`, …).
    public var deviceCounts: [String: Int] { devices.reduce(into: [:]) { $0[$1.state.rawValue, default: 0] += 1 } }

    /// The bounded answer of list items and of start/update/end: `activityID`, `type`, `environment`,
    /// `channelID`, `state`, `endReason`, `createdAt`, `endedAt`, `lastTimestamp`, `deviceCount`,
    /// `deviceStates` (`{state: count}`), `missingTokens`, `pushCount`, `journalCount`, and `queued` (the pushes
    /// this request queued, the first 50) with `queuedCount` when set.
    public var summaryJSON: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var members: [(String, JSONValue)] = [
            ("activityID", .string(activityID)), ("type", .string(attributesType)), ("environment", .string(environment.name)),
            ("channelID", text(channelID)), ("state", .string(state.rawValue)), ("endReason", text(endReason)),
            ("createdAt", .double(createdUnixSeconds)), ("endedAt", endedUnixSeconds.map(JSONValue.double) ?? .null),
            ("lastTimestamp", .int(Int(lastTimestamp))), ("deviceCount", .int(devices.count)),
            ("deviceStates", .obj(deviceCounts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) })),
            ("missingTokens", .arr(devicesWithoutToken.map(JSONValue.string))),
            ("pushCount", .int(pushCount)), ("journalCount", .int(journalCount)),
        ]
        if let queued { members.append(contentsOf: [("queued", .arr(queued.map(Self.json))), ("queuedCount", .int(queuedCount))]) }
        return .obj(members)
    }

    private static func json(_ push: Push) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .obj([("event", .string(push.event)), ("deviceID", .string(push.deviceID)), ("pushID", .int(Int(push.pushID))),
                     ("apnsID", .string(push.apnsID)), ("priority", .int(push.priority)),
                     ("notBefore", .double(push.notBeforeUnixSeconds)), ("budget", text(push.budget)),
                     ("target", .string(push.target)), ("queueState", .string(push.queueState)),
                     ("status", push.status.map(JSONValue.int) ?? .null), ("reason", text(push.reason)),
                     ("deviceOutcome", text(push.deviceOutcome))])
    }

    /// The JSON of the API (`activityID`, `type`, `state`, `endReason`, `createdAt`, `endedAt`, `lastTimestamp`,
    /// `devices`, `missingTokens`, `pushes`, `pushCount`, `journal`, `journalCount`).
    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .obj([
            ("activityID", .string(activityID)), ("type", .string(attributesType)), ("environment", .string(environment.name)),
            ("channelID", text(channelID)), ("state", .string(state.rawValue)), ("endReason", text(endReason)),
            ("createdAt", .double(createdUnixSeconds)), ("endedAt", endedUnixSeconds.map(JSONValue.double) ?? .null),
            ("lastTimestamp", .int(Int(lastTimestamp))),
            ("devices", .arr(devices.map { device in
                .obj([("deviceID", .string(device.deviceID)), ("state", .string(device.state.rawValue)),
                      ("held", text(device.held)), ("pushToStartToken", text(device.pushToStartToken)),
                      ("updateToken", text(device.updateToken)), ("tokenRetired", text(device.tokenRetired))])
            })),
            ("missingTokens", .arr(devicesWithoutToken.map(JSONValue.string))),
            ("pushes", .arr(pushes.map(Self.json))), ("pushCount", .int(pushCount)),
            ("journal", .arr(journal.map { note in
                .obj([("at", .double(note.atUnixSeconds)), ("deviceID", text(note.deviceID)), ("note", .string(note.text))])
            })),
            ("journalCount", .int(journalCount)),
        ])
    }
}
