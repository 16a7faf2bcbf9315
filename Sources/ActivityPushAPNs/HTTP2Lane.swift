import CCurl
import Foundation
import Synchronization

/// One libcurl multi handle (hence one HTTP/2 connection per host) and the event-loop thread that drives it.
///
/// `@unchecked Sendable`: the fields marked "loop thread only" are read and written only on the lane's own
/// thread, started by ``start()``; state shared with submitting threads is in the `inbox` `Mutex` and the
/// `Atomic` counters; `multi` is used from other threads only through `curl_multi_wakeup`, which libcurl
/// documents as safe to call from any thread.
final class HTTP2Lane: @unchecked Sendable {
    let index: Int
    let configuration: HTTP2TransportConfiguration
    private let multi: UnsafeMutableRawPointer
    private let template: UnsafeMutableRawPointer

    private struct Inbox {
        var jobs: [HTTP2Job] = []
        var stopping = false
        var stopped = false
        var onStopped: [@Sendable () -> Void] = []
    }
    private let inbox = Mutex(Inbox())
    private let inFlight = Atomic<Int>(0)
    let responses = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let retried = Atomic<Int>(0)
    let connects = Atomic<Int>(0)

    // Loop thread only.
    private var waiting: [HTTP2Job] = []
    private var waitingHead = 0
    private var idle: [HTTP2Transfer] = []
    private var active = 0
    private var streamsSinceRotation = 0
    private var rotating = false
    /// False on a connection that has not yet answered: APNs allows one stream until it has seen a valid
    /// provider token (spec §2.5, "Sending notification requests to APNs"), so a fresh connection carries one
    /// request first and opens up once that is answered. Streams sent before the server's SETTINGS arrive would
    /// otherwise be refused or reset in flight.
    private var warm = false
    private var idleSpins = 0
    private var lastUpkeep = ContinuousClock.now

    /// Requests queued or in flight on this lane.
    var load: Int { inFlight.load(ordering: .relaxed) }

