import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's one I/O thread: accepts connections and drives every `HTTP2Connection` with `poll(2)`,
/// and fires delayed answers (fault injection) from a timer list.
///
/// Thread-safety (`@unchecked Sendable`): the connection table, timers and sockets are touched only by the loop
/// thread. Other threads only call `stop()`, which sets an atomic-by-lock flag and writes to the wake pipe.
final class EventLoop: @unchecked Sendable {
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let tls: TLSContext?
    private let handler: @Sendable (MockRequest) -> MockResponse
    private let onConnectionClosed: @Sendable (Int) -> Void
    let initialMaxConcurrentStreams: Int
    let maxConcurrentStreams: Int

    private var connections: [Int: HTTP2Connection] = [:]
    private var nextConnectionID = 1
    private var timers: [(due: UInt64, connectionID: Int, streamID: Int32, response: MockResponse)] = []

    private let stopLock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    init(listenFD: Int32, tls: TLSContext?, initialMaxConcurrentStreams: Int, maxConcurrentStreams: Int,
         handler: @escaping @Sendable (MockRequest) -> MockResponse,
         onConnectionClosed: @escaping @Sendable (Int) -> Void) throws {
        self.listenFD = listenFD
        self.tls = tls
        self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        self.maxConcurrentStreams = maxConcurrentStreams
        self.handler = handler
        self.onConnectionClosed = onConnectionClosed
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw MockAPNsError.socket("pipe() failed: \(String(cString: strerror(errno)))") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        setNonBlocking(wakeRead)
        setNonBlocking(wakeWrite)
    }

    /// Starts the loop on its own thread.
    func start() {
        let thread = Thread { [self] in
            self.run()
            self.finished.signal()
        }
        thread.name = "mock-apns"
        thread.start()
    }

    /// Stops accepting, closes every connection and waits for the loop thread to end. Idempotent.
    func stop() {
        stopLock.lock()
        let already = stopping
        stopping = true
        stopLock.unlock()
        guard !already else { return }
        var b: UInt8 = 1
        _ = write(wakeWrite, &b, 1)
        finished.wait()
        closeSocket(wakeRead)
        closeSocket(wakeWrite)
    }

    private var isStopping: Bool {
        stopLock.lock(); defer { stopLock.unlock() }
        return stopping
    }

    private func run() {
        var pfds: [pollfd] = []
        var order: [HTTP2Connection] = []
        while !isStopping {
            pfds.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            pfds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0))
            pfds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for c in connections.values {
                var ev: Int16 = 0
                if c.wantsRead { ev |= Int16(POLLIN) }
                if c.wantsWrite { ev |= Int16(POLLOUT) }
                pfds.append(pollfd(fd: c.fd, events: ev, revents: 0))
                order.append(c)
            }
            var timeout: Int32 = -1
            if let next = timers.map(\.due).min() {
                let now = monotonicMilliseconds()
                timeout = next <= now ? 0 : Int32(min(next - now, 60_000))
            }
            let r = poll(&pfds, nfds_t(pfds.count), timeout)
            if r < 0 && errno != EINTR { break }
            if isStopping { break }
            if pfds[1].revents != 0 {
                var buf = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buf, buf.count) > 0 {}
            }
            for (i, c) in order.enumerated() {
                let rev = pfds[i + 2].revents
                guard rev != 0, !c.closed else { continue }
                if rev & Int16(POLLIN) != 0 || rev & Int16(POLLHUP) != 0 || rev & Int16(POLLERR) != 0 { c.onReadable() }
                if !c.closed, rev & Int16(POLLOUT) != 0 { c.onWritable() }
            }
            fireTimers()
            if pfds[0].revents & Int16(POLLIN) != 0 { acceptAll() }
            reap()
        }
        for c in connections.values { c.close() }
        for id in connections.keys { onConnectionClosed(id) }
        connections.removeAll()
        timers.removeAll()
        closeSocket(listenFD)
    }

    private func acceptAll() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 { return }
            setNonBlocking(fd)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let id = nextConnectionID
            nextConnectionID += 1
            do {
                let c = try HTTP2Connection(id: id, fd: fd, tls: tls, loop: self)
                connections[id] = c
                c.afterIO()  // send the server preface (SETTINGS) now; TLS sends it after the handshake
            } catch {
                closeSocket(fd)
            }
        }
    }

    private func reap() {
        for (id, c) in connections where c.closed {
            connections[id] = nil
            onConnectionClosed(id)
        }
    }

    /// Called from nghttp2's frame callback: a request is complete. Answers now or after the fault delay.
    func dispatch(_ request: MockRequest, connection: HTTP2Connection, streamID: Int32) {
        let response = handler(request)
        if response.delayMilliseconds > 0 {
            var later = response
            later.delayMilliseconds = 0
            timers.append((monotonicMilliseconds() + UInt64(response.delayMilliseconds), connection.id, streamID, later))
        } else {
            connection.submit(response, streamID: streamID)
        }
    }

    private func fireTimers() {
        guard !timers.isEmpty else { return }
        let now = monotonicMilliseconds()
        let due = timers.filter { $0.due <= now }
        timers.removeAll { $0.due <= now }
        for t in due {
            guard let c = connections[t.connectionID], !c.closed else { continue }
            c.submit(t.response, streamID: t.streamID)
            if c.dropRequested { c.close() } else { c.afterIO() }
        }
    }
}

func monotonicMilliseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
}

func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL, 0)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
}

func closeSocket(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}

/// Binds and listens on `host:port` (port 0: the kernel picks one). Returns the socket and the bound port.
func listenSocket(host: String, port: Int) throws -> (fd: Int32, port: Int) {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
    hints.ai_socktype = SOCK_STREAM
    #endif
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    var res: UnsafeMutablePointer<addrinfo>?
    let lookupHost = host == "localhost" ? "127.0.0.1" : host
    let rc = getaddrinfo(lookupHost, String(port), &hints, &res)
    guard rc == 0, let first = res else {
        throw MockAPNsError.socket("cannot resolve host '\(host)': \(String(cString: gai_strerror(rc))); use an IP address such as 127.0.0.1")
    }
    defer { freeaddrinfo(res) }
    var lastError = ""
    var ai: UnsafeMutablePointer<addrinfo>? = first
    while let a = ai {
        ai = a.pointee.ai_next
        let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
        if fd < 0 { lastError = String(cString: strerror(errno)); continue }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) != 0 || listen(fd, 1024) != 0 {
            lastError = String(cString: strerror(errno))
            closeSocket(fd)
            continue
        }
        setNonBlocking(fd)
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound: Int = withUnsafeMutablePointer(to: &storage) { sp in
            sp.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &len) }
            if sp.pointee.ss_family == sa_family_t(AF_INET6) {
                return sp.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return sp.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return (fd, bound)
    }
    throw MockAPNsError.socket("cannot listen on \(host):\(port): \(lastError); pick another --port or 0 for any free port")
}
