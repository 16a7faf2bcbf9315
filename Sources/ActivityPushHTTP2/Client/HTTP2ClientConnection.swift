import CEpoll
import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a client connection reports to its loop. Every call happens on the loop thread.
protocol HTTP2ClientConnectionDelegate: AnyObject {
    /// The host is a name: resolve it off the loop and call ``HTTP2ClientConnection/resolved(_:)``.
    func connectionNeedsResolution(_ connection: HTTP2ClientConnection, host: String, port: Int)
    func connectionEstablished(_ connection: HTTP2ClientConnection)
    /// The peer's SETTINGS preface arrived: it speaks HTTP/2.
    func connectionConfirmed(_ connection: HTTP2ClientConnection)
    /// The answer on the stream is malformed; the connection has reset the stream (PROTOCOL_ERROR).
    func connection(_ connection: HTTP2ClientConnection, malformed streamID: Int32, message: String)
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
    /// The constant request fields (`:scheme`, `:authority`, …), encoded once.
    private let headerEncoder: HTTP2RequestHeaderEncoder
    private(set) var fd: Int32 = -1
    private unowned let delegate: HTTP2ClientConnectionDelegate
    private let tls: ClientTLSContext?
    private let proxy: HTTP2Origin?
    /// `Proxy-Authorization` value for CONNECT (`Basic …`), from the proxy URL's userinfo.
    private let proxyAuthorization: String?

