/// Connection and stream scheduling for one pool (one origin, one credential) of HTTP/2 client connections, as
/// a plain value: the transport reports what happened on the wire (events) and executes what ``poll(now:)``
/// returns (actions). No sockets, no clock of its own — `now` is seconds on any monotonic clock — so every rule
/// below is tested without I/O (Tests/ActivityPushAPNsTests/HTTP2PoolSchedulerTests.swift).
///
/// Rules:
/// - Up to ``Policy/maxConnections`` connections; a new one opens only when every open one is full (Apple:
///   "open multiple connections" for volume) and none is still connecting.
/// - A connection carries at most min(its peer's `SETTINGS_MAX_CONCURRENT_STREAMS`, ``Policy/maxConcurrentStreams``)
///   streams, re-read on every SETTINGS (a drop to 1 mid-connection stops new streams until one is left).
/// - A fresh connection carries one stream until its first answer other than 403: APNs allows one stream before
///   it has seen a valid provider token (Apple, "Sending notification requests to APNs").
/// - Keepalive: a PING after ``Policy/keepaliveSeconds`` without a frame from the peer; no answer within
///   ``Policy/pingTimeoutSeconds`` → the connection is dead and closed. Apple stopped answering long-idle
///   connections that send no PING (node `apns2` issue #97).
/// - Every request has a deadline (``Policy/requestTimeoutSeconds``, default 10 s) from the moment it is queued.
/// - Exact outcomes: a stream reset with `REFUSED_STREAM` or above a GOAWAY's last-stream-id was not processed
///   (RFC 9113 §8.7, §6.8): it is resent on a healthy connection (same request, so the same `apns-id`) and
///   counted as refused — at once the first time (a GOAWAY's streams), then after a backoff that doubles from
///   ``Policy/refusedBackoffSeconds`` up to ``Policy/refusedBackoffCapSeconds``, at most
///   ``Policy/maxRefusedResends`` times; then it ends ``HTTP2StreamFailure/Kind/refused`` (still "not processed"),
///   so a server that refuses everything is not stormed.
/// - No request goes out before the peer's SETTINGS preface (RFC 9113 §3.4: the server's first frame), so a
///   peer that never sends a valid HTTP/2 frame (an HTTP/1.1 server, a wrong port, garbage) has received no
///   request: losing it counts as a failed connection attempt ("not sent" once ``Policy/maxConnectAttempts``
///   failed) — never one connection per request, never "may have been processed". (A request sent with the
///   preface could be processed by a server whose SETTINGS were still queued when it dropped the connection;
///   waiting costs one round trip per new connection, not per request.)
/// - A malformed answer (e.g. `:status` outside 100–599) is no response: the request ends "may have been
///   processed". A stream whose HEADERS went out and that got no answer ends "may have been
///   processed"; a request never written is put back in the queue (or ends "not sent"). Only the transport's
///   answered streams are responses — nothing else is reported as one.
package struct HTTP2PoolScheduler: Sendable {
    package typealias RequestID = Int
    package typealias ConnectionID = Int

    /// `REFUSED_STREAM` (RFC 9113 §7).
    package static let refusedStreamCode = HTTP2ErrorCode.refusedStream.rawValue

    package struct Policy: Sendable, Hashable {
        package var maxConnections = 1
        package var maxConcurrentStreams = 1000
        package var requestTimeoutSeconds = 10.0
        package var connectTimeoutSeconds = 10.0
        /// 0: no keepalive PING.
        package var keepaliveSeconds = 60.0
        package var pingTimeoutSeconds = 10.0
        /// Close a connection with no streams after this long (0: never).
        package var idleTimeoutSeconds = 0.0
        /// Streams after which a connection takes no new ones and closes when drained (0: never).
        package var streamsPerConnection = 0
        /// Resends of one request after RST_STREAM `REFUSED_STREAM` before it ends
        /// ``HTTP2StreamFailure/Kind/refused``. Refused streams were not processed, so resending cannot duplicate
        /// them; this cap and the backoff keep a server that refuses everything (`refused:all`) from being
        /// stormed. The request's deadline bounds it too.
        package var maxRefusedResends = 10
        /// Resends of one request cut by GOAWAYs (above the last-stream-id) before it ends refused. Each goes to
        /// another connection, so connection set-up paces them; a server that GOAWAYs every few dozen streams
        /// cuts the same request many times, hence the high cap.
        package var maxGoawayResends = 1000
        /// Wait before the second resend of a refused request (the first is immediate); doubles per refusal.
        package var refusedBackoffSeconds = 0.01
        /// Longest wait between two resends of a refused request.
        package var refusedBackoffCapSeconds = 1.0
        /// Failed connection attempts one waiting request sits through before it ends "not sent".
        package var maxConnectAttempts = 2
        package init() {}
    }

    package enum Action: Sendable, Hashable {
        /// Open connection `id` (DNS, TCP, proxy tunnel, TLS, preface); report ``connectionEstablished(_:now:)``
        /// or ``connectionLost(_:message:now:)``.
        case connect(ConnectionID)
        /// Submit the request on the connection; report ``streamOpened(_:on:streamID:)`` or
        /// ``streamNotOpened(_:on:message:)`` before the next poll.
        case start(RequestID, on: ConnectionID)
        /// Reset the stream with `CANCEL` (its deadline passed; the request already ended).
        case cancel(streamID: Int32, on: ConnectionID)
        case ping(ConnectionID)
        /// Close the connection. The scheduler has already settled every request on it; report nothing more.
        case close(ConnectionID)
        /// The request ended without a response.
        case fail(RequestID, HTTP2StreamFailure)
    }

    private enum Phase: Sendable, Hashable { case connecting(since: Double), ready, draining }

    private struct Connection: Sendable {
        var phase: Phase
        var peerLimit = Int.max
        var warm = false
        /// The peer sent its SETTINGS preface: it speaks HTTP/2.
        var confirmed = false
        var requests: Set<RequestID> = []
        var streamIDs: [Int32: RequestID] = [:]
        var started = 0
        var lastHeard = 0.0
        var idleSince = 0.0
        var pingSentAt: Double?
        var goawayLastStreamID: Int32?
    }

    private enum Place: Sendable, Hashable {
        case queued
        /// Refused before; waits until `until` to be queued again.
        case backingOff(until: Double)
        case assigned(ConnectionID)
        case open(ConnectionID, streamID: Int32, written: Bool)
    }

    private struct Request: Sendable {
        var deadline: Double
        var place: Place = .queued
        var attempts = 0
        var connectFailures = 0
        var refusals = 0
        /// Of ``refusals``, those by RST_STREAM REFUSED_STREAM (the server declined this very request).
        var resets = 0
    }

    package let policy: Policy
    package private(set) var counters = HTTP2ClientCounters()
    private var connections: [ConnectionID: Connection] = [:]
    private var nextConnectionID: ConnectionID
    private var requests: [RequestID: Request] = [:]
    private var resend: [RequestID] = []
    private var resendHead = 0
    private var queue: [RequestID] = []
    private var queueHead = 0
    private var deadlines: [(due: Double, id: RequestID)] = []
    private var deadlinesHead = 0
    private var pending: [Action] = []
    /// Refused requests waiting for their backoff (place `.backingOff`), unordered; usually empty.
    private var backingOff: [RequestID] = []

    /// - Parameter firstConnectionID: connection ids are unique per scheduler; give pools disjoint ranges.
    package init(policy: Policy, firstConnectionID: ConnectionID = 1) {
        self.policy = policy
        self.nextConnectionID = firstConnectionID
    }

    /// Requests not yet ended.
    package var outstanding: Int { requests.count }
    /// Connections connecting, ready or draining.
    package var connectionCount: Int { connections.count }
    package var connectionIDs: [ConnectionID] { Array(connections.keys) }

    /// What the peer allows and the client uses on `connection` now (for tests and diagnostics).
    package func capacity(of connection: ConnectionID) -> Int {
        guard let c = connections[connection] else { return 0 }
        return capacity(c)
    }

    package func isWarm(_ connection: ConnectionID) -> Bool { connections[connection]?.warm ?? false }

    // MARK: Requests

    /// Queues a request; it gets a stream in a later ``poll(now:)``.
    package mutating func enqueue(_ id: RequestID, now: Double) {
        let due = now + policy.requestTimeoutSeconds
        requests[id] = Request(deadline: due)
        queue.append(id)
        deadlines.append((due, id))
    }

    /// Ends every queued request "not sent" (shutdown). Requests on streams keep going.
    package mutating func failQueued(message: String) {
        for id in takeAllQueued() {
            fail(id, .notSent, message)
        }
        for id in backingOff {
            guard case .backingOff? = requests[id]?.place else { continue }
            fail(id, .refused, message + " (refused before; not processed)")
        }
        backingOff = []
    }

    // MARK: Events

    package mutating func connectionEstablished(_ id: ConnectionID, now: Double) {
        guard var c = connections[id], case .connecting = c.phase else { return }
        c.phase = .ready
        c.lastHeard = now
        c.idleSince = now
        connections[id] = c
        counters.connectionsOpened += 1
    }

    /// The peer's first SETTINGS frame (its connection preface) arrived: an HTTP/2 server. From now on a request
    /// written on this connection and not answered "may have been processed".
    package mutating func prefaceReceived(_ id: ConnectionID) {
        guard connections[id] != nil, !connections[id]!.confirmed else { return }
        connections[id]!.confirmed = true
        for rid in queuedIDs() { requests[rid]?.connectFailures = 0 }
    }

    /// A frame (any) arrived from the peer: the connection is alive.
    package mutating func heard(_ id: ConnectionID, now: Double) {
        guard connections[id] != nil else { return }
        connections[id]!.lastHeard = now
        connections[id]!.pingSentAt = nil
    }

    /// SETTINGS from the peer: its `SETTINGS_MAX_CONCURRENT_STREAMS` (nil: not set, unlimited).
    package mutating func settingsReceived(_ id: ConnectionID, maxConcurrentStreams: Int?) {
        guard connections[id] != nil else { return }
        connections[id]!.peerLimit = maxConcurrentStreams ?? Int.max
        prefaceReceived(id)
    }

    package mutating func streamOpened(_ request: RequestID, on id: ConnectionID, streamID: Int32) {
        guard requests[request] != nil, connections[id] != nil else { return }
        requests[request]!.place = .open(id, streamID: streamID, written: false)
        requests[request]!.attempts += 1
        connections[id]!.streamIDs[streamID] = request
        counters.streamsOpened += 1
    }

    /// The transport could not submit the request on this connection: it takes no more streams.
    package mutating func streamNotOpened(_ request: RequestID, on id: ConnectionID, message: String) {
        if connections[id] != nil {
            connections[id]!.requests.remove(request)
            if connections[id]!.phase == .ready { connections[id]!.phase = .draining }
        }
        guard requests[request] != nil else { return }
        requests[request]!.attempts += 1
        requeueUnsent(request, message: message)
    }

    /// The stream's HEADERS went out: from now on the server may process it.
    package mutating func requestWritten(on id: ConnectionID, streamID: Int32) {
        guard let rid = connections[id]?.streamIDs[streamID],
              case .open(let cid, let sid, _) = requests[rid]?.place else { return }
        requests[rid]!.place = .open(cid, streamID: sid, written: true)
    }

    /// A complete response arrived on the stream. Returns the request it answers (nil when that request already
    /// ended, e.g. by its deadline).
    package mutating func answered(on id: ConnectionID, streamID: Int32, status: Int, now: Double) -> RequestID? {
        // Mutated in place (`connections[id]!.…`): a copy taken out of the dictionary would make every
        // mutation of its Set and Dictionary copy them whole.
        guard connections[id] != nil, let rid = connections[id]!.streamIDs.removeValue(forKey: streamID) else { return nil }
        connections[id]!.requests.remove(rid)
        if status != 403 { connections[id]!.warm = true }
        if !connections[id]!.confirmed { prefaceReceived(id) }   // an answer is an HTTP/2 frame
        if connections[id]!.requests.isEmpty { connections[id]!.idleSince = now }
        guard requests.removeValue(forKey: rid) != nil else { return nil }
        counters.responses += 1
        return rid
    }

    /// The stream closed without a complete response (`errorCode` from RST_STREAM or nghttp2's close).
    package mutating func streamClosed(on id: ConnectionID, streamID: Int32, errorCode: UInt32, now: Double) {
        guard connections[id] != nil, let rid = connections[id]!.streamIDs.removeValue(forKey: streamID) else { return }
        connections[id]!.requests.remove(rid)
        if connections[id]!.requests.isEmpty { connections[id]!.idleSince = now }
        guard let r = requests[rid], case .open(_, _, let written) = r.place else { return }
        if !written {
            requeueUnsent(rid, message: "the stream closed before its request went out")
        } else if errorCode == Self.refusedStreamCode {
            refused(rid, now: now, byReset: true)
        } else {
            fail(rid, .mayHaveBeenProcessed, "the server reset the stream (HTTP/2 error \(Self.errorName(errorCode))) after the request was sent")
        }
    }

    /// The answer on the stream is malformed (RFC 9113 §8.1.1, e.g. `:status` outside 100–599): no response;
    /// the server may have processed the request. The transport resets the stream (PROTOCOL_ERROR) itself.
    package mutating func streamMalformed(on id: ConnectionID, streamID: Int32, message: String, now: Double) {
        guard connections[id] != nil, let rid = connections[id]!.streamIDs.removeValue(forKey: streamID) else { return }
        connections[id]!.requests.remove(rid)
        if connections[id]!.requests.isEmpty { connections[id]!.idleSince = now }
        fail(rid, .mayHaveBeenProcessed, "malformed answer: " + message)
    }

    package mutating func resetReceived() { counters.resetsReceived += 1 }

    /// GOAWAY: no new streams here; every stream above `lastStreamID` was not processed and is resent.
    package mutating func goawayReceived(_ id: ConnectionID, lastStreamID: Int32, now: Double) {
        guard var c = connections[id] else { return }
        counters.goawaysReceived += 1
        c.phase = .draining
        c.goawayLastStreamID = min(lastStreamID, c.goawayLastStreamID ?? Int32.max)
        let above = c.streamIDs.filter { $0.key > lastStreamID }
        for (sid, rid) in above.sorted(by: { $0.key < $1.key }) {
            c.streamIDs[sid] = nil
            c.requests.remove(rid)
            if case .open(_, _, let written) = requests[rid]?.place, !written {
                connections[id] = c
                requeueUnsent(rid, message: "GOAWAY before the request went out")
                c = connections[id]!
            } else {
                connections[id] = c
                refused(rid, now: now)
                c = connections[id]!
            }
        }
        connections[id] = c
    }

    /// The connection failed or closed (socket error, EOF, TLS or protocol error, connect failure).
    package mutating func connectionLost(_ id: ConnectionID, message: String, now: Double) {
        guard let c = connections.removeValue(forKey: id) else { return }
        if case .connecting = c.phase {
            connectFailed(message: message)
            return
        }
        if !c.confirmed {
            // Never an HTTP/2 peer (no request is written before its preface): its assigned requests go back to
            // the queue and the loss counts as a failed connection attempt.
            for rid in c.requests.sorted() where requests[rid] != nil { pushResend(rid) }
            connectFailed(message: message)
            return
        }
        settleRequests(of: c, message: message, now: now)
    }

    // MARK: Poll

    /// The earliest time a ``poll(now:)`` has something to do without a new event (nil: nothing scheduled).
    package func nextWakeup() -> Double? {
        var due: Double?
        func consider(_ t: Double) { due = min(due ?? t, t) }
        var head = deadlinesHead
        while head < deadlines.count, requests[deadlines[head].id] == nil { head += 1 }
        if head < deadlines.count { consider(deadlines[head].due) }
        for rid in backingOff {
            if case .backingOff(let until)? = requests[rid]?.place { consider(until) }
        }
        for c in connections.values {
            switch c.phase {
            case .connecting(let since): consider(since + policy.connectTimeoutSeconds)
            case .ready, .draining:
                if let p = c.pingSentAt { consider(p + policy.pingTimeoutSeconds) }
                else if policy.keepaliveSeconds > 0 { consider(c.lastHeard + policy.keepaliveSeconds) }
                if policy.idleTimeoutSeconds > 0, c.requests.isEmpty { consider(c.idleSince + policy.idleTimeoutSeconds) }
            }
        }
        return due
    }

    /// Applies deadlines and keepalive, assigns queued requests to streams, opens connections; returns what the
    /// transport must do, in order.
    package mutating func poll(now: Double) -> [Action] {
        expire(now: now)
        releaseBackoffs(now: now)
        upkeep(now: now)
        assign(now: now)
        let out = pending
        pending = []
        return out
    }

    // MARK: Internals

    private func capacity(_ c: Connection) -> Int {
        guard c.phase == .ready, c.confirmed else { return 0 }
        let limit = min(c.peerLimit, policy.maxConcurrentStreams)
        return c.warm ? limit : min(1, limit)
    }

    private mutating func assign(now: Double) {
        while true {
            guard let rid = peekQueued() else { break }
            var best: ConnectionID?
            var bestFree = 0
            for (cid, c) in connections {
                let free = capacity(c) - c.requests.count
                if free > bestFree || (free == bestFree && free > 0 && cid < (best ?? Int.max)) {
                    best = cid
                    bestFree = free
                }
            }
            guard let cid = best else { break }
            popQueued()
            requests[rid]!.place = .assigned(cid)
            connections[cid]!.requests.insert(rid)
            connections[cid]!.started += 1
            if policy.streamsPerConnection > 0, connections[cid]!.started >= policy.streamsPerConnection {
                connections[cid]!.phase = .draining
            }
            pending.append(.start(rid, on: cid))
        }
        guard peekQueued() != nil else { return }
        var live = 0
        for c in connections.values {
            switch c.phase {
            case .connecting: return   // one connection attempt at a time
            case .ready: live += 1
            case .draining: break
            }
        }
        guard live < policy.maxConnections else { return }
        let cid = nextConnectionID
        nextConnectionID += 1
        connections[cid] = Connection(phase: .connecting(since: now))
        pending.append(.connect(cid))
    }

    private mutating func expire(now: Double) {
        while deadlinesHead < deadlines.count {
            let (due, rid) = deadlines[deadlinesHead]
            guard let r = requests[rid] else { deadlinesHead += 1; continue }   // ended already
            guard due <= now else { break }
            deadlinesHead += 1
            let seconds = Self.format(policy.requestTimeoutSeconds)
            switch r.place {
            case .queued, .backingOff:
                counters.timedOut += 1
                if r.refusals > 0 {
                    fail(rid, .refused, "refused \(r.refusals) time(s) by the server (REFUSED_STREAM or GOAWAY) and not answered within the \(seconds) s deadline; not processed", timedOut: true)
                } else {
                    fail(rid, .notSent, "no stream became free within the \(seconds) s deadline; not sent", timedOut: true)
                }
            case .assigned(let cid):
                connections[cid]?.requests.remove(rid)
                counters.timedOut += 1
                fail(rid, .notSent, "deadline of \(seconds) s passed before the request went out", timedOut: true)
            case .open(let cid, let sid, let written):
                if connections[cid] != nil {
                    connections[cid]!.requests.remove(rid)
                    connections[cid]!.streamIDs[sid] = nil
                    if connections[cid]!.requests.isEmpty { connections[cid]!.idleSince = now }
                    pending.append(.cancel(streamID: sid, on: cid))
                    counters.resetsSent += 1
                }
                counters.timedOut += 1
                if written {
                    fail(rid, .mayHaveBeenProcessed, "no answer within the \(seconds) s deadline after the request was sent", timedOut: true)
                } else {
                    fail(rid, .notSent, "deadline of \(seconds) s passed before the request went out", timedOut: true)
                }
            }
        }
        if deadlinesHead > 4096, deadlinesHead * 2 > deadlines.count {
            deadlines.removeFirst(deadlinesHead)
            deadlinesHead = 0
        }
    }

    private mutating func upkeep(now: Double) {
        for cid in connections.keys.sorted() {
            guard let c = connections[cid] else { continue }
            switch c.phase {
            case .connecting(let since):
                if now - since >= policy.connectTimeoutSeconds {
                    connections[cid] = nil
                    pending.append(.close(cid))
                    connectFailed(message: "could not connect within \(Self.format(policy.connectTimeoutSeconds)) s")
                }
                continue
            case .ready, .draining:
                break
            }
            if let sent = c.pingSentAt, now - sent >= policy.pingTimeoutSeconds {
                connections[cid] = nil
                pending.append(.close(cid))
                settleRequests(of: c, message: "the connection is dead: no PING answer within \(Self.format(policy.pingTimeoutSeconds)) s", now: now)
                continue
            }
            if c.phase == .draining, c.requests.isEmpty {
                connections[cid] = nil
                pending.append(.close(cid))
                continue
            }
            if policy.idleTimeoutSeconds > 0, c.requests.isEmpty, now - c.idleSince >= policy.idleTimeoutSeconds {
                connections[cid] = nil
                pending.append(.close(cid))
                continue
            }
            if policy.keepaliveSeconds > 0, c.pingSentAt == nil, now - c.lastHeard >= policy.keepaliveSeconds {
                connections[cid]!.pingSentAt = now
                counters.pingsSent += 1
                pending.append(.ping(cid))
            }
        }
    }

    private mutating func connectFailed(message: String) {
        counters.connectFailures += 1
        if connections.values.contains(where: { $0.phase == .ready }) { return }
        var keep: [RequestID] = []
        for rid in takeAllQueued() {
            requests[rid]!.connectFailures += 1
            requests[rid]!.attempts += 1
            if requests[rid]!.connectFailures >= policy.maxConnectAttempts {
                fail(rid, .notSent, message)
            } else {
                keep.append(rid)
            }
        }
        for rid in keep { pushResend(rid) }
    }

    /// Ends or resends every request of a connection that is gone.
    private mutating func settleRequests(of c: Connection, message: String, now: Double) {
        for (sid, rid) in c.streamIDs.sorted(by: { $0.key < $1.key }) {
            guard case .open(_, _, let written) = requests[rid]?.place else { continue }
            if let last = c.goawayLastStreamID, sid > last {
                refused(rid, now: now)
            } else if written {
                fail(rid, .mayHaveBeenProcessed, message + " after the request was sent; APNs may have processed it")
            } else {
                requeueUnsent(rid, message: message)
            }
        }
        for rid in c.requests where c.streamIDs.values.contains(rid) == false {
            if case .assigned = requests[rid]?.place { requeueUnsent(rid, message: message) }
        }
    }

    /// A stream that was not processed: resent. Above a GOAWAY's last-stream-id it goes at once to another
    /// connection (opening one is the natural pace); after a REFUSED_STREAM reset, at once the first time, then
    /// after a doubling backoff, and the caps differ (``Policy/maxRefusedResends``, ``Policy/maxGoawayResends``).
    private mutating func refused(_ rid: RequestID, now: Double, byReset: Bool = false) {
        counters.refused += 1
        requests[rid]!.refusals += 1
        if byReset { requests[rid]!.resets += 1 }
        let refusals = requests[rid]!.refusals
        let resets = requests[rid]!.resets
        if resets > policy.maxRefusedResends {
            fail(rid, .refused, "the server reset the stream with REFUSED_STREAM \(resets) times; not processed")
        } else if refusals > policy.maxGoawayResends {
            fail(rid, .refused, "the server refused the stream \(refusals) times (REFUSED_STREAM or GOAWAY); not processed")
        } else if !byReset || resets == 1 {
            pushResend(rid)
        } else {
            let wait = min(policy.refusedBackoffCapSeconds, policy.refusedBackoffSeconds * Double(1 << min(resets - 2, 30)))
            requests[rid]!.place = .backingOff(until: now + wait)
            backingOff.append(rid)
        }
    }

    /// Queues refused requests whose backoff is over (in the order they were refused).
    private mutating func releaseBackoffs(now: Double) {
        guard !backingOff.isEmpty else { return }
        var waiting: [RequestID] = []
        for rid in backingOff {
            guard case .backingOff(let until)? = requests[rid]?.place else { continue }   // ended meanwhile
            if until <= now { pushResend(rid) } else { waiting.append(rid) }
        }
        backingOff = waiting
    }

    private mutating func requeueUnsent(_ rid: RequestID, message: String) {
        guard let r = requests[rid] else { return }
        if r.attempts - r.refusals > 5 + policy.maxConnectAttempts {
            fail(rid, .notSent, message)
            return
        }
        counters.retriedUnsent += 1
        pushResend(rid)
    }

    private mutating func pushResend(_ rid: RequestID) {
        requests[rid]!.place = .queued
        resend.append(rid)
    }

    private mutating func fail(_ rid: RequestID, _ kind: HTTP2StreamFailure.Kind, _ message: String, timedOut: Bool = false) {
        guard let r = requests.removeValue(forKey: rid) else { return }
        counters.failures += 1
        switch kind {
        case .notSent: counters.notSent += 1
        case .mayHaveBeenProcessed: counters.mayHaveBeenProcessed += 1
        case .refused: break
        }
        pending.append(.fail(rid, HTTP2StreamFailure(kind: kind, message: message, attempts: max(r.attempts, 1), timedOut: timedOut)))
    }

    // The two queues: resends first (they were queued earlier), then new requests. Entries whose request ended
    // or moved are skipped lazily.

    private func isQueued(_ rid: RequestID) -> Bool { requests[rid]?.place == .queued }

    private mutating func peekQueued() -> RequestID? {
        while resendHead < resend.count {
            if isQueued(resend[resendHead]) { return resend[resendHead] }
            resendHead += 1
        }
        if resendHead > 0 { resend.removeAll(keepingCapacity: true); resendHead = 0 }
        while queueHead < queue.count {
            if isQueued(queue[queueHead]) { return queue[queueHead] }
            queueHead += 1
        }
        if queueHead > 0 { queue.removeAll(keepingCapacity: true); queueHead = 0 }
        return nil
    }

    private mutating func popQueued() {
        if resendHead < resend.count { resendHead += 1 } else { queueHead += 1 }
        if queueHead > 4096, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    private func queuedIDs() -> [RequestID] {
        (resend[resendHead...] + queue[queueHead...]).filter { isQueued($0) }
    }

    private mutating func takeAllQueued() -> [RequestID] {
        var seen = Set<RequestID>()
        let ids = queuedIDs().filter { seen.insert($0).inserted }
        resend = []; resendHead = 0
        queue = []; queueHead = 0
        return ids
    }

    static func errorName(_ code: UInt32) -> String { HTTP2ErrorCode(rawValue: code).description }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
