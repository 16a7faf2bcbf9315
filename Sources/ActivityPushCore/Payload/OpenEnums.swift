/// `aps.event`: `start`, `update` or `end` (lowercase, as Apple spells them). An open set so an unexpected
/// value read from a payload can still be carried and reported.
/// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications".
public struct LiveActivityEvent: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    /// `start`: a push-to-start (iOS 17.2+), to a push-to-start token.
    public static let start = LiveActivityEvent(rawValue: "start")
    /// `update`: new content state for a running activity.
    public static let update = LiveActivityEvent(rawValue: "update")
    /// `end`: the final content state; the activity is dismissed at `dismissal-date`.
    public static let end = LiveActivityEvent(rawValue: "end")
    /// The three events Apple documents.
    public static let known: [LiveActivityEvent] = [.start, .update, .end]
    public var description: String { rawValue }
}

/// `apns-push-type`. Live Activity pushes use `liveactivity`.
/// Source: Apple, "Sending notification requests to APNs".
public struct APNsPushType: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    /// `liveactivity`: every Live Activity push.
    public static let liveactivity = APNsPushType(rawValue: "liveactivity")
    /// `alert`: an ordinary notification (not for Live Activities).
    public static let alert = APNsPushType(rawValue: "alert")
    /// `background`: a silent push (not for Live Activities).
    public static let background = APNsPushType(rawValue: "background")
    public var description: String { rawValue }
}

/// `apns-priority`. Live Activities: `10` (immediate, counts against the hourly ActivityKit budget) or `5`
/// (does not count). Broadcast also allows `1`. Omitted means 10.
/// Source: Apple, "Starting and updating Live Activities…" (budget) and "Sending broadcast push notification requests".
public struct APNsPriority: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `10`: deliver now (counts against the ActivityKit budget).
    public static let immediate = APNsPriority(rawValue: 10)
    /// `5`: deliver at a convenient time (does not count against the budget).
    public static let considerate = APNsPriority(rawValue: 5)
    /// `1`: broadcast only, lowest priority.
    public static let low = APNsPriority(rawValue: 1)
    public var description: String { String(rawValue) }
}
