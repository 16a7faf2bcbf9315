import ActivityPushAPNs
import ActivityPushCore

/// The production ``PushSender``: the APNs HTTP/2 client (device pushes to `/3/device/<token>`, broadcast
/// pushes to `/4/broadcasts/apps/<bundle id>`).
public struct APNsPushSender: PushSender {
    public let client: APNsClient

    public init(client: APNsClient) { self.client = client }

    public func send(_ request: PushRequest, to target: String) async -> APNsResult {
        do {
            if case .broadcast = request.destination { return try await client.broadcast(request) }
            return try await client.send(request, deviceToken: target)
        } catch {
            // The outbox checks tokens at enqueue, so this only happens with rows written by something else.
            return .failure(APNsTransportError(kind: .notSent, message: "refused before sending: \(error)", attempts: 0))
        }
    }

    public func refreshCredentials() async {
        if let current = try? client.token.current() { _ = try? client.token.invalidate(current) }
    }
}
