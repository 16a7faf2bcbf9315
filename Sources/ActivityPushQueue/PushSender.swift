import ActivityPushAPNs
import ActivityPushCore

/// What a worker sends with: the APNs client in production (see ``APNsPushSender``), anything that answers
/// like APNs in tests. One call per push; calls may run concurrently.
public protocol PushSender: Sendable {
    /// Sends `request` to `target` (hex device token; ignored for a broadcast, whose channel is in the headers)
    /// and returns APNs's answer or the transport failure. Never throws: every request gets one result.
    func send(_ request: PushRequest, to target: String) async -> APNsResult
    /// Drops the cached provider token (JWT) so the next request is signed anew (after `ExpiredProviderToken`).
    func refreshCredentials() async
}
