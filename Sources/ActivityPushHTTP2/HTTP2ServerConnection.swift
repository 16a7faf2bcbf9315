/// The server role on one connection: assembles requests from the session's callbacks and answers them.
/// The application sees whole requests (`onRequest`) and answers with `respond`, now or later (delayed
/// answers: the stream stays open until answered or reset). Loop thread only.
package final class HTTP2ServerConnection: HTTP2SessionDelegate {
    package let connection: HTTP2Connection
    package var id: Int { connection.id }
    package var session: HTTP2Session { connection.session }
    /// A request is complete (END_STREAM received).
    package var onRequest: ((HTTP2ServerRequest, HTTP2ServerConnection) -> Void)?
    /// Every frame received (for counting RST_STREAM, PING, SETTINGS ...).
    package var onFrameReceived: ((HTTP2FrameSummary, HTTP2ServerConnection) -> Void)?
    /// Every frame sent.
    package var onFrameSent: ((HTTP2FrameSummary, HTTP2ServerConnection) -> Void)?
    /// A stream closed, answered or not.
    package var onStreamClosed: ((Int32, HTTP2ErrorCode, HTTP2ServerConnection) -> Void)?

    /// Bytes of a request body kept; more are counted in `bodyLength`, not stored.
    package let storedBodyLimit: Int
    /// Regular header fields kept per request (a header flood must not grow memory).
    package let headerLimit: Int

    private var streams: [Int32: PartialRequest] = [:]

    private final class PartialRequest {
        var method = ""
        var path = ""
        var authority: String?
        var headers: [HTTP2Header] = []
        var body: [UInt8] = []
        var bodyLength = 0
        var complete = false
        var answered = false
    }

    /// Queues the server's connection preface, a SETTINGS frame with `initialSettings` (RFC 9113 §3.4: the
    /// server's first frame is SETTINGS), written once the handshake allows.
    /// - Throws: ``HTTP2TransportError`` `.session` when nghttp2 cannot allocate.
    package init(id: Int, stream: ByteStream, options: HTTP2SessionOptions = HTTP2SessionOptions(),
                 initialSettings: [HTTP2Setting] = [], storedBodyLimit: Int = 16 * 1024, headerLimit: Int = 256) throws {
        let session = try HTTP2Session(role: .server, options: options)
        connection = HTTP2Connection(id: id, stream: stream, session: session)
        self.storedBodyLimit = storedBodyLimit
        self.headerLimit = headerLimit
        session.delegate = self
        session.submitSettings(initialSettings)
    }

    // MARK: answering

    /// Answers `streamID` with `:status` `status`, `headers` and `body`. False when the stream is gone (reset,
    /// closed, connection closed) or was already answered.
    @discardableResult
    package func respond(streamID: Int32, status: Int, headers: [HTTP2Header], body: [UInt8]) -> Bool {
        guard !connection.isClosed, let request = streams[streamID], !request.answered else { return false }
        request.answered = true
        let ok = session.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", String(status))] + headers, body: body)
        if !ok { session.submitReset(streamID: streamID, errorCode: .internalError) }
        connection.flushSubmitted()
        return ok
    }

    /// Resets `streamID` (e.g. `.refusedStream`: not processed, the client may retry).
    package func reset(streamID: Int32, errorCode: HTTP2ErrorCode) {
        guard !connection.isClosed else { return }
        streams[streamID]?.answered = true
        session.submitReset(streamID: streamID, errorCode: errorCode)
        connection.flushSubmitted()
    }

    /// Sends GOAWAY naming `lastStreamID` as the last stream that is (or will be) processed.
    package func goaway(lastStreamID: Int32, errorCode: HTTP2ErrorCode = .noError, debugData: [UInt8] = []) {
        guard !connection.isClosed else { return }
        session.submitGoaway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: debugData)
        connection.flushSubmitted()
    }

    /// Sends SETTINGS (e.g. a new SETTINGS_MAX_CONCURRENT_STREAMS).
    package func sendSettings(_ settings: [HTTP2Setting]) {
        guard !connection.isClosed else { return }
        session.submitSettings(settings)
        connection.flushSubmitted()
    }

    /// Streams whose request is complete and not yet answered or reset.
    package var unansweredStreamIDs: [Int32] {
        streams.filter { $0.value.complete && !$0.value.answered }.map(\.key).sorted()
    }

    /// Streams not answered or reset yet, whether their request is complete or still arriving.
    package var pendingStreamIDs: [Int32] {
        streams.filter { !$0.value.answered }.map(\.key).sorted()
    }

    /// Streams the peer opened that are still open (request partly received, or awaiting/sending an answer).
    package var openStreamIDs: [Int32] { streams.keys.sorted() }

    // MARK: HTTP2SessionDelegate

    package func session(_ session: HTTP2Session, beginsHeadersOn streamID: Int32, isRequest: Bool) {
        if isRequest { streams[streamID] = PartialRequest() }
    }

    package func session(_ session: HTTP2Session, receivedHeader header: HTTP2Header, on streamID: Int32) {
        guard let request = streams[streamID], !request.complete else { return }
        switch header.name {
        case ":method": request.method = header.value
        case ":path": request.path = header.value
        case ":authority": request.authority = header.value
        case ":scheme": break
        default:
            if request.headers.count < headerLimit { request.headers.append(header) }
        }
    }

    package func session(_ session: HTTP2Session, receivedData bytes: UnsafeBufferPointer<UInt8>, on streamID: Int32) {
        guard let request = streams[streamID] else { return }
        let room = storedBodyLimit - request.body.count
        if room > 0 { request.body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes.prefix(room))) }
        request.bodyLength += bytes.count
    }

    package func session(_ session: HTTP2Session, received frame: HTTP2FrameSummary) {
        onFrameReceived?(frame, self)
        guard frame.endsStream, let request = streams[frame.streamID], !request.complete else { return }
        request.complete = true
        let whole = HTTP2ServerRequest(method: request.method, path: request.path, authority: request.authority,
                                       headers: request.headers, body: request.body, bodyLength: request.bodyLength,
                                       streamID: frame.streamID, connectionID: id)
        request.body = []
        onRequest?(whole, self)
    }

    package func session(_ session: HTTP2Session, sent frame: HTTP2FrameSummary) {
        onFrameSent?(frame, self)
    }

    package func session(_ session: HTTP2Session, closed streamID: Int32, errorCode: HTTP2ErrorCode) {
        streams[streamID] = nil
        onStreamClosed?(streamID, errorCode, self)
    }
}
