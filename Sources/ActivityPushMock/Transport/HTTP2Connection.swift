import CNghttp2
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted client connection: a non-blocking socket, optionally wrapped in OpenSSL TLS, driving a
/// libnghttp2 server session (all HTTP/2 framing, HPACK and flow control are nghttp2's).
///
/// Thread-safety: every method runs on the event loop's thread only; nghttp2 reaches this object through an
/// `Unmanaged` user_data pointer while the loop keeps it alive in its table.
final class HTTP2Connection {
    let id: Int
    let fd: Int32
    private var ssl: OpaquePointer?
    private var handshakeDone: Bool
    private(set) var session: OpaquePointer?
    private unowned let loop: EventLoop

    /// Streams with a request being received or an answer being sent.
    var streams: [Int32: StreamState] = [:]
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// SSL wants the socket writable before it can continue (renegotiation-free TLS 1.3 key updates, handshake).
    private var sslWantsWrite = false
    /// Set from a callback; acted on after nghttp2 returns (freeing a session inside its callback is undefined).
    var dropRequested = false
    var goawayRequested = false
    private(set) var closed = false

    final class StreamState {
        var method = ""
        var path = ""
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var bodyLength = 0
        var responseBody: [UInt8] = []
        var responseOffset = 0
        var answered = false
    }

    init(id: Int, fd: Int32, tls: TLSContext?, loop: EventLoop) throws {
        self.id = id
        self.fd = fd
        self.loop = loop
        if let tls {
            guard let s = SSL_new(tls.ctx) else { throw MockAPNsError.tls("SSL_new failed: \(openSSLErrors())") }
            SSL_set_fd(s, fd)
            SSL_set_accept_state(s)
            ssl = s
            handshakeDone = false
        } else {
            handshakeDone = true
        }
        try makeSession()
    }

    private func makeSession() throws {
        var cbs: OpaquePointer?
        guard nghttp2_session_callbacks_new(&cbs) == 0, let cbs else { throw MockAPNsError.socket("nghttp2 callbacks: out of memory") }
        defer { nghttp2_session_callbacks_del(cbs) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(cbs) { _, frame, user in
            guard let frame, let user else { return 0 }
            let c = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                c.streams[frame.pointee.hd.stream_id] = StreamState()
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(cbs) { _, frame, name, namelen, value, valuelen, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let c = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
            guard let st = c.streams[frame.pointee.hd.stream_id] else { return 0 }
            let n = String(decoding: UnsafeBufferPointer(start: name, count: namelen), as: UTF8.self)
            let v = String(decoding: UnsafeBufferPointer(start: value, count: valuelen), as: UTF8.self)
            switch n {
            case ":method": st.method = v
            case ":path": st.path = v
            case ":scheme", ":authority": break
            default:
                // Bounded (a header flood must not grow memory), but high enough that no real client's headers are lost.
                if st.headers.count < 256 { st.headers.append((n, v)) }
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs) { _, _, streamID, data, len, user in
            guard let user else { return 0 }
            let c = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
            guard let st = c.streams[streamID], let data else { return 0 }
            let room = MockRequest.storedBodyLimit - st.body.count
            if room > 0 { st.body.append(contentsOf: UnsafeBufferPointer(start: data, count: min(room, len))) }
            st.bodyLength += len
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(cbs) { _, frame, user in
            guard let frame, let user else { return 0 }
            let c = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
            let type = frame.pointee.hd.type
            let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endStream, type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) {
                c.requestComplete(streamID: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(cbs) { _, streamID, _, user in
            guard let user else { return 0 }
            let c = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
            c.streams[streamID] = nil
            return 0
        }
        var s: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        // libcurl 7.x sends RST_STREAM after every finished stream; nghttp2's rapid-reset guard (burst 1000,
        // 33/s) would then GOAWAY a client after ~1000 pushes on one connection. A test server must let one
        // connection carry a whole run (the client issue's 10 000-push test), so the guard is widened.
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw MockAPNsError.socket("nghttp2 option: out of memory") }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_stream_reset_rate_limit(option, 1_000_000, 1_000_000)
        guard nghttp2_session_server_new2(&s, cbs, user, option) == 0, let s else { throw MockAPNsError.socket("nghttp2 session: out of memory") }
        session = s
        // APNs allows one stream until a valid provider token is seen (spec §2.5); raised later by `authenticate`.
        var iv = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                         value: UInt32(loop.initialMaxConcurrentStreams))]
        _ = nghttp2_submit_settings(s, UInt8(NGHTTP2_FLAG_NONE.rawValue), &iv, 1)
    }

    private var authenticated = false

    /// Raise SETTINGS_MAX_CONCURRENT_STREAMS once a valid provider token was seen on this connection.
    func authenticate() {
        guard !authenticated, let session else { return }
        authenticated = true
        var iv = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                         value: UInt32(loop.maxConcurrentStreams))]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &iv, 1)
    }