    private enum Phase { case resolving, tcp, proxy, tls, h2, closed }
    private var phase = Phase.resolving
    private var addresses: [HTTP2ResolvedAddress] = []
    /// The peer's SETTINGS preface arrived.
    private var confirmed = false
    private var addressIndex = 0
    private var ssl: OpaquePointer?
    private var session: HTTP2Session?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var proxyReply: [UInt8] = []
    private var handshakeWantsWrite = true
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Set when the connection failed; the loop settles it after the current call returns (never inside an
    /// nghttp2 callback, where freeing the session is undefined).
    private(set) var failure: String?

    private final class Stream {
        var status = 0
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var answered = false
        /// A `:status` that is not three digits 100–599 (RFC 9110 §15, RFC 9113 §8.3.2).
        var malformedStatus: String?
    }
    private var streams: [Int32: Stream] = [:]

    init(id: Int, origin: HTTP2Origin, tls: ClientTLSContext?, proxy: HTTP2Origin?, proxyAuthorization: String?,
         delegate: HTTP2ClientConnectionDelegate) {
        self.id = id
        self.origin = origin
        self.headerEncoder = HTTP2RequestHeaderEncoder(scheme: origin.scheme, authority: origin.authority)
        self.tls = tls
        self.proxy = proxy
        self.proxyAuthorization = proxyAuthorization
        self.delegate = delegate
    }

    // MARK: Connect

    /// Starts connecting: a numeric host's address at once, a name through the loop's resolver (off the loop
    /// thread; ``resolved(_:)`` continues), then a non-blocking connect to each address in turn (IPv4 and IPv6).
    func connect() {
        let target = proxy ?? origin
        if let numeric = HTTP2Resolver.numeric(host: target.host, port: target.port) {
            resolved(.success(numeric))
        } else {
            delegate.connectionNeedsResolution(self, host: target.host, port: target.port)
        }
    }

    /// The resolver's answer for the host (ignored unless the connection is still waiting for it).
    func resolved(_ result: Result<[HTTP2ResolvedAddress], HTTP2ClientError>) {
        guard phase == .resolving else { return }
        switch result {
        case .failure(let error):
            fail(error.message)
        case .success(let list):
            guard !list.isEmpty else { fail("cannot resolve \((proxy ?? origin).host): no address"); return }
            addresses = list
            phase = .tcp
            tryNextAddress(previousError: "no address")
        }
    }

    private func tryNextAddress(previousError: String) {
        let target = proxy ?? origin
        while addressIndex < addresses.count {
            let family = addresses[addressIndex].family
            let address = addresses[addressIndex].socketAddress
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
            var request = "CONNECT \(origin.authority) HTTP/1.1\r\nHost: \(origin.authority)\r\n"
            if let proxyAuthorization { request += "Proxy-Authorization: \(proxyAuthorization)\r\n" }
            request += "\r\n"
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
        let created: HTTP2Session
        do { created = try HTTP2Session(role: .client) } catch { fail("nghttp2: \(error)"); return }
        created.delegate = self
        created.submitSettings([HTTP2Setting(.enablePush, 0), HTTP2Setting(.initialWindowSize, 1 << 20)])
        session = created
        phase = .h2
        delegate.connectionEstablished(self)
        flush()
    }

    /// Submits a request; returns its stream id, or a message when nghttp2 refuses it.
    func submit(_ request: HTTP2Request) -> Result<Int32, HTTP2ClientError> {
        guard phase == .h2, let session else { return .failure(HTTP2ClientError(.notReady, "the connection is not ready")) }
        let hasBody = request.method == "POST" || !request.body.isEmpty
        let streamID = headerEncoder.withNameValues(of: request) { session.submitRequest(nameValues: $0, body: hasBody ? request.body : nil) } ?? -1
        guard streamID > 0 else {
            return .failure(HTTP2ClientError(.streamRefused, "nghttp2 refused the request (stream ids exhausted or the session is going away)"))
        }
        streams[streamID] = Stream()
        return .success(streamID)
    }

    func cancel(streamID: Int32) {
        guard let session else { return }
        streams[streamID]?.answered = true   // ended already; no report on close
        session.submitReset(streamID: streamID, errorCode: .cancel)
    }

    func ping() {
        guard let session else { return }
        session.submitPing()
    }

    // MARK: I/O

    /// The epoll events this connection waits for.
    var wantedEvents: UInt32 {
        switch phase {
        case .closed, .resolving: return 0
        case .tcp: return EPOLLOUT.rawValue
        case .proxy: return EPOLLIN.rawValue | (outputOffset < output.count ? EPOLLOUT.rawValue : 0)
        case .tls: return EPOLLIN.rawValue | (handshakeWantsWrite ? EPOLLOUT.rawValue : 0)
        case .h2:
            var events = EPOLLIN.rawValue
            if outputOffset < output.count || (session?.wantsWrite ?? false) {
                events |= EPOLLOUT.rawValue
            }
            return events
        }
    }

    /// Handles readiness from epoll.
    func handle(events: UInt32) {
        switch phase {
        case .closed, .resolving: return
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
            if n == 0 {
                fail(confirmed ? "the server closed the connection"
                               : "\(origin.authority) closed the connection before it sent an HTTP/2 frame; nothing was processed")
                break
            }
            if !heard { heard = true; delegate.connectionHeard(self) }
            let accepted = readBuffer.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            if !accepted {
                if confirmed {
                    fail("HTTP/2 protocol error from the server")
                } else {
                    let http1 = n >= 7 && readBuffer[0..<7].elementsEqual("HTTP/1.".utf8)
                    fail("\(origin.authority) sent no valid HTTP/2 frame" + (http1 ? " (it answered HTTP/1.x)" : "")
                         + "; nothing was processed. APNs (and mock-apns) speak HTTP/2 only — check --url")
                }
                break
            }
            if n < readBuffer.count && ssl == nil { break }
        }
    }

    /// Moves nghttp2's output to the socket until it would block.
    func flush() {
        guard phase == .h2, let session, failure == nil else { return }
        while true {
            guard writeOutput(deferFailure: true) else {
                // The peer closed while we wrote. What it sent before closing (a GOAWAY naming what it processed,
                // its last answers) may still be in the receive buffer: read it first, so streams above the
                // GOAWAY's last-stream-id end "refused", not "may have been processed".
                let message = writeFailure ?? "the connection broke"
                readAvailable()
                fail(message)
                return
            }
            if outputOffset < output.count { return }
            guard session.collectOutput(into: &output, limit: 64 * 1024) else { fail("nghttp2: fatal session error"); return }
            if output.isEmpty { break }
        }
        if !session.wantsRead, !session.wantsWrite, output.isEmpty {
            fail("the server ended the HTTP/2 session (GOAWAY)")
        }
    }

    private var writeFailure: String?

    /// Writes pending output; false on a fatal error (recorded in ``failure``, or only in `writeFailure` when
    /// `deferFailure`: the caller reads first).
    private func writeOutput(deferFailure: Bool = false) -> Bool {
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
            if n == -2 {
                let message = "cannot write to \(origin.authority): the connection broke"
                if deferFailure { writeFailure = message } else { fail(message) }
                return false
            }
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
            session.submitGoaway(lastStreamID: session.lastProcessedStreamID, errorCode: .noError)
            _ = session.collectOutput(into: &output, limit: 64 * 1024)
            _ = writeOutput()
        }
        phase = .closed
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

    /// Three ASCII digits 100–599 (RFC 9110 §15: a status code is three digits, the first 1–5).
    static func status(_ text: String) -> Int? {
        let digits = Array(text.utf8)
        guard digits.count == 3, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let value = Int(digits[0] - 48) * 100 + Int(digits[1] - 48) * 10 + Int(digits[2] - 48)
        return (100...599).contains(value) ? value : nil
    }
}

extension HTTP2ClientConnection: HTTP2SessionDelegate {
    func session(_ session: HTTP2Session, beginsHeadersOn streamID: Int32, isRequest: Bool) {}

    func session(_ session: HTTP2Session, receivedHeader header: HTTP2Header, on streamID: Int32) {
        guard let stream = streams[streamID] else { return }
        if header.name == ":status" {
            if let status = Self.status(header.value) {
                stream.status = status
            } else if stream.malformedStatus == nil {
                stream.malformedStatus = header.value
                stream.answered = true   // settled here, not as an unanswered close
                session.submitReset(streamID: streamID, errorCode: .protocolError)
                delegate.connection(self, malformed: streamID,
                                    message: ":status \"\(header.value.prefix(16))\" is not a status code 100–599 (RFC 9110 §15); the stream was reset with PROTOCOL_ERROR")
            }
        }
        else if stream.headers.count < 256 { stream.headers[header.name] = header.value }
    }

    func session(_ session: HTTP2Session, receivedData bytes: UnsafeBufferPointer<UInt8>, on streamID: Int32) {
        guard let stream = streams[streamID], stream.body.count < 1 << 20 else { return }
        stream.body.append(contentsOf: bytes)
    }

    func session(_ session: HTTP2Session, received frame: HTTP2FrameSummary) {
        switch frame.type {
        case .headers, .data:
            guard frame.endsStream, let stream = streams[frame.streamID], !stream.answered, stream.status >= 200 else { return }
            stream.answered = true
            delegate.connection(self, answered: frame.streamID,
                                response: HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body))
            stream.body = []
        case .settings:
            if !frame.isAcknowledgement, !confirmed {
                confirmed = true
                delegate.connectionConfirmed(self)
            }
            guard !frame.isAcknowledgement, frame.settings.contains(where: { $0.id == .maxConcurrentStreams }) else { return }
            delegate.connection(self, settingsMaxConcurrentStreams: Int(session.peerMaxConcurrentStreams))
        case .goaway:
            delegate.connection(self, goawayLastStreamID: frame.lastStreamID)
        case .rstStream:
            delegate.connectionReceivedReset(self)
        default:
            break
        }
    }

    func session(_ session: HTTP2Session, sent frame: HTTP2FrameSummary) {
        if frame.type == .headers { delegate.connection(self, wroteRequestOn: frame.streamID) }
    }

    func session(_ session: HTTP2Session, closed streamID: Int32, errorCode: HTTP2ErrorCode) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if !stream.answered { delegate.connection(self, closedUnanswered: streamID, errorCode: errorCode.rawValue) }
    }
}
