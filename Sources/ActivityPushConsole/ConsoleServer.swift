import ActivityPushAPNs
import ActivityPushQueue
import Foundation

/// `activity-push serve`: the console's page and JSON API (``ConsoleAPI``) on an ``HTTPServer``.
///
/// Binds to loopback unless told otherwise; any other address needs an API token (the constructor refuses
/// without one), because the API can send pushes with the server's key.
public final class ConsoleServer: Sendable {
    public let api: ConsoleAPI
    public let http: HTTPServer

    /// - Throws: ``HTTPServerError`` when the address cannot be bound, or when `host` is not loopback and
    ///   `configuration.apiToken` is nil.
    public init(host: String = "127.0.0.1", port: Int, api: ConsoleAPI) throws(HTTPServerError) {
        guard HTTPServer.isNumeric(host) else {
            throw HTTPServerError.notNumeric(host: host)
        }
        if !HTTPServer.isLoopback(host), (api.configuration.apiToken ?? "").isEmpty {
            throw HTTPServerError(.needsAPIToken, option: "--api-token-file", host: host,
                                  "--host \(host) is reachable from other machines",
                                  fix: "give an API token with --api-token-file PATH or env ACTIVITY_PUSH_API_TOKEN (every request must then send Authorization: Bearer TOKEN), or bind 127.0.0.1")
        }
        self.api = api
        self.http = try HTTPServer(host: host, port: port, maxBodyBytes: api.configuration.maxBodyBytes) { request in
            await api.handle(request)
        }
    }

    /// `http://host:port`.
    public var url: String { http.url }

    /// Stops accepting, waits for in-flight requests, then closes the APNs connections and the queue.
    public func shutdown() async {
        http.stop()
        await api.client?.shutdown()
        api.outbox?.store.close()
    }
}
