/// APNs request headers, names stored lowercase (HTTP/2 requires it), order kept.
///
/// Read and write them by ``APNsHeaderName`` (`headers[.topic]`) or through the typed accessors
/// (``pushType``, ``topic``, ``priority`` …); the `String` subscript is for names outside Apple's set
/// (e.g. a `:path` pseudo-header in a headers file).
public struct APNsHeaders: Sendable, Hashable, Sequence {
    /// The headers in the order they were first set: lowercase name and value.
    public private(set) var fields: [(name: String, value: String)] = []

    /// No headers.
    public init() {}
    /// Headers from name–value pairs (names any case; a repeated name keeps the last value).
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { self[name] = value }
    }

    /// Case-insensitive lookup; setting nil removes the header.
    public subscript(name: String) -> String? {
        get {
            let lowercased = name.lowercased()
            return fields.first(where: { $0.name == lowercased })?.value
        }
        set {
            let lowercased = name.lowercased()
            if let index = fields.firstIndex(where: { $0.name == lowercased }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((lowercased, newValue))
            }
        }
    }

    /// Lookup by Apple's header name; setting nil removes the header.
    public subscript(name: APNsHeaderName) -> String? {
        get { self[name.rawValue] }
        set { self[name.rawValue] = newValue }
    }

    /// `apns-push-type`.
    public var pushType: String? {
        get { self[.pushType] }
        set { self[.pushType] = newValue }
    }
    /// `apns-topic`.
    public var topic: String? {
        get { self[.topic] }
        set { self[.topic] = newValue }
    }
    /// `apns-priority` (text, as sent).
    public var priority: String? {
        get { self[.priority] }
        set { self[.priority] = newValue }
    }
    /// `apns-expiration` (text, UNIX seconds as sent).
    public var expiration: String? {
        get { self[.expiration] }
        set { self[.expiration] = newValue }
    }
    /// `apns-id`.
    public var apnsID: String? {
        get { self[.id] }
        set { self[.id] = newValue }
    }
    /// `apns-collapse-id`.
    public var collapseID: String? {
        get { self[.collapseID] }
        set { self[.collapseID] = newValue }
    }
    /// `apns-channel-id` (a broadcast when set).
    public var channelID: String? {
        get { self[.channelID] }
        set { self[.channelID] = newValue }
    }

    /// The headers of a Live Activity push: `apns-push-type: liveactivity`, then for a device push
    /// `apns-topic: <bundleID>.push-type.liveactivity` (and `apns-expiration` when given), for a broadcast
    /// `apns-channel-id` and `apns-expiration` (default `0`, which suits channels with storage policy 0 —
    /// Apple requires the header on a broadcast), then `apns-priority`.
    /// - Parameters:
    ///   - bundleID: the app's bundle id.
    ///   - broadcastChannelID: the channel of a broadcast; nil for a device push.
    ///   - expirationUnixSeconds: `apns-expiration`, UNIX seconds.
    ///   - priority: `apns-priority`; 10 when omitted.
    /// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications" (topic suffix),
    /// "Sending broadcast push notification requests to APNs" (channel id, expiration and priority required).
    public static func liveActivity(bundleID: String, broadcastChannelID: String? = nil,
                                    expirationUnixSeconds: Int64? = nil,
                                    priority: APNsPriority = .immediate) -> APNsHeaders {
        var headers = APNsHeaders()
        headers.pushType = APNsPushType.liveactivity.rawValue
        if let broadcastChannelID {
            headers.channelID = broadcastChannelID
            headers.expiration = String(expirationUnixSeconds ?? 0)
        } else {
            headers.topic = bundleID + LiveActivityPush.topicSuffix
            if let expirationUnixSeconds { headers.expiration = String(expirationUnixSeconds) }
        }
        headers.priority = String(priority.rawValue)
        return headers
    }

    /// Iterates the headers in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Same names and values in the same order.
    public static func == (left: APNsHeaders, right: APNsHeaders) -> Bool {
        left.fields.elementsEqual(right.fields, by: { $0.name == $1.name && $0.value == $1.value })
    }
    /// Hashes names and values in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields { hasher.combine(field.name); hasher.combine(field.value) }
    }

    /// The headers as a dictionary (lowercase names).
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields { result[field.name] = field.value }
        return result
    }
}
