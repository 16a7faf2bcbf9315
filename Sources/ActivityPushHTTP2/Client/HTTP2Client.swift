import CEpoll
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The result of one request: the server's response, or why there is none.
package typealias HTTP2ClientResult = Result<HTTP2Response, HTTP2StreamFailure>

/// An HTTP/2 client on libnghttp2 and OpenSSL: one event-loop thread (epoll) drives every connection; one
/// ``HTTP2PoolScheduler`` per origin decides which request goes on which stream of which connection.
/// `https://` URLs use TLS with ALPN `h2` (through the HTTPS proxy when configured); `http://` URLs speak
/// cleartext HTTP/2 with prior knowledge and reuse their connection like TLS ones.
///
/// Every request gets exactly one result, within its deadline. ``shutdown()`` lets queued and in-flight requests
/// finish, then closes the connections (GOAWAY) and ends the thread.
package final class HTTP2Client: Sendable {
    package let configuration: HTTP2ClientConfiguration
    private let shared: HTTP2ClientShared

    /// - Throws: ``HTTP2ClientError`` when the CA file cannot be loaded or the event loop cannot be made.
    package init(configuration: HTTP2ClientConfiguration) throws(HTTP2ClientError) {
        self.configuration = configuration
        // OpenSSL writes to the socket itself (SSL_set_fd), without MSG_NOSIGNAL: a peer that closes mid-write
        // would raise SIGPIPE and kill the process (`send` died with exit 141 under abrupt GOAWAYs). Ignored
        // process-wide, as mock-apns does; the write then fails with EPIPE and the streams end with their outcome.
        signal(SIGPIPE, SIG_IGN)
        _ = try ClientTLSContext(caFile: configuration.caFile)   // a bad CA file fails here, not per request
        let shared = try HTTP2ClientShared()
        self.shared = shared
        let thread = Thread {
            let loop = HTTP2ClientLoop(configuration: configuration, shared: shared)
            loop.run()
        }
        thread.name = "apns-h2"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues a request; `completion` runs exactly once, on the loop thread (keep it short).
    package func submit(_ request: HTTP2Request, completion: @escaping @Sendable (HTTP2ClientResult) -> Void) {
        shared.submit(HTTP2ClientJob(request: request, completion: completion))
    }

    /// Sends one request and waits for its one result.
    package func send(_ request: HTTP2Request) async -> HTTP2ClientResult {
        // Unsafe (unchecked) continuation: the loop resumes each exactly once (one result per request).
        await withUnsafeContinuation { (continuation: UnsafeContinuation<HTTP2ClientResult, Never>) in
            submit(request) { continuation.resume(returning: $0) }
        }
    }

    /// Counters summed over every pool, as of the loop's last turn.
    package var counters: HTTP2ClientCounters { shared.counters.withLock { $0 } }

    /// Stops accepting requests, lets the others finish (each bounded by its deadline), then closes.
    package func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shared.stop { continuation.resume() }
        }
    }
}

struct HTTP2ClientJob: Sendable {
    var request: HTTP2Request
    var completion: @Sendable (HTTP2ClientResult) -> Void
}

/// What submitting threads and the loop thread share: the inbox, the published counters, the wake-up eventfd.
final class HTTP2ClientShared: Sendable {
    struct Inbox {
        var jobs: [HTTP2ClientJob] = []
        var stopping = false
        var stopped = false
        var onStopped: [@Sendable () -> Void] = []
    }
    let inbox = Mutex(Inbox())
    let counters = Mutex(HTTP2ClientCounters())
    let wakeFD: Int32

    init() throws(HTTP2ClientError) {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw HTTP2ClientError(.eventLoop, "eventfd failed: \(String(cString: strerror(errno)))") }
    }

    func submit(_ job: HTTP2ClientJob) {
        let (accepted, wake) = inbox.withLock { box -> (Bool, Bool) in
            if box.stopping || box.stopped { return (false, false) }
            box.jobs.append(job)
            return (true, box.jobs.count == 1)
        }
        guard accepted else {
            job.completion(.failure(HTTP2StreamFailure(kind: .notSent, message: "the client was shut down", attempts: 0)))
            return
        }
        if wake { wakeUp() }
    }

    func stop(_ onStopped: @escaping @Sendable () -> Void) {
        let already = inbox.withLock { box -> Bool in
            if box.stopped { return true }
            box.stopping = true
            box.onStopped.append(onStopped)
            return false
        }
        if already { onStopped() } else { wakeUp() }
    }

    func wakeUp() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    deinit { _ = close(wakeFD) }
}

/// The loop thread's state: pools, connections, requests in flight. Created on that thread and never leaves it.
final class HTTP2ClientLoop: HTTP2ClientConnectionDelegate {
    private struct Pool {
        var scheduler: HTTP2PoolScheduler
        var connections: [Int: HTTP2ClientConnection] = [:]
    }
    private struct Pending {
        var request: HTTP2Request
        var path: String
        var completion: @Sendable (HTTP2ClientResult) -> Void
    }

