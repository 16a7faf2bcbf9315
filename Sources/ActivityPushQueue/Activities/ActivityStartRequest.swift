import ActivityPushCore

/// `POST /v1/activities` and `activity-push activities start`: start one activity on some devices.
///
/// JSON: `{"activityID", "type", "attributes", "contentState", "alert": {"title", "body"}, "deviceIDs": [...]
/// | "channel": true, "staleDate"?, "relevanceScore"?}`. `staleDate` is UNIX seconds; Dates inside `attributes`
/// and `contentState` are the app's Codable encoding (by default seconds since 2001-01-01). The activityID is the
/// idempotency key: the same request again changes nothing; another body under it is refused (409).
public struct ActivityStartRequest: Sendable, Hashable {
    /// The caller's id of the activity (`[A-Za-z0-9._~:-]`, 1–128 characters): it appears in paths.
    public var activityID: String
    /// `aps.attributes-type`: the Swift `ActivityAttributes` type name; nil uses the schema's only type.
    public var attributesType: String?
    /// `aps.attributes`: the type's stored properties.
    public var attributes: JSONValue?
    /// `aps.content-state`.
    public var contentState: JSONValue?
    /// `aps.alert.title`; a start needs title and body (both `""` is a silent start).
    public var alertTitle: String?
    /// `aps.alert.body`.
    public var alertBody: String?
    /// The devices to start it on (ids the app posted its tokens under).
    public var deviceIDs: [String]
    /// Broadcast the updates and ends over a channel (iOS 18): the starts to ``deviceIDs`` carry `input-push-channel`.
    public var channel: Bool
    /// With ``channel``: the registered channel to use; nil creates one for the activity
    /// (``LiveActivityService/start(_:channels:)``).
    public var channelID: String?
    /// With ``channel``: delete the channel at Apple once the activity's end broadcast is sent.
    public var deleteChannelOnEnd = false
    /// `aps.stale-date`, UNIX seconds.
    public var staleDateUnixSeconds: Int64?
    /// `aps.relevance-score`.
    public var relevanceScore: Double?

    /// An empty request for `activityID`; set the rest.
    public init(activityID: String) {
        self.activityID = activityID
        self.deviceIDs = []
        self.channel = false
    }

    /// The request in one canonical line (object keys sorted), compared to tell a repeat from a conflict.
    var fingerprint: String {
        JSONWriter.compact(.obj([
            ("activityID", .string(activityID)), ("type", attributesType.map(JSONValue.string) ?? .null),
            ("attributes", attributes.map(Self.canonical) ?? .null), ("contentState", contentState.map(Self.canonical) ?? .null),
            ("alertTitle", alertTitle.map(JSONValue.string) ?? .null), ("alertBody", alertBody.map(JSONValue.string) ?? .null),
            ("deviceIDs", .arr(deviceIDs.map(JSONValue.string))), ("channel", .bool(channel)),
            ("channelID", channelID.map(JSONValue.string) ?? .null), ("deleteChannelOnEnd", .bool(deleteChannelOnEnd)),
            ("staleDate", staleDateUnixSeconds.map { .int(Int($0)) } ?? .null),
            ("relevanceScore", relevanceScore.map(JSONValue.double) ?? .null),
        ]))
    }

    /// Objects with their members sorted by key, recursively.
    static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.sorted { $0.key < $1.key }.map { JSONMember(key: $0.key, value: JSONNode(canonical($0.value.value))) })
        case .array(let items):
            return .array(items.map { JSONNode(canonical($0.value)) })
        default:
            return value
        }
    }

    /// Checks the shape; the builder and validator judge the push itself.
    /// - Throws: ``ActivityError`` 400 naming the field and the fix.
    func validated() throws(ActivityError) -> ActivityStartRequest {
        try Self.checkActivityID(activityID)
        // A channel activity may name devices (their starts carry input-push-channel) or none (the app starts
        // its activities on the channel itself); a device activity needs them.
        guard channel || !deviceIDs.isEmpty else {
            throw .badRequest("deviceIDs", "is required: the devices to start the activity on",
                              fix: "give \"deviceIDs\": [\"<id the app posted its push-to-start token under>\"], or \"channel\": true")
        }
        if channel, let channelID, channelID.isEmpty || channelID.utf8.count > 256 {
            throw .badRequest("channelID", "must be a channel id (base64, as `activity-push channels list` prints it)",
                              fix: "omit channelID to have a channel created for the activity")
        }
        if !channel, channelID != nil || deleteChannelOnEnd {
            throw .badRequest(channelID != nil ? "channelID" : "deleteChannelOnEnd", "applies only with \"channel\": true",
                              fix: "add \"channel\": true to broadcast the activity's updates and ends on a channel")
        }
        var seen: Set<String> = []
        for (index, deviceID) in deviceIDs.enumerated() {
            try Self.checkDeviceID(deviceID, field: "deviceIDs[\(index)]")
            guard seen.insert(deviceID).inserted else {
                throw .badRequest("deviceIDs[\(index)]", "\"\(deviceID)\" is listed twice", fix: "list each device once")
            }
        }
        if contentState == nil {
            throw .badRequest("contentState", "is required (the ContentState as a JSON object)",
                              fix: "give \"contentState\": {…} with the type's ContentState properties")
        }
        return self
    }

    /// `[A-Za-z0-9._~:-]`, 1–128 characters.
    static func checkActivityID(_ id: String, field: String = "activityID") throws(ActivityError) {
        guard !id.isEmpty, id.utf8.count <= 128,
              id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._~:-".unicodeScalars.contains($0)) })
        else {
            throw .badRequest(field, "'\(id.prefix(40))' is not an activity id",
                              fix: "use 1–128 characters of A-Z a-z 0-9 . _ ~ : - (it appears in /v1/activities/{id})")
        }
    }

    /// 1–200 characters, no control characters.
    static func checkDeviceID(_ id: String, field: String) throws(ActivityError) {
        guard !id.isEmpty, id.utf8.count <= 200, !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .badRequest(field, "must be 1–200 characters without control characters",
                              fix: "use the id the app posted its tokens under")
        }
    }
}
