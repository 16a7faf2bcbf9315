/// A broadcast channel's `message-storage-policy`, fixed at creation. Source: Apple, "Sending channel
/// management requests to APNs": 0 = No Message Stored (higher publishing budget), 1 = Most Recent Message
/// Stored (kept up to 8 hours).
public struct MessageStoragePolicy: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// `0` or `1` as sent in `apns-message-storage-policy`.
    public let rawValue: Int
    /// A policy by number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `0`: No Message Stored (higher publishing budget; broadcasts need `apns-expiration: 0`).
    public static let noMessageStored = MessageStoragePolicy(rawValue: 0)
    /// `1`: Most Recent Message Stored (the last broadcast is kept up to 8 hours).
    public static let mostRecentMessageStored = MessageStoragePolicy(rawValue: 1)
    /// The number as text.
    public var description: String { String(rawValue) }
    /// Apple's name of the policy: `No Message Stored` (0), `Most Recent Message Stored` (1), else `policy N`.
    public var name: String {
        switch rawValue {
        case 0: return "No Message Stored"
        case 1: return "Most Recent Message Stored"
        default: return "policy \(rawValue)"
        }
    }
}
