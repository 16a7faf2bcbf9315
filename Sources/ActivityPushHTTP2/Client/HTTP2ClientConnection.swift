import CEpoll
import CNghttp2
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a client connection reports to its loop. Every call happens on the loop thread.
protocol HTTP2ClientConnectionDelegate: AnyObject {
    func connectionEstablished(_ connection: HTTP2ClientConnection)
    func connectionHeard(_ connection: HTTP2ClientConnection)
    func connection(_ connection: HTTP2ClientConnection, settingsMaxConcurrentStreams: Int?)
    func connection(_ connection: HTTP2ClientConnection, wroteRequestOn streamID: Int32)
    func connection(_ connection: HTTP2ClientConnection, answered streamID: Int32, response: HTTP2Response)
    func connection(_ connection: HTTP2ClientConnection, closedUnanswered streamID: Int32, errorCode: UInt32)
    func connection(_ connection: HTTP2ClientConnection, goawayLastStreamID: Int32)
    func connectionReceivedReset(_ connection: HTTP2ClientConnection)
}

/// One client connection: a non-blocking socket (IPv4 or IPv6, addresses from getaddrinfo tried in order),
/// an optional HTTP CONNECT tunnel through a proxy, optional OpenSSL TLS (ALPN `h2`), and a libnghttp2 client
/// session (framing, HPACK, flow control). It only moves bytes and reports frames; which request goes on which
/// stream is the ``HTTP2PoolScheduler``'s decision.
///
/// Loop thread only; nghttp2 reaches it through an `Unmanaged` user-data pointer while the loop holds it.
final class HTTP2ClientConnection {
    let id: Int
    let origin: HTTP2Origin
    private(set) var fd: Int32 = -1
    private unowned let delegate: HTTP2ClientConnectionDelegate
    private let tls: ClientTLSContext?
    private let proxy: HTTP2Origin?

