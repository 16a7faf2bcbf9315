/// Where a queued push is in its life. An open set (stored as its raw string).
///
/// `pending` → (claimed) `inflight` → `sent` | `pending` again (retry later) | `dead` (dead letter);
/// `pending` → `superseded` when a newer update or an end for the same activity token is queued.
public struct PushState: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored name (`pending`, `inflight`, `sent`, `dead`, `superseded`, or another).
    public let rawValue: String
    /// Makes a state from its stored name; any string is accepted (an open set).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a state from a literal name, e.g. `"pending"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The ``rawValue``.
    public var description: String { rawValue }

    /// Waiting until its not-before time (new, or a retry waiting out its delay).
    public static let pending: PushState = "pending"
    /// Claimed by a worker whose lease has not expired.
    public static let inflight: PushState = "inflight"
    /// APNs answered 200.
    public static let sent: PushState = "sent"
    /// Will not be sent: a never-retry reason, an inactive token, or attempts used up. `last_reason` says which.
    public static let dead: PushState = "dead"
    /// Not sent: a newer update or an end for the same activity token made it pointless.
    public static let superseded: PushState = "superseded"

    /// Every state this version stores, in life-cycle order (the keys of ``QueueStatus/counts``).
    public static let all: [PushState] = [.pending, .inflight, .sent, .dead, .superseded]
}
