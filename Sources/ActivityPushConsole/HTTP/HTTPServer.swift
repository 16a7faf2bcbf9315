import CMicroHTTPD
import Foundation
import Synchronization

/// A small HTTP/1.1 server on libmicrohttpd: one listening thread plus one thread per connection, each request
/// read whole (bodies over ``maxBodyBytes`` are discarded and flagged), then handed to an async handler.
///
/// Bad peers cannot lock it out: the whole request head must arrive within ``headDeadlineSeconds`` of the
/// connection opening and the whole request within ``requestDeadlineSeconds`` (a deadline, not an idle timer that
/// each trickled byte resets; ``RequestDeadlines``); one IP address holds at most ``perClientConnectionLimit``
/// connections; a `Content-Length` over ``maxBodyBytes``, one that is not a number, two that disagree, or one
/// next to `Transfer-Encoding` is refused (413 / 400) before any body byte is read.
///
/// The handler runs as a Swift task while the connection's thread waits for it, so a slow handler (a push
/// being sent) holds only its own connection. Call ``stop()`` to close the socket and join every thread.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// The address given (`127.0.0.1`, `::1`, `0.0.0.0`…).
    public let host: String
    /// The port bound (the kernel's choice when 0 was asked).
    public var port: Int { boundPort.load(ordering: .acquiring) }
    private let boundPort = Atomic<Int>(0)
    public let maxBodyBytes: Int
    /// Connections one IP address may hold at once; more are closed on accept.
    public let perClientConnectionLimit: Int
    /// Seconds a connection has for its whole request head (from opening, or from the previous answer).
    public let headDeadlineSeconds: Double
    /// Seconds a connection has for its whole request, body included.
    public let requestDeadlineSeconds: Double
    let handler: Handler
    /// The running libmicrohttpd daemon as its address (a C handle owned by this server); 0 once stopped, so
    /// ``stop()`` stops it exactly once.
    private let daemonAddress = Atomic<UInt>(0)
    /// Set by ``stop()``; the deadline watcher thread ends at its next tick.
    private let stopping = Atomic<Bool>(false)
    let deadlines: Mutex<RequestDeadlines>

    /// Binds and starts serving.
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 address, or `localhost` (127.0.0.1).
    ///   - port: 0 picks a free port (read ``port`` afterwards).
    ///   - maxBodyBytes: a larger declared `Content-Length` is refused with 413 before the body is read; a larger
    ///     body sent without one is not kept (the handler sees ``HTTPRequest/bodyTooLarge``).
    ///   - connectionLimit: connections open at once (each has its own thread).
    ///   - perClientConnectionLimit: connections one IP address may hold at once.
    ///   - headDeadlineSeconds, requestDeadlineSeconds: see ``RequestDeadlines``; an overdue connection is closed.
    /// - Throws: ``HTTPServerError`` when the address is not numeric or cannot be bound.
    public init(host: String, port: Int, maxBodyBytes: Int = 64 * 1024, connectionLimit: Int = 512,
                perClientConnectionLimit: Int = 32, headDeadlineSeconds: Double = 10,
                requestDeadlineSeconds: Double = 30,
                handler: @escaping Handler) throws(HTTPServerError) {
        self.host = host
        self.maxBodyBytes = maxBodyBytes
        self.perClientConnectionLimit = perClientConnectionLimit
        self.headDeadlineSeconds = headDeadlineSeconds
        self.requestDeadlineSeconds = requestDeadlineSeconds
        self.deadlines = Mutex(RequestDeadlines(headSeconds: headDeadlineSeconds, requestSeconds: requestDeadlineSeconds))
        self.handler = handler
        guard (0...65535).contains(port) else { throw HTTPServerError(.badPort, option: "--port", host: host, port: port, "port \(port) is out of range",
                                  fix: "use 0-65535") }
        let cls = Unmanaged.passUnretained(self).toOpaque()
        var started: OpaquePointer?
        if let v4 = Self.ipv4(host, port: port) {
            var address = v4
            started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    ap_mhd_start($0, 0, UInt32(connectionLimit), UInt32(perClientConnectionLimit), 30, accessHandler, cls,
                                 completedHandler, cls, connectionHandler, cls)
                }
            }
        } else if let v6 = Self.ipv6(host, port: port) {
            var address = v6
            started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    ap_mhd_start($0, 1, UInt32(connectionLimit), UInt32(perClientConnectionLimit), 30, accessHandler, cls,
                                 completedHandler, cls, connectionHandler, cls)
                }
            }
        } else {
            throw HTTPServerError.notNumeric(host: host)
        }
        guard let started else {
            throw HTTPServerError(.cannotListen, option: "--port", host: host, port: port,
                                  "cannot listen on \(host) port \(port): the port is in use or the address is not on this machine",
                                  fix: "pick another --port (0 picks a free one)")
        }
        boundPort.store(Int(ap_mhd_bound_port(started)), ordering: .releasing)
        daemonAddress.store(UInt(bitPattern: started), ordering: .releasing)
        startDeadlineWatcher()
    }

    /// Monotonic seconds for the deadlines.
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Every 100 ms: shuts down the sockets of connections past their deadline (libmicrohttpd then sees the
    /// peer gone and closes the connection; its thread ends). Done under the lock that the close notification
    /// also takes, so a socket number is never shut after libmicrohttpd has closed and reused it. Its own thread
    /// (not the concurrency pool, which busy handlers may hold), ending within a tick of ``stop()``.
    private func startDeadlineWatcher() {
        let watcher = Thread { [weak self] in
            while true {
                usleep(100_000)
                guard let server = self, !server.stopping.load(ordering: .acquiring) else { return }
                server.deadlines.withLock { state in
                    for socket in state.overdue(at: HTTPServer.now()) { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
                }
            }
        }
        watcher.name = "console-deadlines"
        watcher.start()
    }

    deinit { stop() }

    /// `http://host:port` (IPv6 in brackets).
    public var url: String {
        let authority = host.contains(":") ? "[\(host)]" : host
        return "http://\(authority):\(port)"
    }

    /// Stops listening and waits for every connection thread. Idempotent.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        let address = daemonAddress.exchange(0, ordering: .acquiringAndReleasing)
        if let daemon = OpaquePointer(bitPattern: address) { MHD_stop_daemon(daemon) }
    }

    /// True for a numeric IPv4 or IPv6 address, or `localhost`.
    public static func isNumeric(_ host: String) -> Bool { ipv4(host, port: 0) != nil || ipv6(host, port: 0) != nil }

    /// True for 127.0.0.0/8, ::1 and `localhost`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        if let address = ipv4(host, port: 0) { return (UInt32(bigEndian: address.sin_addr.s_addr) >> 24) == 127 }
        if host.lowercased().hasPrefix("::ffff:127.") { return true }
        return false
    }

    static func ipv4(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        let numeric = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, numeric, &address.sin_addr) == 1 else { return nil }
        return address
    }

    static func ipv6(_ host: String, port: Int) -> sockaddr_in6? {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        var numeric = host
        if numeric.hasPrefix("["), numeric.hasSuffix("]") { numeric = String(numeric.dropFirst().dropLast()) }
        guard inet_pton(AF_INET6, numeric, &address.sin6_addr) == 1 else { return nil }
        return address
    }

    /// Runs the async handler and waits for it on the calling (libmicrohttpd connection) thread.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let box = ResponseBox()
        let done = DispatchSemaphore(value: 0)
        let handler = self.handler
        Task.detached {
            box.set(await handler(request))
            done.signal()
        }
        done.wait()
        return box.get() ?? HTTPResponse.text(500, "internal error\n")
    }
}

