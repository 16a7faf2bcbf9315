/// The two tokens an app posts to `POST /v1/tokens`. An open set (stored as its raw string).
///
/// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications" (spec §6.1):
/// `Activity<T>.pushToStartTokenUpdates` gives the push-to-start token (one per device and type, may change);
/// `activity.pushTokenUpdates` gives each activity's update token (may change during the activity).
public struct ActivityTokenKind: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored name (`push-to-start`, `update`).
    public let rawValue: String
    /// Makes a kind from its stored name; any string is accepted (an open set).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a kind from a literal name.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The ``rawValue``.
    public var description: String { rawValue }

    /// Starts go to it; one per (device, `attributesType`): a new one replaces the old.
    public static let pushToStart: ActivityTokenKind = "push-to-start"
    /// Updates and ends of one activity go to it; one per (device, `activityID`).
    public static let update: ActivityTokenKind = "update"

    /// Both kinds, in the order `/metrics` lists them.
    public static let all: [ActivityTokenKind] = [.pushToStart, .update]
}