    private enum Phase { case tcp, proxy, tls, h2, closed }
    private var phase = Phase.tcp
    private var addresses: [(family: Int32, address: [UInt8])] = []
    private var addressIndex = 0
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var proxyReply: [UInt8] = []
    private var handshakeWantsWrite = true
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Set when the connection failed; the loop settles it after the current call returns (never inside an
    /// nghttp2 callback, where freeing the session is undefined).
    private(set) var failure: String?

    private final class Stream {
        var requestBody: [UInt8]
        var bodyOffset = 0
        var status = 0
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var answered = false
        init(requestBody: [UInt8]) { self.requestBody = requestBody }
    }
    private var streams: [Int32: Stream] = [:]

    init(id: Int, origin: HTTP2Origin, tls: ClientTLSContext?, proxy: HTTP2Origin?, delegate: HTTP2ClientConnectionDelegate) {
        self.id = id
        self.origin = origin
        self.tls = tls
        self.proxy = proxy
        self.delegate = delegate
    }

    // MARK: Connect

    /// Resolves the host (getaddrinfo: IPv4 and IPv6) and starts a non-blocking connect to the first address.
    func connect() {
        let target = proxy ?? origin
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let first = list else {
            fail("cannot resolve \(target.host): \(String(cString: gai_strerror(rc)))")
            return
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let a = entry {
            entry = a.pointee.ai_next
            let bytes = UnsafeRawBufferPointer(start: a.pointee.ai_addr, count: Int(a.pointee.ai_addrlen))
            addresses.append((a.pointee.ai_family, Array(bytes)))
        }
        tryNextAddress(previousError: "no address")
    }

    private func tryNextAddress(previousError: String) {
        let target = proxy ?? origin
        while addressIndex < addresses.count {
            let (family, address) = addresses[addressIndex]
            addressIndex += 1
            if fd >= 0 { closeDescriptor() }
            fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { continue }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let rc = address.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if rc == 0 || errno == EINPROGRESS { return }
            let text = String(cString: strerror(errno))
            if addressIndex >= addresses.count {
                fail("cannot connect to \(target.authority): \(text)")
                return
            }
        }
        fail("cannot connect to \(target.authority): \(previousError)")
    }

    private func tcpConnected() {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 {
            let text = String(cString: strerror(error))
            if addressIndex < addresses.count { tryNextAddress(previousError: text) }
            else { fail("cannot connect to \((proxy ?? origin).authority): \(text)") }
            return
        }
        if proxy != nil {
            phase = .proxy
            let request = "CONNECT \(origin.authority) HTTP/1.1\r\nHost: \(origin.authority)\r\n\r\n"
            output.append(contentsOf: Array(request.utf8))
            _ = writeOutput()
        } else {
            startTLSOrSession()
        }
    }

    private func proxyReadable() {
        while true {
            let n = recv(fd, &readBuffer, readBuffer.count, 0)
            if n == 0 { fail("the proxy \(proxy!.authority) closed the connection during CONNECT"); return }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                fail("proxy \(proxy!.authority): \(String(cString: strerror(errno)))"); return
            }
            // Byte by byte up to the end of the reply head, so no tunnelled byte is consumed here.
            proxyReply.append(contentsOf: readBuffer[0..<n])
            if let end = Self.headEnd(proxyReply) {
                let head = String(decoding: proxyReply[..<end], as: UTF8.self)
                let statusLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
                let parts = statusLine.split(separator: " ")
                guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1] == "200" else {
                    fail("the proxy \(proxy!.authority) refused CONNECT \(origin.authority): \(statusLine)")
                    return
                }
                guard end == proxyReply.count else {
                    fail("the proxy \(proxy!.authority) sent data before the tunnel was up")
                    return
                }
                proxyReply = []
                startTLSOrSession()
                return
            }
            if proxyReply.count > 16 * 1024 { fail("the proxy's CONNECT reply is over 16 KB"); return }
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 0x0A && bytes[i - 1] == 0x0D && bytes[i - 2] == 0x0A && bytes[i - 3] == 0x0D {
            return i + 1
        }
        return nil
    }

    private func startTLSOrSession() {
        if let tls {
            guard let ssl = tls.makeSession(fd: fd, host: origin.host) else { fail("OpenSSL: SSL_new failed"); return }
            self.ssl = ssl
            phase = .tls
            handshake()
        } else {
            startSession()
        }
    }

    private func handshake() {
        guard let ssl else { return }
        let r = SSL_do_handshake(ssl)
        if r == 1 {
            var data: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &data, &length)
            guard length == 2, let data, data[0] == UInt8(ascii: "h"), data[1] == UInt8(ascii: "2") else {
                fail("\(origin.authority) did not negotiate HTTP/2 (ALPN h2); APNs (and mock-apns) speak HTTP/2 only — check --url")
                return
            }
            startSession()
            return
        }
        switch SSL_get_error(ssl, r) {
        case SSL_ERROR_WANT_READ: handshakeWantsWrite = false
        case SSL_ERROR_WANT_WRITE: handshakeWantsWrite = true
        default:
            let verify = SSL_get_verify_result(ssl)
            let detail = verify != X509_V_OK
                ? "certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify))) (give the server's CA with --ca-file)"
                : openSSLErrors()
            ERR_clear_error()
            fail("TLS handshake with \(origin.authority) failed: \(detail)")
        }
    }

    // MARK: HTTP/2 session