    private func requestComplete(streamID: Int32) {
        guard let st = streams[streamID] else { return }
        let request = MockRequest(method: st.method, path: st.path, headers: st.headers, body: st.body,
                                  bodyLength: st.bodyLength, connectionID: id)
        st.body = []
        loop.dispatch(request, connection: self, streamID: streamID)
    }

    /// Sends `response` on `streamID` (if the stream still exists) and performs its connection action.
    func submit(_ response: MockResponse, streamID: Int32) {
        guard let session, !closed else { return }
        if response.authenticated { authenticate() }
        switch response.connectionAction {
        case .drop?:
            dropRequested = true
            return
        case .goaway?:
            // GOAWAY carrying an APNs-style JSON reason; the stream is not answered (last processed = previous).
            let reason = Array("{\"reason\":\"Shutdown\"}".utf8)
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), max(0, streamID - 2),
                                      NGHTTP2_NO_ERROR.rawValue, reason, reason.count)
            goawayRequested = true
            return
        case nil: break
        }
        guard let st = streams[streamID], !st.answered else { return }
        st.answered = true
        var fields: [(String, String)] = [(":status", String(response.status))]
        fields += response.headers
        var storage: [[UInt8]] = []
        for (n, v) in fields { storage.append(Array(n.utf8)); storage.append(Array(v.utf8)) }
        var nvs: [nghttp2_nv] = []
        nvs.reserveCapacity(fields.count)
        // nghttp2 copies names and values during submit, so pointers only need to live for this call.
        let rv: Int32 = withPointers(storage) { ptrs in
            for i in 0..<fields.count {
                nvs.append(nghttp2_nv(name: ptrs[2 * i], value: ptrs[2 * i + 1], namelen: storage[2 * i].count,
                                      valuelen: storage[2 * i + 1].count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            if response.body.isEmpty {
                return nghttp2_submit_response(session, streamID, nvs, nvs.count, nil)
            }
            st.responseBody = response.body
            st.responseOffset = 0
            var provider = nghttp2_data_provider()
            provider.read_callback = { _, streamID, buf, length, flags, _, user in
                guard let user, let buf, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                let c = Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
                guard let st = c.streams[streamID] else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                let n = min(length, st.responseBody.count - st.responseOffset)
                st.responseBody.withUnsafeBufferPointer { src in
                    buf.update(from: src.baseAddress! + st.responseOffset, count: n)
                }
                st.responseOffset += n
                if st.responseOffset >= st.responseBody.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
                return n
            }
            return nghttp2_submit_response(session, streamID, nvs, nvs.count, &provider)
        }
        if rv != 0 { _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_INTERNAL_ERROR.rawValue) }
    }

    // MARK: I/O

    var wantsRead: Bool { !closed }
    var wantsWrite: Bool {
        guard !closed else { return false }
        if sslWantsWrite || outputOffset < output.count { return true }
        if let session { return nghttp2_session_want_write(session) != 0 }
        return false
    }

    /// Reads what the socket has, feeds nghttp2, writes what nghttp2 produced.
    func onReadable() {
        guard !closed else { return }
        if !handshakeDone { guard handshake() else { return } }
        var buf = [UInt8](repeating: 0, count: 16 * 1024)
        readLoop: while !closed {
            let n: Int = buf.withUnsafeMutableBytes { b in
                if let ssl {
                    let r = SSL_read(ssl, b.baseAddress, Int32(b.count))
                    if r > 0 { return Int(r) }
                    switch SSL_get_error(ssl, r) {
                    case SSL_ERROR_WANT_READ: return -1
                    case SSL_ERROR_WANT_WRITE: sslWantsWrite = true; return -1
                    default: return 0
                    }
                } else {
                    let r = recv(fd, b.baseAddress, b.count, 0)
                    if r > 0 { return r }
                    if r < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                    return 0
                }
            }
            if n == 0 { close(); return }
            if n < 0 { break readLoop }
            guard let session else { return }
            let rv = buf.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, n) }
            if dropRequested { close(); return }
            if rv < 0 {
                // Malformed HTTP/2 or a bad preface: nghttp2 queued a GOAWAY where it could; send it, then close.
                _ = flush()
                close()
                return
            }
        }
        afterIO()
    }

    func onWritable() {
        guard !closed else { return }
        if !handshakeDone { guard handshake() else { return } }
        sslWantsWrite = false
        afterIO()
    }

    /// Called by the loop after submitting a delayed answer.
    func afterIO() {
        guard !closed else { return }
        guard flush() else { close(); return }
        if let session, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0,
           outputOffset >= output.count {
            close()
        } else if goawayRequested, outputOffset >= output.count, let session, nghttp2_session_want_write(session) == 0 {
            close()
        }
    }

    /// Runs the TLS handshake; true once it is complete.
    private func handshake() -> Bool {
        guard let ssl else { return true }
        let r = SSL_do_handshake(ssl)
        if r == 1 {
            handshakeDone = true
            sslWantsWrite = false
            return true
        }
        switch SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ: sslWantsWrite = false
        case SSL_ERROR_WANT_WRITE: sslWantsWrite = true
        default:
            ERR_clear_error()
            close()
        }
        return false
    }

    /// Moves nghttp2's output to the socket until it would block. False on a fatal error.
    private func flush() -> Bool {
        guard let session else { return false }
        while true {
            if outputOffset < output.count {
                let n: Int = output.withUnsafeBytes { b in
                    let p = b.baseAddress! + outputOffset
                    let len = b.count - outputOffset
                    if let ssl {
                        let r = SSL_write(ssl, p, Int32(min(len, Int(Int32.max))))
                        if r > 0 { return Int(r) }
                        switch SSL_get_error(ssl, r) {
                        case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return -1
                        default: ERR_clear_error(); return -2
                        }
                    } else {
                        let r = send(fd, p, len, Int32(MSG_NOSIGNAL))
                        if r >= 0 { return r }
                        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                        return -2
                    }
                }
                if n == -2 { return false }
                if n == -1 { return true }
                outputOffset += n
                if outputOffset < output.count { continue }
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
            }
            // Gather up to ~64 KiB of frames before one write.
            while output.count < 64 * 1024 {
                var data: UnsafePointer<UInt8>?
                let n = nghttp2_session_mem_send(session, &data)
                if n < 0 { return false }
                if n == 0 { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
            }
            if output.isEmpty { return true }
        }
    }

    /// Closes the socket and frees nghttp2 and TLS state. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl {
            SSL_free(ssl)
            self.ssl = nil
        }
        streams.removeAll()
        closeSocket(fd)
    }

    deinit { close() }
}

/// Calls `body` with stable pointers to each byte array (for nghttp2_nv, which takes non-const pointers).
private func withPointers<R>(_ arrays: [[UInt8]], _ body: ([UnsafeMutablePointer<UInt8>]) -> R) -> R {
    var owned: [UnsafeMutablePointer<UInt8>] = []
    owned.reserveCapacity(arrays.count)
    for a in arrays {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, a.count))
        a.withUnsafeBufferPointer { if let base = $0.baseAddress { p.update(from: base, count: a.count) } }
        owned.append(p)
    }
    defer { for p in owned { p.deallocate() } }
    return body(owned)
}
