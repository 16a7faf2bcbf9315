/// Where a Live Activity managed by ``LiveActivityService`` is in its life. An open set (stored as its raw string).
///
/// ```text
///  POST /v1/activities ──▶ starting ──(first update token)──▶ active ──(POST …/end)──▶ ended
///                             │                                 │
///                             └──────(POST …/end, or 8 h after the start: Apple's limit)──┴──▶ ended
/// ```
public struct ActivityState: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored name (`starting`, `active`, `ended`, or another).
    public let rawValue: String
    /// Makes a state from its stored name; any string is accepted (an open set).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a state from a literal name, e.g. `"active"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The ``rawValue``.
    public var description: String { rawValue }

    /// Starts queued; no device has reported its update token yet.
    public static let starting: ActivityState = "starting"
    /// At least one device reported its update token (the activity runs there).
    public static let active: ActivityState = "active"
    /// Ended by an end request, or by Apple's 8-hour limit (``LiveActivityLimits``).
    public static let ended: ActivityState = "ended"

    /// Every state, in life-cycle order (the keys of the `/metrics` gauge).
    public static let all: [ActivityState] = [.starting, .active, .ended]
}