/// Hands a response from the handler task to the waiting connection thread.
private final class ResponseBox: Sendable {
    private let value = Mutex<HTTPResponse?>(nil)
    func set(_ response: HTTPResponse) { value.withLock { $0 = response } }
    func get() -> HTTPResponse? { value.withLock { $0 } }
}

/// One request being read: its body so far, its query arguments and headers.
private final class RequestState {
    var body: [UInt8] = []
    var tooLarge = false
    /// Answered from the head alone (a refused `Content-Length`); any body is not read.
    var refused = false
    var query: [String: String] = [:]
    var headers: [String: String] = [:]
    /// Every `Content-Length` field as sent (a request may carry several).
    var contentLengths: [String] = []
}

private let collectFraming: MHD_KeyValueIterator = { cls, _, key, value in
    if let cls, let key {
        let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
        let name = String(cString: key).lowercased()
        if name == "content-length" { state.contentLengths.append(value.map { String(cString: $0) } ?? "") }
        if name == "transfer-encoding" { state.headers[name] = value.map { String(cString: $0) } ?? "" }
    }
    return ap_mhd_yes()
}

private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    if let cls, let key {
        let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
        state.headers[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
    }
    return ap_mhd_yes()
}

private let collectQuery: MHD_KeyValueIterator = { cls, _, key, value in
    if let cls, let key {
        let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
        let name = String(cString: key)
        if state.query[name] == nil { state.query[name] = value.map { String(cString: $0) } ?? "" }
    }
    return ap_mhd_yes()
}

