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

    /// - Parameter resolver: host names → addresses, called off the event loop (default: `getaddrinfo`).
    /// - Throws: ``HTTP2ClientError`` when the CA file cannot be loaded or the event loop cannot be made.
    package init(configuration: HTTP2ClientConfiguration, resolver: HTTP2Resolver = .system) throws(HTTP2ClientError) {
        self.configuration = configuration
        // OpenSSL writes to the socket itself (SSL_set_fd), without MSG_NOSIGNAL: a peer that closes mid-write
        // would raise SIGPIPE and kill the process (`send` died with exit 141 under abrupt GOAWAYs). Ignored
        // process-wide, as mock-apns does; the write then fails with EPIPE and the streams end with their outcome.
        signal(SIGPIPE, SIG_IGN)
        _ = try ClientTLSContext(caFile: configuration.caFile)   // a bad CA file fails here, not per request
        let shared = try HTTP2ClientShared()
        self.shared = shared
        let thread = Thread {
            let loop = HTTP2ClientLoop(configuration: configuration, shared: shared, resolver: resolver)
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
        /// Name resolutions finished on other threads, by connection id.
        var resolutions: [(connection: Int, result: Result<[HTTP2ResolvedAddress], HTTP2ClientError>)] = []
        var stopping = false
        var stopped = false
        var onStopped: [@Sendable () -> Void] = []
    }
    let inbox = Mutex(Inbox())
    let counters = Mutex(HTTP2ClientCounters())
    let wakeFD: Int32
    /// `pthread_self()` of the loop thread (0 before it runs): a request submitted from a completion on the loop
    /// thread needs no eventfd write — the loop looks at its inbox before it waits again.
    let loopThread = Atomic<UInt>(0)

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
        if wake, loopThread.load(ordering: .relaxed) != UInt(pthread_self()) { wakeUp() }
    }

    /// A resolver thread's answer for a connection; wakes the loop.
    func resolved(connection: Int, _ result: Result<[HTTP2ResolvedAddress], HTTP2ClientError>) {
        let wake = inbox.withLock { box -> Bool in
            box.resolutions.append((connection, result))
            return box.jobs.isEmpty && box.resolutions.count == 1
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
        let origin: HTTP2Origin
        var scheduler: HTTP2PoolScheduler
        var connections: [Int: HTTP2ClientConnection] = [:]
    }
    private struct Pending {
        var request: HTTP2Request
        var completion: @Sendable (HTTP2ClientResult) -> Void
    }

    private let configuration: HTTP2ClientConfiguration
    private let shared: HTTP2ClientShared
    private let tls: ClientTLSContext?
    private let epollFD: Int32
    /// Pools by index (a connection knows its pool's index: no hashing of the origin per event).
    private var pools: [Pool] = []
    private var poolIndex: [HTTP2Origin: Int] = [:]
    private var registered: [Int: (fd: Int32, events: UInt32)] = [:]
    private var pending: [Int: Pending] = [:]
    private var nextRequestID = 1
    private var now = 0.0
    /// Results to deliver after the counters are published, so a caller that reads the counters after its
    /// result sees that result counted.
    private var completions: [(callback: @Sendable (HTTP2ClientResult) -> Void, result: HTTP2ClientResult)] = []
    private var jobs: [HTTP2ClientJob] = []
    private let resolver: HTTP2Resolver

    init(configuration: HTTP2ClientConfiguration, shared: HTTP2ClientShared, resolver: HTTP2Resolver) {
        self.configuration = configuration
        self.shared = shared
        self.resolver = resolver
        self.tls = try? ClientTLSContext(caFile: configuration.caFile)
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, shared.wakeFD, &event)
    }

    func run() {
        shared.loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while true {
            now = Self.monotonicSeconds()
            let stopping = takeJobs()
            turn()
            // Completions delivered in this turn may have submitted more requests (from this thread, without
            // waking the eventfd): take them before waiting.
            let inboxEmpty = shared.inbox.withLock { $0.jobs.isEmpty && $0.resolutions.isEmpty }
            if stopping && pending.isEmpty && inboxEmpty { break }
            var timeout: Int32 = inboxEmpty ? 1000 : 0
            for pool in pools {
                if let due = pool.scheduler.nextWakeup() {
                    timeout = min(timeout, Int32(max(0, min(1000, ((due - now) * 1000).rounded(.up)))))
                }
            }
            let count = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            now = Self.monotonicSeconds()
            if count > 0 {
                for index in 0..<Int(count) {
                    let key = Int(events[index].data.u64)
                    if key == 0 {
                        var value: UInt64 = 0
                        _ = read(shared.wakeFD, &value, 8)
                        continue
                    }
                    guard let connection = connection(key) else { continue }
                    connection.handle(events: events[index].events)
                }
            }
        }
        for pool in pools {
            for connection in pool.connections.values { connection.close(graceful: true) }
        }
        publishCounters()
        deliverResults()
        pools = []
        _ = close(epollFD)
        shared.loopThread.store(0, ordering: .relaxed)
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

    /// Moves the inbox into the pools (one lock, the arrays swapped, not copied); returns whether shutdown began.
    private func takeJobs() -> Bool {
        var resolutions: [(connection: Int, result: Result<[HTTP2ResolvedAddress], HTTP2ClientError>)] = []
        let stopping = shared.inbox.withLock { box -> Bool in
            swap(&jobs, &box.jobs)
            if !box.resolutions.isEmpty { swap(&resolutions, &box.resolutions) }
            return box.stopping
        }
        for (id, result) in resolutions { connection(id)?.resolved(result) }
        for job in jobs { accept(job) }
        jobs.removeAll(keepingCapacity: true)
        return stopping
    }

    /// Connection ids are unique across pools (disjoint ranges of 1 000 000 per pool).
    private func connection(_ id: Int) -> HTTP2ClientConnection? {
        let pool = (id - 1) / 1_000_000
        guard pool >= 0, pool < pools.count else { return nil }
        return pools[pool].connections[id]
    }

    private func accept(_ job: HTTP2ClientJob) {
        guard let origin = job.request.origin else {
            job.completion(.failure(HTTP2StreamFailure(kind: .notSent, message: "not an absolute http(s) URL: \(job.request.url)", attempts: 0)))
            return
        }
        let id = nextRequestID
        nextRequestID += 1
        pending[id] = Pending(request: job.request, completion: job.completion)
        let pool: Int
        if pools.count == 1, pools[0].origin == origin {
            pool = 0
        } else if let known = poolIndex[origin] {
            pool = known
        } else {
            pool = pools.count
            pools.append(Pool(origin: origin, scheduler: HTTP2PoolScheduler(policy: configuration.policy,
                                                                            firstConnectionID: pool * 1_000_000 + 1)))
            poolIndex[origin] = pool
        }
        pools[pool].scheduler.enqueue(id, now: now)
    }

    /// Settles failed connections, polls every scheduler and executes its actions until nothing changes, then
    /// flushes output (one write per connection per turn, whatever the number of new streams) and updates epoll
    /// interest.
    private func turn() {
        for _ in 0..<8 {
            var acted = settleFailures()
            for pool in pools.indices {
                let actions = pools[pool].scheduler.poll(now: now)
                if !actions.isEmpty { acted = true }
                for action in actions { execute(action, pool: pool) }
            }
            // By index, never `for pool in pools`: a copy of a Pool held across flush() (whose nghttp2 callbacks
            // mutate the scheduler) would make every such mutation copy the scheduler's dictionaries whole.
            for pool in pools.indices {
                for connection in pools[pool].connections.values { connection.flush() }
            }
            if settleFailures() { acted = true }
            if !acted { break }
        }
        for pool in pools.indices {
            for (id, connection) in pools[pool].connections { updateInterest(id, connection) }
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
        var ready: [(callback: @Sendable (HTTP2ClientResult) -> Void, result: HTTP2ClientResult)] = []
        swap(&ready, &completions)
        for (callback, result) in ready { callback(result) }
        ready.removeAll(keepingCapacity: true)
        if completions.isEmpty { swap(&ready, &completions) }
    }

    /// Connections whose I/O failed: the scheduler settles their requests. True when there were any.
    private func settleFailures() -> Bool {
        var any = false
        for pool in pools.indices {
            for (id, connection) in pools[pool].connections {
                guard let message = connection.failure else { continue }
                any = true
                pools[pool].connections[id] = nil
                registered[id] = nil
                connection.close()
                pools[pool].scheduler.connectionLost(id, message: message, now: now)
            }
        }
        return any
    }

    private func execute(_ action: HTTP2PoolScheduler.Action, pool: Int) {
        switch action {
        case .connect(let id):
            let origin = pools[pool].origin
            if origin.secure && tls == nil {
                pools[pool].scheduler.connectionLost(id, message: "TLS is not available (bad CA file)", now: now)
                return
            }
            let connection = HTTP2ClientConnection(id: id, origin: origin, tls: origin.secure ? tls : nil,
                                                   proxy: configuration.proxy(for: origin),
                                                   proxyAuthorization: configuration.proxyAuthorization, delegate: self)
            pools[pool].connections[id] = connection
            connection.connect()
        case .start(let requestID, let connectionID):
            guard let request = pending[requestID] else { return }
            guard let connection = pools[pool].connections[connectionID] else {
                pools[pool].scheduler.streamNotOpened(requestID, on: connectionID, message: "the connection is gone")
                return
            }
            switch connection.submit(request.request) {
            case .success(let streamID): pools[pool].scheduler.streamOpened(requestID, on: connectionID, streamID: streamID)
            case .failure(let error): pools[pool].scheduler.streamNotOpened(requestID, on: connectionID, message: error.message)
            }
        case .cancel(let streamID, let connectionID):
            pools[pool].connections[connectionID]?.cancel(streamID: streamID)
        case .ping(let connectionID):
            pools[pool].connections[connectionID]?.ping()
        case .close(let connectionID):
            if let connection = pools[pool].connections.removeValue(forKey: connectionID) {
                connection.close(graceful: true)
            }
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
        for pool in pools { sum = sum + pool.scheduler.counters }
        shared.counters.withLock { $0 = sum }
    }

    private func scheduler<R>(of connection: HTTP2ClientConnection, _ body: (inout HTTP2PoolScheduler) -> R) -> R? {
        let pool = (connection.id - 1) / 1_000_000
        guard pool >= 0, pool < pools.count, pools[pool].connections[connection.id] === connection else { return nil }
        return body(&pools[pool].scheduler)
    }

    // MARK: HTTP2ClientConnectionDelegate

    func connectionNeedsResolution(_ connection: HTTP2ClientConnection, host: String, port: Int) {
        let id = connection.id
        let resolver = self.resolver
        let shared = self.shared
        // A separate thread per lookup (rare: once per connection to a named host); the scheduler's connect
        // timeout bounds a lookup that hangs, and a late answer finds no connection and is dropped.
        let thread = Thread { shared.resolved(connection: id, resolver.resolve(host, port)) }
        thread.name = "apns-h2-resolve"
        thread.start()
    }

    func connectionConfirmed(_ connection: HTTP2ClientConnection) {
        _ = scheduler(of: connection) { $0.prefaceReceived(connection.id) }
    }

    func connection(_ connection: HTTP2ClientConnection, malformed streamID: Int32, message: String) {
        let now = self.now
        _ = scheduler(of: connection) { $0.streamMalformed(on: connection.id, streamID: streamID, message: message, now: now) }
    }

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