    private func startSession() {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { fail("nghttp2: out of memory"); return }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let connection = Unmanaged<HTTP2ClientConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams[frame.pointee.hd.stream_id] else { return 0 }
            let headerName = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let headerValue = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            if headerName == ":status" { stream.status = Int(headerValue) ?? 0 }
            else if stream.headers.count < 256 { stream.headers[headerName] = headerValue }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let user, let data else { return 0 }
            let connection = Unmanaged<HTTP2ClientConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams[streamID], stream.body.count < 1 << 20 else { return 0 }
            stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { session, frame, user in
            guard let frame, let user else { return 0 }
            let connection = Unmanaged<HTTP2ClientConnection>.fromOpaque(user).takeUnretainedValue()
            connection.frameReceived(frame, session: session)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                let connection = Unmanaged<HTTP2ClientConnection>.fromOpaque(user).takeUnretainedValue()
                connection.delegate.connection(connection, wroteRequestOn: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            guard let user else { return 0 }
            let connection = Unmanaged<HTTP2ClientConnection>.fromOpaque(user).takeUnretainedValue()
            guard let stream = connection.streams.removeValue(forKey: streamID) else { return 0 }
            if !stream.answered {
                connection.delegate.connection(connection, closedUnanswered: streamID, errorCode: errorCode)
            }
            return 0
        }
        var created: OpaquePointer?
        guard nghttp2_session_client_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0, let created else {
            fail("nghttp2: cannot create a client session")
            return
        }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        phase = .h2
        delegate.connectionEstablished(self)
        flush()
    }

    private func frameReceived(_ frame: UnsafePointer<nghttp2_frame>, session: OpaquePointer?) {
        let type = frame.pointee.hd.type
        let streamID = frame.pointee.hd.stream_id
        switch UInt32(type) {
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
            guard frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
                  let stream = streams[streamID], !stream.answered, stream.status != 0 else { return }
            stream.answered = true
            delegate.connection(self, answered: streamID,
                                response: HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body))
            stream.body = []
        case NGHTTP2_SETTINGS.rawValue:
            guard frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0, let session else { return }
            var limit: Int?
            let count = frame.pointee.settings.niv
            for i in 0..<count where frame.pointee.settings.iv[i].settings_id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) {
                limit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
            }
            if let limit { delegate.connection(self, settingsMaxConcurrentStreams: limit) }
        case NGHTTP2_GOAWAY.rawValue:
            delegate.connection(self, goawayLastStreamID: frame.pointee.goaway.last_stream_id)
        case NGHTTP2_RST_STREAM.rawValue:
            delegate.connectionReceivedReset(self)
        default:
            break
        }
    }

    /// Submits a request; returns its stream id, or a message when nghttp2 refuses it.
    func submit(_ request: HTTP2Request, path: String) -> Result<Int32, HTTP2ClientError> {
        guard phase == .h2, let session else { return .failure(HTTP2ClientError("the connection is not ready")) }
        var fields: [(String, String)] = [(":method", request.method), (":scheme", origin.scheme),
                                          (":authority", origin.authority), (":path", path)]
        for header in request.headers {
            // HTTP/2 field names are lowercase (RFC 9113 §8.2.1); APNs's are already.
            let lowercase = header.name.utf8.allSatisfy { $0 < 0x41 || $0 > 0x5A }
            fields.append((lowercase ? header.name : header.name.lowercased(), header.value))
        }
        if request.method == "POST" { fields.append(("content-length", String(request.body.count))) }
        let stream = Stream(requestBody: request.body)
        let streamID: Int32 = Self.withNameValues(fields) { nvs in
            if request.method == "POST" || !request.body.isEmpty {
                var provider = nghttp2_data_provider()
                provider.read_callback = { _, streamID, buffer, length, flags, _, user in
                    guard let user, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                    let connection = Unmanaged<HTTP2ClientConnection>.fromOpaque(user).takeUnretainedValue()
                    guard let stream = connection.streams[streamID] else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
                    let count = min(length, stream.requestBody.count - stream.bodyOffset)
                    if count > 0 {
                        stream.requestBody.withUnsafeBufferPointer { source in
                            buffer.update(from: source.baseAddress! + stream.bodyOffset, count: count)
                        }
                    }
                    stream.bodyOffset += count
                    if stream.bodyOffset >= stream.requestBody.count {
                        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                        stream.requestBody = []
                        stream.bodyOffset = 0
                    }
                    return count
                }
                return nghttp2_submit_request(session, nil, nvs.baseAddress, nvs.count, &provider, nil)
            }
            return nghttp2_submit_request(session, nil, nvs.baseAddress, nvs.count, nil, nil)
        }
        guard streamID > 0 else {
            return .failure(HTTP2ClientError("nghttp2 refused the request: \(String(cString: nghttp2_strerror(streamID)))"))
        }
        streams[streamID] = stream
        return .success(streamID)
    }

    func cancel(streamID: Int32) {
        guard let session else { return }
        streams[streamID]?.answered = true   // ended already; no report on close
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    func ping() {
        guard let session else { return }
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    // MARK: I/O

    /// The epoll events this connection waits for.
    var wantedEvents: UInt32 {
        switch phase {
        case .closed: return 0
        case .tcp: return EPOLLOUT.rawValue
        case .proxy: return EPOLLIN.rawValue | (outputOffset < output.count ? EPOLLOUT.rawValue : 0)
        case .tls: return EPOLLIN.rawValue | (handshakeWantsWrite ? EPOLLOUT.rawValue : 0)
        case .h2:
            var events = EPOLLIN.rawValue
            if outputOffset < output.count || (session.map { nghttp2_session_want_write($0) != 0 } ?? false) {
                events |= EPOLLOUT.rawValue
            }
            return events
        }
    }

    /// Handles readiness from epoll.
    func handle(events: UInt32) {
        switch phase {
        case .closed: return
        case .tcp:
            tcpConnected()
        case .proxy:
            if events & EPOLLOUT.rawValue != 0 { _ = writeOutput() }
            if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { proxyReadable() }
        case .tls:
            handshake()
        case .h2:
            if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readAvailable() }
            if failure == nil { flush() }
        }
    }

    private func readAvailable() {
        guard let session else { return }
        var heard = false
        while failure == nil {
            let n: Int = readBuffer.withUnsafeMutableBytes { buffer in
                if let ssl {
                    let r = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                    if r > 0 { return Int(r) }
                    switch SSL_get_error(ssl, r) {
                    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return -1
                    case SSL_ERROR_ZERO_RETURN: return 0
                    default: ERR_clear_error(); return 0
                    }
                }
                let r = recv(fd, buffer.baseAddress, buffer.count, 0)
                if r > 0 { return r }
                if r < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                return 0
            }
            if n < 0 { break }
            if n == 0 { fail("the server closed the connection"); break }
            if !heard { heard = true; delegate.connectionHeard(self) }
            let rv = readBuffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, n) }
            if rv < 0 {
                fail("HTTP/2 protocol error from the server: \(String(cString: nghttp2_strerror(Int32(rv))))")
                break
            }
            if n < readBuffer.count && ssl == nil { break }
        }
    }

    /// Moves nghttp2's output to the socket until it would block.
    func flush() {
        guard phase == .h2, let session, failure == nil else { return }
        while true {
            guard writeOutput() else { return }
            if outputOffset < output.count { return }
            while output.count < 64 * 1024 {
                var data: UnsafePointer<UInt8>?
                let n = nghttp2_session_mem_send(session, &data)
                if n < 0 { fail("nghttp2: \(String(cString: nghttp2_strerror(Int32(n))))"); return }
                if n == 0 { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
            }
            if output.isEmpty { break }
        }
        if nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0, output.isEmpty {
            fail("the server ended the HTTP/2 session (GOAWAY)")
        }
    }

    /// Writes pending output; false on a fatal error (recorded in ``failure``).
    private func writeOutput() -> Bool {
        while outputOffset < output.count {
            let n: Int = output.withUnsafeBytes { bytes in
                let start = bytes.baseAddress! + outputOffset
                let length = bytes.count - outputOffset
                if let ssl, phase == .h2 {
                    let r = SSL_write(ssl, start, Int32(min(length, Int(Int32.max))))
                    if r > 0 { return Int(r) }
                    switch SSL_get_error(ssl, r) {
                    case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return -1
                    default: ERR_clear_error(); return -2
                    }
                }
                let r = send(fd, start, length, Int32(MSG_NOSIGNAL))
                if r >= 0 { return r }
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
                return -2
            }
            if n == -2 { fail("cannot write to \(origin.authority): the connection broke"); return false }
            if n == -1 { return true }
            outputOffset += n
        }
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
        return true
    }

    private func fail(_ message: String) {
        if failure == nil { failure = message }
    }

    /// Sends GOAWAY when the session is up (best effort), then frees everything. Idempotent.
    func close(graceful: Bool = false) {
        guard phase != .closed else { return }
        if graceful, let session, failure == nil {
            _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
            var data: UnsafePointer<UInt8>?
            while true {
                let n = nghttp2_session_mem_send(session, &data)
                if n <= 0 { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: n))
            }
            _ = writeOutput()
        }
        phase = .closed
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        streams.removeAll()
        closeDescriptor()
    }

    private func closeDescriptor() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }

    /// Calls `body` with nghttp2 name/value pairs pointing into stable copies of the strings.
    private static func withNameValues<R>(_ fields: [(String, String)], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> R) -> R {
        var total = 0
        for (name, value) in fields { total += name.utf8.count + value.utf8.count }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, total))
        let nvs = UnsafeMutableBufferPointer<nghttp2_nv>.allocate(capacity: fields.count)
        defer { storage.deallocate(); nvs.deallocate() }
        var offset = 0
        for (i, (name, value)) in fields.enumerated() {
            let namePointer = storage + offset
            for byte in name.utf8 { storage[offset] = byte; offset += 1 }
            let valuePointer = storage + offset
            for byte in value.utf8 { storage[offset] = byte; offset += 1 }
            nvs[i] = nghttp2_nv(name: namePointer, value: valuePointer, namelen: name.utf8.count, valuelen: value.utf8.count,
                                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return body(nvs)
    }
}
