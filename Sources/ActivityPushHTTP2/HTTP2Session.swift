import CNghttp2

/// What an ``HTTP2Session`` reports while it parses bytes (called from inside `receive`, on the loop thread).
/// The server role assembles requests from these, the client role responses.
package protocol HTTP2SessionDelegate: AnyObject {
    /// A HEADERS frame opens a header block on `streamID`; `isRequest`: the first block of a stream the peer opened.
    func session(_ session: HTTP2Session, beginsHeadersOn streamID: Int32, isRequest: Bool)
    /// One header field (pseudo-headers included) of the current block.
    func session(_ session: HTTP2Session, receivedHeader header: HTTP2Header, on streamID: Int32)
    /// A chunk of DATA payload.
    func session(_ session: HTTP2Session, receivedData bytes: UnsafeBufferPointer<UInt8>, on streamID: Int32)
    /// A whole frame was received (after its header fields or data were reported).
    func session(_ session: HTTP2Session, received frame: HTTP2FrameSummary)
    /// A frame was written to the output (GOAWAY and RST_STREAM sent can be counted here).
    func session(_ session: HTTP2Session, sent frame: HTTP2FrameSummary)
    /// The stream is closed (answered, reset by either side, or cut by GOAWAY); `errorCode` is `.noError` after a clean end.
    func session(_ session: HTTP2Session, closed streamID: Int32, errorCode: HTTP2ErrorCode)
}

/// Tuning both roles share.
package struct HTTP2SessionOptions: Sendable {
    /// nghttp2's rapid-reset guard (RST_STREAM frames received: burst and per-second refill); nil keeps
    /// nghttp2's default (burst 1000, 33/s).
    package var streamResetRateLimit: (burst: UInt64, perSecond: UInt64)?
    package init(streamResetRateLimit: (burst: UInt64, perSecond: UInt64)? = nil) {
        self.streamResetRateLimit = streamResetRateLimit
    }
}