/// libmicrohttpd calls this once when the headers arrive, once per body chunk, and once when the body is complete.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let conCls, let uploadDataSize else { return ap_mhd_no() }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let connectionKey = UInt(bitPattern: connection)
    guard let raw = conCls.pointee else {
        // First call: the head is complete. Refuse a declared body that is impossible, ambiguous or too large
        // before reading any of it.
        server.deadlines.withLock { $0.headReceived(connectionKey) }
        let state = RequestState()
        let stateRaw = Unmanaged.passRetained(state).toOpaque()
        conCls.pointee = stateRaw
        _ = ap_mhd_each_header(connection, collectFraming, stateRaw)
        if let refusal = BodyFraming.refusal(contentLengths: state.contentLengths,
                                             transferEncoding: state.headers["transfer-encoding"],
                                             maxBodyBytes: server.maxBodyBytes) {
            state.refused = true
            server.deadlines.withLock { $0.requestReceived(connectionKey) }
            return queue(refusal, on: connection)
        }
        return ap_mhd_yes()
    }
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
    if state.refused {
        uploadDataSize.pointee = 0
        return ap_mhd_yes()
    }
    let chunkBytes = uploadDataSize.pointee
    if chunkBytes > 0 {
        if !state.tooLarge, let uploadData {
            if state.body.count + chunkBytes > server.maxBodyBytes {
                state.tooLarge = true
                state.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: chunkBytes) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: chunkBytes))
                }
            }
        }
        uploadDataSize.pointee = 0
        return ap_mhd_yes()
    }
    server.deadlines.withLock { $0.requestReceived(connectionKey) }
    _ = ap_mhd_each_header(connection, collectHeader, raw)
    _ = ap_mhd_each_query(connection, collectQuery, raw)
    let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET",
                              path: url.map { String(cString: $0) } ?? "/",
                              query: state.query, headers: state.headers, body: state.body,
                              bodyTooLarge: state.tooLarge)
    return queue(server.respond(to: request), on: connection)
}

/// Hands a response to libmicrohttpd (body and headers copied).
private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    var names = response.headers.map { strdup($0.name) }
    var values = response.headers.map { strdup($0.value) }
    defer {
        names.forEach { free($0) }
        values.forEach { free($0) }
    }
    let ok = names.withUnsafeMutableBufferPointer { np in
        values.withUnsafeMutableBufferPointer { vp in
            response.body.withUnsafeBytes { body in
                np.withMemoryRebound(to: UnsafePointer<CChar>?.self) { npc in
                    vp.withMemoryRebound(to: UnsafePointer<CChar>?.self) { vpc in
                        ap_mhd_respond(connection, UInt32(response.status), body.baseAddress, body.count,
                                       npc.baseAddress, vpc.baseAddress, response.headers.count)
                    }
                }
            }
        }
    }
    return ok == 1 ? ap_mhd_yes() : ap_mhd_no()
}

/// Releases the per-request state when the request ends (answered, timed out or the client went away); a
/// kept-alive connection's next request head starts its deadline now.
private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
    if let cls, let connection {
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        server.deadlines.withLock { $0.answered(UInt(bitPattern: connection), at: HTTPServer.now()) }
    }
    guard let conCls, let raw = conCls.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(raw).release()
    conCls.pointee = nil
}

/// Watches each connection from its start to its close for the request deadlines.
private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let key = UInt(bitPattern: connection)
    if ap_mhd_notify_started(code) != 0 {
        let socket = ap_mhd_connection_fd(connection)
        server.deadlines.withLock { $0.opened(key, socket: socket, at: HTTPServer.now()) }
    } else {
        server.deadlines.withLock { $0.closed(key) }
    }
}
