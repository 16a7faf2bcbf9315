import ActivityPushAPNs
import ActivityPushCore

/// The production ``PushSender``: the APNs HTTP/2 client (device pushes to `/3/device/<token>`, broadcast
/// pushes to `/4/broadcasts/apps/<bundle id>`).
public struct APNsPushSender: PushSender {
    /// The client every push goes through (its environment and provider token decide where and as whom).
    public let client: APNsClient

    /// Sends with `client`; the worker calls ``send(_:to:)`` concurrently, the client multiplexes the calls.
    public init(client: APNsClient) { self.client = client }

    /// Sends a broadcast push with ``APNsClient/broadcast(_:)`` (`target` ignored) and a device push with
    /// ``APNsClient/send(_:deviceToken:)`` to `target` (hex token). A request the client refuses before sending
    /// (``APNsRequestError``) comes back as a ``APNsTransportError/Kind/notSent`` failure, never thrown.
    public func send(_ request: PushRequest, to target: String) async -> APNsResult {
        do {
            if case .broadcast = request.destination { return try await client.broadcast(request) }
            return try await client.send(request, deviceToken: target)
        } catch {
            // The outbox checks tokens at enqueue, so this only happens with rows written by something else.
            return .failure(APNsTransportError(kind: .notSent, message: "refused before sending: \(error)", attempts: 0))
        }
    }

    /// Re-signs the client's provider token (``ProviderToken/invalidate(_:)`` on the current one), so the next
    /// request carries a new JWT; a signing failure is ignored (the next request reports it).
    public func refreshCredentials() async {
        if let current = try? client.token.current() { _ = try? client.token.invalidate(current) }
    }
}
