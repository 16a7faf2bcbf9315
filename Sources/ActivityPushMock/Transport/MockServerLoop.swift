import ActivityPushHTTP2
import Foundation

/// mock-apns on the HTTP/2 server role: turns each complete request into a `MockRequest` for the APNs logic
/// and carries out its `MockResponse` — the answer (now, after a fault delay, or rendered off the loop) and
/// the connection faults — honestly: a GOAWAY names the highest stream processed on the connection, every
/// stream at or below it is answered (graceful) and none above it is processed.
///
/// Also owns APNs's per-connection stream limit (one stream until a valid provider token, then
/// `maxConcurrentStreams`; Apple, "Sending notification requests to APNs"), idle closing, and the silent mode
/// for connections that stayed idle without PING (Apple stopped answering those in 2025; node `apns2` #97).
///
/// Loop thread only; created inside the loop by `MockAPNsServer.start()`.
final class MockServerLoop {
    struct Settings: Sendable {
        var initialMaxConcurrentStreams: Int
        var maxConcurrentStreams: Int
        /// Close a connection that read no byte for this long and has no request pending; nil: never.
        var idleTimeoutMilliseconds: Int?
        /// Close a connection whose TLS handshake has not completed after this long.
        var handshakeTimeoutMilliseconds: Int
        /// Stop answering on a connection once a request arrives after this long without any frame (PING
        /// included) from the client; nil: always answer.
        var silentAfterIdleMilliseconds: Int?
    }

    private let settings: Settings
    private let state: MockAPNsState
    private weak var context: EventLoopContext?
    private var records: [Int: ConnectionRecord] = [:]
    private var selfHandle: LoopBound<MockServerLoop>?
    private var sweepScheduled = false

    /// What the mock remembers per connection.
    private final class ConnectionRecord {
        let server: HTTP2ServerConnection
        let openedMilliseconds = monotonicMilliseconds()
        var lastFrameMilliseconds = monotonicMilliseconds()
        var authenticated = false
        /// What was processed and what a GOAWAY promised.
        var ledger = MockConnectionLedger()
        var silent = false
        init(server: HTTP2ServerConnection) { self.server = server }
    }

    init(context: EventLoopContext, settings: Settings, state: MockAPNsState) {
        self.context = context
        self.settings = settings
        self.state = state
        selfHandle = context.bind(self)
    }

    /// APNs's first SETTINGS: one stream until a valid provider token (raised by the first authenticated answer).
    var initialSettings: [HTTP2Setting] { [HTTP2Setting(.maxConcurrentStreams, UInt32(settings.initialMaxConcurrentStreams))] }

    /// A new connection: request handling, counters.
    func accept(_ server: HTTP2ServerConnection) {
        let record = ConnectionRecord(server: server)
        records[server.id] = record
        state.count { $0.connectionsAccepted += 1 }
        server.onRequest = { [weak self] request, server in self?.handle(request, on: server) }
        server.onFrameReceived = { [weak self] frame, server in self?.received(frame, on: server) }
        server.onFrameSent = { [weak self] frame, _ in
            if frame.type == .goaway { self?.state.count { $0.goawaysSent += 1 } }
        }
        server.onStreamClosed = { [weak self] _, _, server in self?.closeIfGoawayFinished(server) }
        scheduleSweep()
    }

    func connectionClosed(_ id: Int) {
        records[id] = nil
    }

    /// The listener paused accepting at the descriptor limit.
    func acceptPaused() {
        state.count { $0.acceptPausesAtDescriptorLimit += 1 }
    }

    // MARK: frames

    private func received(_ frame: HTTP2FrameSummary, on server: HTTP2ServerConnection) {
        if frame.type == .rstStream { state.count { $0.resetStreamsReceived += 1 } }
        guard let silentAfter = settings.silentAfterIdleMilliseconds, let record = records[server.id] else { return }
        let now = monotonicMilliseconds()
        if frame.type == .headers, !record.silent, now - record.lastFrameMilliseconds > UInt64(silentAfter) {
            record.silent = true
            state.count { $0.silencedConnections += 1 }
        }
        record.lastFrameMilliseconds = now
    }

    // MARK: requests