    private let configuration: HTTP2ClientConfiguration
    private let shared: HTTP2ClientShared
    private let tls: ClientTLSContext?
    private let epollFD: Int32
    private var pools: [HTTP2Origin: Pool] = [:]
    private var poolOrder: [HTTP2Origin] = []
    private var originOfConnection: [Int: HTTP2Origin] = [:]
    private var registered: [Int: (fd: Int32, events: UInt32)] = [:]
    private var pending: [Int: Pending] = [:]
    private var nextRequestID = 1
    private var now = 0.0
    /// Results to deliver after the counters are published, so a caller that reads the counters after its
    /// result sees that result counted.
    private var completions: [(callback: @Sendable (HTTP2ClientResult) -> Void, result: HTTP2ClientResult)] = []

    init(configuration: HTTP2ClientConfiguration, shared: HTTP2ClientShared) {
        self.configuration = configuration
        self.shared = shared
        self.tls = try? ClientTLSContext(caFile: configuration.caFile)
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, shared.wakeFD, &event)
    }

    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while true {
            now = Self.monotonicSeconds()
            let (jobs, stopping) = shared.inbox.withLock { box -> ([HTTP2ClientJob], Bool) in
                let jobs = box.jobs
                box.jobs = []
                return (jobs, box.stopping)
            }
            for job in jobs { accept(job) }
            turn()
            if stopping && pending.isEmpty && shared.inbox.withLock({ $0.jobs.isEmpty }) { break }
            var timeout: Int32 = 1000
            for origin in poolOrder {
                if let due = pools[origin]!.scheduler.nextWakeup() {
                    timeout = min(timeout, Int32(max(0, min(1000, ((due - now) * 1000).rounded(.up)))))
                }
            }
            let count = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            now = Self.monotonicSeconds()
            if count > 0 {
                for i in 0..<Int(count) {
                    let key = Int(events[i].data.u64)
                    if key == 0 {
                        var value: UInt64 = 0
                        _ = read(shared.wakeFD, &value, 8)
                        continue
                    }
                    guard let origin = originOfConnection[key], let connection = pools[origin]?.connections[key] else { continue }
                    connection.handle(events: events[i].events)
                }
            }
        }
        for origin in poolOrder {
            for connection in pools[origin]!.connections.values { connection.close(graceful: true) }
        }
        publishCounters()
        deliverResults()
        pools = [:]
        _ = close(epollFD)
        let callbacks = shared.inbox.withLock { box -> [@Sendable () -> Void] in
            box.stopped = true
            let callbacks = box.onStopped
            box.onStopped = []
            for job in box.jobs {
                job.completion(.failure(HTTP2StreamFailure(kind: .notSent, message: "the client was shut down", attempts: 0)))
            }
            box.jobs = []
            return callbacks
        }
        for callback in callbacks { callback() }
    }

    private func accept(_ job: HTTP2ClientJob) {
        guard let (origin, path) = HTTP2Origin.parse(job.request.url) else {
            job.completion(.failure(HTTP2StreamFailure(kind: .notSent, message: "not an absolute http(s) URL: \(job.request.url)", attempts: 0)))
            return
        }
        let id = nextRequestID
        nextRequestID += 1
        pending[id] = Pending(request: job.request, path: path, completion: job.completion)
        if pools[origin] == nil {
            pools[origin] = Pool(scheduler: HTTP2PoolScheduler(policy: configuration.policy,
                                                               firstConnectionID: poolOrder.count * 1_000_000 + 1))
            poolOrder.append(origin)
        }
        pools[origin]!.scheduler.enqueue(id, now: now)
    }

    /// Settles failed connections, polls every scheduler and executes its actions until nothing changes, then
    /// flushes output and updates epoll interest.
    private func turn() {
        for _ in 0..<8 {
            var acted = settleFailures()
            for origin in poolOrder {
                let actions = pools[origin]!.scheduler.poll(now: now)
                if !actions.isEmpty { acted = true }
                for action in actions { execute(action, origin: origin) }
            }
            for origin in poolOrder {
                for connection in pools[origin]!.connections.values { connection.flush() }
            }
            if settleFailures() { acted = true }
            if !acted { break }
        }
        for origin in poolOrder {
            for (id, connection) in pools[origin]!.connections { updateInterest(id, connection) }
        }
        publishCounters()
        deliverResults()
    }

    private func complete(_ requestID: Int, _ result: HTTP2ClientResult) {
        guard let request = pending.removeValue(forKey: requestID) else { return }
        completions.append((request.completion, result))
    }

    private func deliverResults() {
        guard !completions.isEmpty else { return }
        let ready = completions
        completions.removeAll(keepingCapacity: true)
        for (callback, result) in ready { callback(result) }
    }

    /// Connections whose I/O failed: the scheduler settles their requests. True when there were any.
    private func settleFailures() -> Bool {
        var any = false
        for origin in poolOrder {
            for (id, connection) in pools[origin]!.connections {
                guard let message = connection.failure else { continue }
                any = true
                pools[origin]!.connections[id] = nil
                originOfConnection[id] = nil
                registered[id] = nil
                connection.close()
                pools[origin]!.scheduler.connectionLost(id, message: message, now: now)
            }
        }
        return any
    }

    private func execute(_ action: HTTP2PoolScheduler.Action, origin: HTTP2Origin) {
        switch action {
        case .connect(let id):
            let connection = HTTP2ClientConnection(id: id, origin: origin, tls: origin.secure ? tls : nil,
                                                   proxy: configuration.proxy(for: origin), delegate: self)
            if origin.secure && tls == nil {
                pools[origin]!.scheduler.connectionLost(id, message: "TLS is not available (bad CA file)", now: now)
                return
            }
            pools[origin]!.connections[id] = connection
            originOfConnection[id] = origin
            connection.connect()
        case .start(let requestID, let connectionID):
            guard let request = pending[requestID] else { return }
            guard let connection = pools[origin]!.connections[connectionID] else {
                pools[origin]!.scheduler.streamNotOpened(requestID, on: connectionID, message: "the connection is gone")
                return
            }
            switch connection.submit(request.request, path: request.path) {
            case .success(let streamID): pools[origin]!.scheduler.streamOpened(requestID, on: connectionID, streamID: streamID)
            case .failure(let error): pools[origin]!.scheduler.streamNotOpened(requestID, on: connectionID, message: error.message)
            }
        case .cancel(let streamID, let connectionID):
            pools[origin]!.connections[connectionID]?.cancel(streamID: streamID)
        case .ping(let connectionID):
            pools[origin]!.connections[connectionID]?.ping()
        case .close(let connectionID):
            if let connection = pools[origin]!.connections.removeValue(forKey: connectionID) {
                connection.close(graceful: true)
            }
            originOfConnection[connectionID] = nil
            registered[connectionID] = nil
        case .fail(let requestID, let failure):
            complete(requestID, .failure(failure))
        }
    }

    private func updateInterest(_ id: Int, _ connection: HTTP2ClientConnection) {
        let fd = connection.fd
        guard fd >= 0 else { return }
        let wanted = connection.wantedEvents
        if let current = registered[id], current.fd == fd {
            guard current.events != wanted else { return }
            var event = epoll_event(events: wanted, data: epoll_data_t(u64: UInt64(id)))
            _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
        } else {
            var event = epoll_event(events: wanted, data: epoll_data_t(u64: UInt64(id)))
            if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0 { _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
        }
        registered[id] = (fd, wanted)
    }

    private func publishCounters() {
        var sum = HTTP2ClientCounters()
        for origin in poolOrder { sum = sum + (pools[origin]?.scheduler.counters ?? HTTP2ClientCounters()) }
        shared.counters.withLock { $0 = sum }
    }

    private func scheduler<R>(of connection: HTTP2ClientConnection, _ body: (inout HTTP2PoolScheduler) -> R) -> R? {
        guard let origin = originOfConnection[connection.id], pools[origin] != nil else { return nil }
        return body(&pools[origin]!.scheduler)
    }

    // MARK: HTTP2ClientConnectionDelegate

    func connectionEstablished(_ connection: HTTP2ClientConnection) {
        let now = self.now
        _ = scheduler(of: connection) { $0.connectionEstablished(connection.id, now: now) }
    }

    func connectionHeard(_ connection: HTTP2ClientConnection) {
        let now = self.now
        _ = scheduler(of: connection) { $0.heard(connection.id, now: now) }
    }

    func connection(_ connection: HTTP2ClientConnection, settingsMaxConcurrentStreams limit: Int?) {
        _ = scheduler(of: connection) { $0.settingsReceived(connection.id, maxConcurrentStreams: limit) }
    }

    func connection(_ connection: HTTP2ClientConnection, wroteRequestOn streamID: Int32) {
        _ = scheduler(of: connection) { $0.requestWritten(on: connection.id, streamID: streamID) }
    }

    func connection(_ connection: HTTP2ClientConnection, answered streamID: Int32, response: HTTP2Response) {
        let now = self.now
        guard let requestID = scheduler(of: connection, { $0.answered(on: connection.id, streamID: streamID, status: response.status, now: now) }) ?? nil
        else { return }
        complete(requestID, .success(response))
    }

    func connection(_ connection: HTTP2ClientConnection, closedUnanswered streamID: Int32, errorCode: UInt32) {
        let now = self.now
        _ = scheduler(of: connection) { $0.streamClosed(on: connection.id, streamID: streamID, errorCode: errorCode, now: now) }
    }

    func connection(_ connection: HTTP2ClientConnection, goawayLastStreamID lastStreamID: Int32) {
        let now = self.now
        _ = scheduler(of: connection) { $0.goawayReceived(connection.id, lastStreamID: lastStreamID, now: now) }
    }

    func connectionReceivedReset(_ connection: HTTP2ClientConnection) {
        _ = scheduler(of: connection) { $0.resetReceived() }
    }

    static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
