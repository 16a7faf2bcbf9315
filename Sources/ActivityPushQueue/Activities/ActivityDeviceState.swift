/// Where one device of an activity is. An open set (stored as its raw string).
///
/// `no-token` (no push-to-start token for the type: nothing sent) · `starting` (start queued; updates are held
/// until the update token arrives, newest wins) → `started` (its update token arrived; updates go to it) →
/// `ended`; `starting` → `cancelled` when the end comes before the start went out. On a channel activity
/// (`input-push-channel`, no update token comes back) `starting` → `started` once APNs accepted the start (200):
/// the device is subscribed and the channel's broadcasts reach it. `token-retired`: APNs said the token is gone (410 `Unregistered`/`ExpiredToken`, `BadDeviceToken`,
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
    /// The end came before the device's start was sent: the start and the held pushes were cancelled (nothing
    /// reached the phone, so there is nothing to end there).
    public static let cancelled: ActivityDeviceState = "cancelled"
    /// APNs retired the token this device's pushes go to.
    public static let tokenRetired: ActivityDeviceState = "token-retired"
}