    private func handle(_ request: HTTP2ServerRequest, on server: HTTP2ServerConnection) {
        guard let record = records[server.id] else { return }
        if record.silent {
            state.count { $0.requestsIgnoredOnSilentConnections += 1 }
            return
        }
        let admission = record.ledger.admit(streamID: request.streamID)
        if admission == .cutByGoaway {
            // Above the GOAWAY's last-stream-id: never processed; the client retries it elsewhere.
            state.count { $0.streamsCutByGoaway += 1 }
            server.reset(streamID: request.streamID, errorCode: .refusedStream)
            return
        }
        var mockRequest = MockRequest(method: request.method, path: request.path,
                                      headers: request.headers.map { (name: $0.name, value: $0.value) },
                                      body: request.body, bodyLength: request.bodyLength, connectionID: request.connectionID)
        // Below an announced last-stream-id a stream must be processed and answered: no fault for it.
        mockRequest.faultsApply = admission == .process(faultsApply: true)
        let response = state.respond(to: mockRequest)
        let streamID = request.streamID
        switch response.connectionAction {
        case .goaway?, .goawayAbrupt?:
            // Honest last-stream-id: the highest stream processed; this one and later ones are not.
            let graceful = response.connectionAction == .goaway
            let last = record.ledger.announceGoaway(graceful: graceful)
            server.goaway(lastStreamID: last, errorCode: .noError, debugData: Array("{\"reason\":\"Shutdown\"}".utf8))
            if graceful {
                server.reset(streamID: streamID, errorCode: .refusedStream)
                closeIfGoawayFinished(server)
            } else {
                server.connection.close(.afterFlush)
            }
            return
        case .dropBeforeProcessing?:
            state.count { $0.dropsBeforeProcessing += 1 }
            server.connection.close(.immediately)
            return
        case .refuse?:
            state.count { $0.refusedStreams += 1 }
            server.reset(streamID: streamID, errorCode: .refusedStream)
            return
        case .dropAfterProcessing?, nil:
            break
        }
        record.ledger.processed(streamID: streamID)
        if let render = response.render, let loop = context?.loop, let handle = selfHandle {
            let connectionID = server.id
            DispatchQueue.global(qos: .utility).async {
                let rendered = render()
                loop.execute { context in
                    context.resolve(handle)?.answerRendered(rendered, connectionID: connectionID, streamID: streamID)
                }
            }
        } else if response.delayMilliseconds > 0, let context {
            context.schedule(afterMilliseconds: response.delayMilliseconds) { [weak self, weak server] _ in
                guard let self, let server, !server.connection.isClosed else { return }
                self.answer(response, streamID: streamID, on: server)
            }
        } else {
            answer(response, streamID: streamID, on: server)
        }
    }

    private func answerRendered(_ response: MockResponse, connectionID: Int, streamID: Int32) {
        guard let record = records[connectionID], !record.server.connection.isClosed else { return }
        answer(response, streamID: streamID, on: record.server)
    }

    private func answer(_ response: MockResponse, streamID: Int32, on server: HTTP2ServerConnection) {
        guard let record = records[server.id] else { return }
        if response.authenticated, !record.authenticated {
            record.authenticated = true
            server.sendSettings([HTTP2Setting(.maxConcurrentStreams, UInt32(settings.maxConcurrentStreams))])
        }
        if response.connectionAction == .dropAfterProcessing {
            state.count { $0.dropsAfterProcessing += 1 }
            server.connection.close(.immediately)
            return
        }
        server.respond(streamID: streamID, status: response.status,
                       headers: response.headers.map { HTTP2Header($0.name, $0.value) }, body: response.body)
        if let streams = response.maxConcurrentStreamsAfter {
            state.count { $0.streamLimitChanges += 1 }
            server.sendSettings([HTTP2Setting(.maxConcurrentStreams, UInt32(streams))])
        }
        closeIfGoawayFinished(server)
    }

    /// After a graceful GOAWAY: close once no stream at or below its last-stream-id waits for an answer.
    private func closeIfGoawayFinished(_ server: HTTP2ServerConnection) {
        // Only after a graceful GOAWAY: listing the pending streams sorts every open stream, and doing that for
        // every answer made the mock's CPU per request grow with the streams in flight (1 000 in `bench send`).
        guard let record = records[server.id], !server.connection.isClosed, record.ledger.closesWhenAnswered,
              record.ledger.goawayLastStreamID != nil else { return }
        if record.ledger.mayClose(unansweredStreamIDs: server.pendingStreamIDs) { server.connection.close(.afterFlush) }
    }

    // MARK: idle

    private var sweepIntervalMilliseconds: Int {
        let limits = [settings.idleTimeoutMilliseconds, settings.handshakeTimeoutMilliseconds].compactMap { $0 }
        return max(20, min(1000, (limits.min() ?? 1000) / 4))
    }

    private func scheduleSweep() {
        guard !sweepScheduled, let context else { return }
        sweepScheduled = true
        context.schedule(afterMilliseconds: sweepIntervalMilliseconds) { [weak self] _ in
            guard let self else { return }
            self.sweepScheduled = false
            self.sweep()
            if !self.records.isEmpty { self.scheduleSweep() }
        }
    }

    private func sweep() {
        let now = monotonicMilliseconds()
        for record in records.values {
            let connection = record.server.connection
            guard !connection.isClosed else { continue }
            if !connection.handshakeComplete {
                if now - record.openedMilliseconds >= UInt64(settings.handshakeTimeoutMilliseconds) {
                    state.count { $0.idleConnectionsClosed += 1 }
                    connection.close(.immediately)
                }
                continue
            }
            guard let idle = settings.idleTimeoutMilliseconds, now - connection.lastReadMilliseconds >= UInt64(idle),
                  record.server.pendingStreamIDs.isEmpty else { continue }
            state.count { $0.idleConnectionsClosed += 1 }
            let last = record.ledger.announceGoaway(graceful: false)
            record.server.goaway(lastStreamID: last, errorCode: .noError, debugData: Array("{\"reason\":\"IdleTimeout\"}".utf8))
            connection.close(.afterFlush)
        }
    }
}
