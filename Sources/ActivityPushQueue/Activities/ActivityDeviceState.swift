/// Where one device of an activity is. An open set (stored as its raw string).
///
/// `no-token` (no push-to-start token for the type: nothing sent) · `starting` (start queued; updates are held
/// until the update token arrives, newest wins) → `started` (its update token arrived; updates go to it) →
/// `ended`. `token-retired`: APNs said the token is gone (410 `Unregistered`/`ExpiredToken`, `BadDeviceToken`,
/// `DeviceTokenNotForTopic`); nothing more is sent to it.
public struct ActivityDeviceState: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored name.
    public let rawValue: String
    /// Makes a state from its stored name; any string is accepted (an open set).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a state from a literal name, e.g. `"started"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The ``rawValue``.
    public var description: String { rawValue }

    /// The device has no push-to-start token for the activity's type (and environment): no start was sent.
    public static let noToken: ActivityDeviceState = "no-token"
    /// The start is queued or sent; the device's update token has not arrived.
    public static let starting: ActivityDeviceState = "starting"
    /// The device reported the activity's update token.
    public static let started: ActivityDeviceState = "started"
    /// The end was sent (or the activity ended by itself).
    public static let ended: ActivityDeviceState = "ended"
    /// APNs retired the token this device's pushes go to.
    public static let tokenRetired: ActivityDeviceState = "token-retired"
}