/// The libnghttp2 session glue both roles share: callbacks forwarded to a delegate, frames submitted,
/// bodies served by a data provider, output taken with `mem_send`. Framing, HPACK and flow control are
/// nghttp2's. Loop thread only; nghttp2 reaches this object through an unretained `user_data` pointer, so the
/// owner must keep it alive while the session exists (it does: the session is freed in `deinit`).
package final class HTTP2Session {
    package enum Role: Sendable { case server, client }

    package let role: Role
    private var pointer: OpaquePointer?
    package weak var delegate: HTTP2SessionDelegate?
    /// Bodies being sent, by stream (served by the data provider, removed when the stream closes).
    private var outgoingBodies: [Int32: OutgoingBody] = [:]

    private final class OutgoingBody {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    /// - Throws: ``HTTP2TransportError`` `.session` when nghttp2 cannot allocate.
    package init(role: Role, options: HTTP2SessionOptions = HTTP2SessionOptions()) throws {
        self.role = role
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw HTTP2TransportError(.session, "nghttp2 callbacks: out of memory")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw HTTP2TransportError(.session, "nghttp2 option: out of memory") }
        defer { nghttp2_option_del(option) }
        if let limit = options.streamResetRateLimit {
            nghttp2_option_set_stream_reset_rate_limit(option, limit.burst, limit.perSecond)
        }
        var session: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        let result = role == .server ? nghttp2_session_server_new2(&session, callbacks, user, option)
                                     : nghttp2_session_client_new2(&session, callbacks, user, option)
        guard result == 0, let session else { throw HTTP2TransportError(.session, "nghttp2 session: out of memory") }
        pointer = session
    }

    deinit { if let pointer { nghttp2_session_del(pointer) } }

    // MARK: input and output

    /// Feeds received bytes. False on a protocol error (nghttp2 then has a GOAWAY queued where it could:
    /// flush it and close).
    package func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let pointer, let base = bytes.baseAddress else { return pointer != nil }
        return nghttp2_session_mem_recv(pointer, base.assumingMemoryBound(to: UInt8.self), bytes.count) >= 0
    }

    /// Appends serialized frames to `output` until it holds `limit` bytes or nothing is left. False on a fatal error.
    package func collectOutput(into output: inout [UInt8], limit: Int) -> Bool {
        guard let pointer else { return false }
        while output.count < limit {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(pointer, &data)
            if count < 0 { return false }
            if count == 0 { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        return true
    }

    /// nghttp2 still expects frames (false after GOAWAY both ways, or a fatal error).
    package var wantsRead: Bool { pointer.map { nghttp2_session_want_read($0) != 0 } ?? false }
    /// nghttp2 has frames or sendable data queued.
    package var wantsWrite: Bool { pointer.map { nghttp2_session_want_write($0) != 0 } ?? false }

    // MARK: submitting

    /// Queues a SETTINGS frame.
    package func submitSettings(_ settings: [HTTP2Setting]) {
        guard let pointer else { return }
        var entries = settings.map { nghttp2_settings_entry(settings_id: $0.id.rawValue, value: $0.value) }
        _ = nghttp2_submit_settings(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    /// Queues a response on a stream the peer opened (server role). Empty `body`: HEADERS with END_STREAM.
    /// False when nghttp2 refuses (stream gone or already answered).
    package func submitResponse(streamID: Int32, headers: [HTTP2Header], body: [UInt8]) -> Bool {
        guard let pointer else { return false }
        return withNameValues(headers) { nameValues in
            if body.isEmpty { return nghttp2_submit_response(pointer, streamID, nameValues, nameValues.count, nil) == 0 }
            var provider = Self.bodyProvider()
            outgoingBodies[streamID] = OutgoingBody(body)
            let result = nghttp2_submit_response(pointer, streamID, nameValues, nameValues.count, &provider)
            if result != 0 { outgoingBodies[streamID] = nil }
            return result == 0
        }
    }

    /// Opens a stream with a request (client role); nil `body` ends the stream with the HEADERS frame.
    /// Returns the new stream's id, or nil when nghttp2 refuses (stream ids exhausted, session going away).
    package func submitRequest(headers: [HTTP2Header], body: [UInt8]?) -> Int32? {
        guard let pointer else { return nil }
        let streamID: Int32 = withNameValues(headers) { nameValues in
            guard let body else { return nghttp2_submit_request(pointer, nil, nameValues, nameValues.count, nil, nil) }
            var provider = Self.bodyProvider()
            let pending = OutgoingBody(body)
            let id = nghttp2_submit_request(pointer, nil, nameValues, nameValues.count, &provider, nil)
            if id > 0 { outgoingBodies[id] = pending }
            return id
        }
        return streamID > 0 ? streamID : nil
    }

    /// Opens a stream with prebuilt name/value pairs (client role; nghttp2 copies them during the call); nil
    /// `body` ends the stream with the HEADERS frame. Returns the new stream's id, or nil when nghttp2 refuses.
    package func submitRequest(nameValues: UnsafeBufferPointer<nghttp2_nv>, body: [UInt8]?) -> Int32? {
        guard let pointer else { return nil }
        let streamID: Int32
        if let body {
            var provider = Self.bodyProvider()
            streamID = nghttp2_submit_request(pointer, nil, nameValues.baseAddress, nameValues.count, &provider, nil)
            if streamID > 0 { outgoingBodies[streamID] = OutgoingBody(body) }
        } else {
            streamID = nghttp2_submit_request(pointer, nil, nameValues.baseAddress, nameValues.count, nil, nil)
        }
        return streamID > 0 ? streamID : nil
    }

    /// Queues GOAWAY with `lastStreamID` (streams above it are not processed) and optional debug data.
    package func submitGoaway(lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: [UInt8] = []) {
        guard let pointer else { return }
        _ = debugData.withUnsafeBufferPointer { buffer in
            nghttp2_submit_goaway(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, errorCode.rawValue,
                                  buffer.baseAddress, buffer.count)
        }
    }

    /// Queues RST_STREAM for `streamID`.
    package func submitReset(streamID: Int32, errorCode: HTTP2ErrorCode) {
        guard let pointer else { return }
        _ = nghttp2_submit_rst_stream(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.rawValue)
    }

    /// Queues a PING (8 bytes of `opaqueData`); nghttp2 answers the peer's PINGs by itself.
    package func submitPing(opaqueData: UInt64 = 0) {
        guard let pointer else { return }
        var data = opaqueData.bigEndian
        withUnsafeBytes(of: &data) { bytes in
            _ = nghttp2_submit_ping(pointer, UInt8(NGHTTP2_FLAG_NONE.rawValue), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The highest stream id the peer opened that this side began to process (nghttp2's count: every stream
    /// whose HEADERS were received).
    package var lastProcessedStreamID: Int32 { pointer.map { nghttp2_session_get_last_proc_stream_id($0) } ?? 0 }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS as last received (nghttp2 reports 2^31-1 before any).
    package var peerMaxConcurrentStreams: UInt32 {
        pointer.map { nghttp2_session_get_remote_settings($0, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS) } ?? 0
    }

    // MARK: callbacks

    private static func owner(_ user: UnsafeMutableRawPointer?) -> HTTP2Session? {
        user.map { Unmanaged<HTTP2Session>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func summary(_ frame: UnsafePointer<nghttp2_frame>) -> HTTP2FrameSummary {
        let header = frame.pointee.hd
        var result = HTTP2FrameSummary(type: HTTP2FrameType(rawValue: header.type), streamID: header.stream_id, flags: header.flags)
        switch result.type {
        case .rstStream:
            result.errorCode = HTTP2ErrorCode(rawValue: frame.pointee.rst_stream.error_code)
        case .goaway:
            result.errorCode = HTTP2ErrorCode(rawValue: frame.pointee.goaway.error_code)
            result.lastStreamID = frame.pointee.goaway.last_stream_id
        case .settings where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            let settings = frame.pointee.settings
            if let entries = settings.iv {
                result.settings = (0..<settings.niv).map {
                    HTTP2Setting(HTTP2SettingID(rawValue: entries[$0].settings_id), entries[$0].value)
                }
            }
        default:
            break
        }
        return result
    }

    private static func install(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let session = HTTP2Session.owner(user) else { return 0 }
            if frame.pointee.hd.type == HTTP2FrameType.headers.rawValue {
                let isRequest = frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
                session.delegate?.session(session, beginsHeadersOn: frame.pointee.hd.stream_id, isRequest: isRequest)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let session = HTTP2Session.owner(user) else { return 0 }
            let header = HTTP2Header(String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                                     String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            session.delegate?.session(session, receivedHeader: header, on: frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data, let session = HTTP2Session.owner(user) else { return 0 }
            session.delegate?.session(session, receivedData: UnsafeBufferPointer(start: data, count: length), on: streamID)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let session = HTTP2Session.owner(user) else { return 0 }
            session.delegate?.session(session, received: HTTP2Session.summary(frame))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, let session = HTTP2Session.owner(user) else { return 0 }
            session.delegate?.session(session, sent: HTTP2Session.summary(frame))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            guard let session = HTTP2Session.owner(user) else { return 0 }
            session.outgoingBodies[streamID] = nil
            session.delegate?.session(session, closed: streamID, errorCode: HTTP2ErrorCode(rawValue: errorCode))
            return 0
        }
    }

    private static func bodyProvider() -> nghttp2_data_provider {
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, streamID, buffer, length, flags, _, user in
            guard let buffer, let flags, let session = HTTP2Session.owner(user), let body = session.outgoingBodies[streamID] else {
                return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
            }
            let count = min(length, body.bytes.count - body.offset)
            body.bytes.withUnsafeBufferPointer { source in
                if count > 0 { buffer.update(from: source.baseAddress! + body.offset, count: count) }
            }
            body.offset += count
            if body.offset >= body.bytes.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
        return provider
    }
}

/// Calls `body` with nghttp2 name/value pairs for `headers`; nghttp2 copies them during submit, so the
/// storage (one allocation for every name and value) only lives for the call.
private func withNameValues<Result>(_ headers: [HTTP2Header], _ body: ([nghttp2_nv]) -> Result) -> Result {
    var total = 0
    for header in headers { total += header.name.utf8.count + header.value.utf8.count }
    let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, total))
    defer { storage.deallocate() }
    var nameValues: [nghttp2_nv] = []
    nameValues.reserveCapacity(headers.count)
    var offset = 0
    func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
        let start = storage + offset
        for byte in text.utf8 { storage[offset] = byte; offset += 1 }
        return (start, offset - (start - storage))
    }
    for header in headers {
        let (name, nameLength) = copy(header.name)
        let (value, valueLength) = copy(header.value)
        nameValues.append(nghttp2_nv(name: name, value: value, namelen: nameLength, valuelen: valueLength,
                                     flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }
    return body(nameValues)
}