    init(index: Int, configuration: HTTP2TransportConfiguration) throws {
        guard let m = curl_multi_init() else {
            throw APNsTransportError(curlCode: 0, message: "curl_multi_init failed", mayHaveBeenProcessed: false)
        }
        guard let t = HTTP2Transfer.makeTemplate(configuration) else {
            curl_multi_cleanup(m)
            throw APNsTransportError(curlCode: 0, message: "curl_easy_init failed", mayHaveBeenProcessed: false)
        }
        self.template = t
        self.index = index
        self.configuration = configuration
        self.multi = m
        _ = ap_curl_multi_setopt_long(m, CURLMOPT_PIPELINING, ap_curlpipe_multiplex())
        _ = ap_curl_multi_setopt_long(m, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
        _ = ap_curl_multi_setopt_long(m, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
        _ = ap_curl_multi_setopt_long(m, CURLMOPT_MAXCONNECTS, 8)
    }

    func start() {
        let t = Thread { [self] in self.run() }
        t.name = "apns-h2-\(index)"
        t.stackSize = 1 << 20
        t.start()
    }

    func enqueue(_ job: HTTP2Job) {
        inFlight.add(1, ordering: .relaxed)
        let (accepted, wake) = inbox.withLock { box -> (Bool, Bool) in
            if box.stopping || box.stopped { return (false, false) }
            box.jobs.append(job)
            return (true, box.jobs.count == 1)
        }
        if !accepted {
            inFlight.subtract(1, ordering: .relaxed)
            failures.add(1, ordering: .relaxed)
            job.completion(.failure(APNsTransportError(curlCode: 0, message: "the client was shut down",
                                                       mayHaveBeenProcessed: false, attempts: 0)))
            return
        }
        // One wake-up per batch: when the inbox was non-empty, a wake-up is already pending since the last drain.
        if wake { curl_multi_wakeup(multi) }
    }

    func stop(_ onStopped: @escaping @Sendable () -> Void) {
        let already = inbox.withLock { box -> Bool in
            if box.stopped { return true }
            box.stopping = true
            box.onStopped.append(onStopped)
            return false
        }
        if already { onStopped() } else { curl_multi_wakeup(multi) }
    }

    // MARK: Event loop (loop thread only below)

    private func run() {
        while true {
            let (jobs, stopping) = inbox.withLock { box -> ([HTTP2Job], Bool) in
                let j = box.jobs
                box.jobs = []
                return (j, box.stopping)
            }
            waiting.append(contentsOf: jobs)
            startWaiting()
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            let done = collectDone()
            if done > 0 && startWaiting() > 0 { continue }
            if stopping && active == 0 && waitingHead == waiting.count {
                let empty = inbox.withLock { $0.jobs.isEmpty }
                if empty { break }
                continue
            }
            upkeepIfDue()
            if done == 0 && jobs.isEmpty && active > 0 {
                // Nothing finished and nothing new: when libcurl wants to run again at once (uploads waiting for
                // the peer's flow-control window), wait ≤ 1 ms for the peer instead of spinning.
                idleSpins += 1
                if idleSpins > 2, ap_curl_multi_wait_readable(multi, 1) >= 0 { continue }
            } else {
                idleSpins = 0
            }
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        idle = []
        curl_multi_cleanup(multi)
        curl_easy_cleanup(template)
        let callbacks = inbox.withLock { box -> [@Sendable () -> Void] in
            box.stopped = true
            let c = box.onStopped
            box.onStopped = []
            return c
        }
        for c in callbacks { c() }
    }

    /// Moves queued jobs onto streams while under the client's stream cap. Returns how many started.
    @discardableResult
    private func startWaiting() -> Int {
        var started = 0
        let rotateAfter = configuration.streamsPerConnection
        while active < (warm ? configuration.maxConcurrentStreams : 1), waitingHead < waiting.count, !rotating {
            var last = false
            if rotateAfter > 0, streamsSinceRotation >= rotateAfter {
                // Drain this connection, then send one request that closes it after use; the next opens anew.
                if active > 0 { break }
                last = true
            }
            let job = waiting[waitingHead]
            waitingHead += 1
            streamsSinceRotation += 1
            if last {
                rotating = true
                streamsSinceRotation = 0
            }
            begin(job, closeAfter: last)
            started += 1
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 4096 {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
        return started
    }

    private func begin(_ job: HTTP2Job, closeAfter: Bool = false) {
        var job = job
        job.attempts += 1
        let t = idle.popLast() ?? HTTP2Transfer()
        if let problem = t.prepare(job.request, template: template, closeAfter: closeAfter) {
            if closeAfter { rotating = false }
            t.endTransfer()
            idle.append(t)
            finish(job, .failure(APNsTransportError(curlCode: Int(problem.rawValue),
                                                    message: String(cString: curl_easy_strerror(problem)),
                                                    mayHaveBeenProcessed: false, attempts: job.attempts)))
            return
        }
        t.job = job
        let rc = curl_multi_add_handle(multi, t.easy)
        if rc != CURLM_OK {
            if closeAfter { rotating = false }
            t.job = nil
            t.endTransfer()
            idle.append(t)
            finish(job, .failure(APNsTransportError(curlCode: 0, message: String(cString: curl_multi_strerror(rc)),
                                                    mayHaveBeenProcessed: false, attempts: job.attempts)))
            return
        }
        active += 1
        _ = Unmanaged.passRetained(t)   // owned by libcurl (CURLOPT_PRIVATE) until the transfer is done
    }

    /// Codes meaning the request never left this host (name lookup, TCP connect, TLS handshake).
    private static let connectPhase: Set<UInt32> = [
        CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue, CURLE_COULDNT_CONNECT.rawValue,
        CURLE_SSL_CONNECT_ERROR.rawValue, CURLE_PEER_FAILED_VERIFICATION.rawValue, CURLE_SSL_CACERT_BADFILE.rawValue,
        CURLE_SSL_CERTPROBLEM.rawValue, CURLE_SSL_CIPHER.rawValue,
    ]

    private func collectDone() -> Int {
        var done = 0
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            var rc = CURLE_OK
            guard let easy = ap_curlmsg_done_handle(msg, &rc) else { continue }
            var priv: UnsafeMutableRawPointer?
            _ = ap_curl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &priv)
            _ = curl_multi_remove_handle(multi, easy)
            active -= 1
            done += 1
            guard let priv else { continue }
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(priv).takeRetainedValue()
            if t.closesConnection { rotating = false; warm = false }
            guard let job = t.job else { t.endTransfer(); idle.append(t); continue }
            t.job = nil
            var n = 0
            _ = ap_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &n)
            if n > 0 { connects.add(n, ordering: .relaxed) }
            var httpVersion = 0
            _ = ap_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &httpVersion)
            if rc == CURLE_OK && httpVersion != Int(CURL_HTTP_VERSION_2_0) {
                // ALPN fell back to HTTP/1.x: not APNs (which speaks HTTP/2 only), so its answer means nothing.
                t.endTransfer()
                t.clearResponse()
                idle.append(t)
                finish(job, .failure(APNsTransportError(curlCode: Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue),
                                                        message: "the server answered over HTTP/1.x; APNs (and mock-apns) speak HTTP/2 only — check --url",
                                                        mayHaveBeenProcessed: true, attempts: job.attempts)))
                continue
            }
            if rc == CURLE_OK {
                warm = true
                var status = 0
                _ = ap_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                let response = HTTP2Response(status: status, headers: t.responseHeaders, body: t.responseBody)
                t.endTransfer()
                t.clearResponse()
                idle.append(t)
                finish(job, .success(response))
                continue
            }
            warm = false  // a failed transfer may mean a new connection next
            var pretransfer: curl_off_t = 0
            _ = ap_curl_easy_getinfo_off(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
            // Not sent: libcurl never started on the body (POST), or for body-less requests the failure was in
            // the connect phase or before the transfer began.
            let notSent = job.request.method == "POST"
                ? !t.bodyReadStarted
                : (Self.connectPhase.contains(rc.rawValue) || pretransfer == 0)
            let detail = t.errorText
            t.endTransfer()
            t.clearResponse()
            idle.append(t)
            if notSent && job.attempts < 2 {
                retried.add(1, ordering: .relaxed)
                waiting.append(job)   // tried again on a fresh connection attempt
                continue
            }
            let base = String(cString: curl_easy_strerror(rc))
            finish(job, .failure(APNsTransportError(curlCode: Int(rc.rawValue),
                                                    message: detail.isEmpty ? base : "\(base): \(detail)",
                                                    mayHaveBeenProcessed: !notSent, attempts: job.attempts)))
        }
        return done
    }

    private func finish(_ job: HTTP2Job, _ result: HTTP2Result) {
        switch result {
        case .success: responses.add(1, ordering: .relaxed)
        case .failure: failures.add(1, ordering: .relaxed)
        }
        inFlight.subtract(1, ordering: .relaxed)
        job.completion(result)
    }

    /// HTTP/2 PING keepalive: libcurl sends a PING on connections idle longer than `CURLOPT_UPKEEP_INTERVAL_MS`
    /// when `curl_easy_upkeep` runs.
    private func upkeepIfDue() {
        let now = ContinuousClock.now
        guard configuration.keepaliveSeconds > 0,
              now - lastUpkeep >= .milliseconds(Int64(configuration.keepaliveSeconds * 1000)) else { return }
        lastUpkeep = now
        _ = curl_easy_upkeep(template)
    }
}
