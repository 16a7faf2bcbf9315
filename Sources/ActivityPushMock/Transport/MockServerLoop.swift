import ActivityPushHTTP2

/// mock-apns on the HTTP/2 server role: turns each complete request into a `MockRequest` for the APNs logic
/// and carries out its `MockResponse` — the answer, now or after a fault delay, and the connection action
/// (GOAWAY, drop). Also owns APNs's per-connection stream limit: one stream until a valid provider token,
/// then `maxConcurrentStreams` (Apple, "Sending notification requests to APNs").
///
/// Loop thread only; created inside the loop by `MockAPNsServer.start()`.
final class MockServerLoop {
    private let respond: @Sendable (MockRequest) -> MockResponse
    private let initialMaxConcurrentStreams: Int
    private let maxConcurrentStreams: Int
    private weak var context: EventLoopContext?
    /// Connections on which a valid provider token raised the stream limit.
    private var authenticatedConnections = Set<Int>()

    init(context: EventLoopContext, initialMaxConcurrentStreams: Int, maxConcurrentStreams: Int,
         respond: @escaping @Sendable (MockRequest) -> MockResponse) {
        self.context = context
        self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        self.maxConcurrentStreams = maxConcurrentStreams
        self.respond = respond
    }

    /// A new connection: APNs's first SETTINGS, and request handling.
    func accept(_ connection: HTTP2ServerConnection) {
        connection.sendSettings([HTTP2Setting(.maxConcurrentStreams, UInt32(initialMaxConcurrentStreams))])
        connection.onRequest = { [weak self] request, connection in self?.handle(request, on: connection) }
    }

    func connectionClosed(_ id: Int) {
        authenticatedConnections.remove(id)
    }

    private func handle(_ request: HTTP2ServerRequest, on connection: HTTP2ServerConnection) {
        let mockRequest = MockRequest(method: request.method, path: request.path,
                                      headers: request.headers.map { (name: $0.name, value: $0.value) },
                                      body: request.body, bodyLength: request.bodyLength, connectionID: request.connectionID)
        let response = respond(mockRequest)
        if response.delayMilliseconds > 0, let context {
            var later = response
            later.delayMilliseconds = 0
            context.schedule(afterMilliseconds: response.delayMilliseconds) { [weak self, weak connection] _ in
                guard let self, let connection, !connection.connection.isClosed else { return }
                self.carryOut(later, streamID: request.streamID, on: connection)
            }
        } else {
            carryOut(response, streamID: request.streamID, on: connection)
        }
    }

    private func carryOut(_ response: MockResponse, streamID: Int32, on connection: HTTP2ServerConnection) {
        if response.authenticated, authenticatedConnections.insert(connection.id).inserted {
            connection.sendSettings([HTTP2Setting(.maxConcurrentStreams, UInt32(maxConcurrentStreams))])
        }
        switch response.connectionAction {
        case .drop?:
            connection.connection.close(.immediately)
        case .goaway?:
            // GOAWAY carrying an APNs-style JSON reason; the stream is not answered (last processed = previous).
            connection.goaway(lastStreamID: max(0, streamID - 2), debugData: Array("{\"reason\":\"Shutdown\"}".utf8))
            connection.connection.close(.afterFlush)
        case nil:
            connection.respond(streamID: streamID, status: response.status,
                               headers: response.headers.map { HTTP2Header($0.name, $0.value) }, body: response.body)
        }
    }
}
