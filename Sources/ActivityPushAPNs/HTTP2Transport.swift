import CCurl
import Foundation
import Synchronization

/// How an ``HTTP2Transport`` connects.
public struct HTTP2TransportConfiguration: Sendable, Hashable {
    /// PEM file of CA certificates to trust instead of the system store (e.g. the mock's CA). nil: system CAs.
    public var caFile: String?
    /// Connections per host. 1 (the default) multiplexes every request on one HTTP/2 connection, as Apple
    /// recommends; N > 1 opens a pool of N, each driven by its own event-loop thread.
    public var connections: Int
    /// Client cap on concurrent streams per connection. The server's own `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// (APNs: 1 until the first valid token, then up to 1000) is honoured too: extra requests wait in nghttp2's queue.
    public var maxConcurrentStreams: Int
    /// Whole-request limit in seconds, from the moment the request gets a stream slot. Nothing waits longer.
    public var requestTimeoutSeconds: Double
    /// TCP + TLS connect limit in seconds.
    public var connectTimeoutSeconds: Double
    /// Keepalive interval in seconds: HTTP/2 PING through `CURLOPT_UPKEEP_INTERVAL_MS` + `curl_easy_upkeep`,
    /// and TCP keepalive probes after this much idle time.
    public var keepaliveSeconds: Double
    /// Requests after which the lane moves to a fresh connection (0: never, the default). libcurl before 8.0
    /// sends an RST_STREAM after every completed stream, and servers with HTTP/2 rapid-reset protection
    /// (nghttp2 ≥ 1.57 and Debian's backport: burst 1000) may then close the connection; set e.g. 900 for such a
    /// server. Off by default: rotation closes the old connection with a last FORBID_REUSE request, and libcurl
    /// 7.88 sometimes fails that request with "stream not closed cleanly" after the server processed it (seen in
    /// the two-worker queue test under CPU load), which makes the queue send it twice. mock-apns tolerates the resets.
    public var streamsPerConnection: Int
    /// libcurl verbose output on standard error (never use in production: it prints headers, including the token).
    public var verbose: Bool

    public init(caFile: String? = nil, connections: Int = 1, maxConcurrentStreams: Int = 1000,
                requestTimeoutSeconds: Double = 30, connectTimeoutSeconds: Double = 10, keepaliveSeconds: Double = 60,
                streamsPerConnection: Int? = nil, verbose: Bool = false) {
        self.streamsPerConnection = max(0, streamsPerConnection ?? 0)
        self.caFile = caFile
        self.connections = max(1, connections)
        self.maxConcurrentStreams = max(1, maxConcurrentStreams)
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.keepaliveSeconds = keepaliveSeconds
        self.verbose = verbose
    }
}

/// The outcome of one request at the transport level.
public typealias HTTP2Result = Result<HTTP2Response, APNsTransportError>

/// An HTTP/2 client on libcurl's multi interface with nghttp2: requests are multiplexed as streams on one
/// connection per host (`CURLPIPE_MULTIPLEX`, `CURLOPT_PIPEWAIT`, `CURLMOPT_MAX_HOST_CONNECTIONS` 1), or on a
/// pool of N. `https://` URLs negotiate `h2` by ALPN; `http://` URLs speak cleartext HTTP/2 with prior knowledge.
///
/// Each connection is driven by one event-loop thread running `curl_multi_poll`; ``send(_:)`` suspends the
/// calling task on a continuation the loop resumes. Every request gets exactly one result: a response, or an
/// ``APNsTransportError`` after at most ``HTTP2TransportConfiguration/requestTimeoutSeconds``.
///
/// After GOAWAY or a dropped connection the next request opens a new connection. A request whose first try
/// failed before it was sent (connect/TLS failure, no body byte read) is tried once more; a request whose body
/// went out is never resent — neither here nor by libcurl (rewinds are refused) — and ends as a failure with
/// ``APNsTransportError/mayHaveBeenProcessed`` true, even when the server refused the stream (libcurl cannot
/// tell that apart): the caller's retry policy decides, so no push is silently sent twice.
///
/// Call ``shutdown()`` when done: it lets queued and in-flight requests finish, then stops the threads.
public final class HTTP2Transport: Sendable {
    public let configuration: HTTP2TransportConfiguration
    private let lanes: [HTTP2Lane]
    private let next = Atomic<Int>(0)

    /// - Throws: ``APNsTransportError`` when libcurl cannot be initialised or lacks HTTP/2 support.
    public init(configuration: HTTP2TransportConfiguration = .init()) throws {
        HTTP2Transport.globalInit
        guard ap_curl_has_http2() == 1 else {
            throw APNsTransportError(curlCode: 0, message: "libcurl was built without HTTP/2 (nghttp2)", mayHaveBeenProcessed: false)
        }
        self.configuration = configuration
        var lanes: [HTTP2Lane] = []
        for i in 0..<configuration.connections {
            lanes.append(try HTTP2Lane(index: i, configuration: configuration))
        }
        self.lanes = lanes
        for lane in lanes { lane.start() }
    }

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends one request and waits for its one result.
    public func send(_ request: HTTP2Request) async -> HTTP2Result {
        await withCheckedContinuation { (c: CheckedContinuation<HTTP2Result, Never>) in
            submit(request) { c.resume(returning: $0) }
        }
    }

    /// Queues one request; `completion` runs exactly once, on the event-loop thread (keep it short).
    public func submit(_ request: HTTP2Request, completion: @escaping @Sendable (HTTP2Result) -> Void) {
        let lane: HTTP2Lane
        if lanes.count == 1 {
            lane = lanes[0]
        } else {
            // Least loaded; ties broken round-robin.
            let start = next.wrappingAdd(1, ordering: .relaxed).oldValue
            var best = lanes[start % lanes.count]
            for k in 1..<lanes.count {
                let l = lanes[(start + k) % lanes.count]
                if l.load < best.load { best = l }
            }
            lane = best
        }
        lane.enqueue(HTTP2Job(request: request, completion: completion))
    }

    /// Counters summed over every connection.
    public var statistics: HTTP2TransportStatistics {
        var s = HTTP2TransportStatistics(responses: 0, failures: 0, retriedUnsent: 0, connectionsOpened: 0)
        for l in lanes {
            s.responses += l.responses.load(ordering: .relaxed)
            s.failures += l.failures.load(ordering: .relaxed)
            s.retriedUnsent += l.retried.load(ordering: .relaxed)
            s.connectionsOpened += l.connects.load(ordering: .relaxed)
        }
        return s
    }

    /// Stops accepting requests, lets queued and in-flight ones finish (each bounded by the request timeout),
    /// then closes the connections and ends the event-loop threads. Requests submitted afterwards fail at once.
    public func shutdown() async {
        for l in lanes {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in l.stop { c.resume() } }
        }
    }
}

/// One queued request and where its result goes.
struct HTTP2Job: Sendable {
    var request: HTTP2Request
    var completion: @Sendable (HTTP2Result) -> Void
    var attempts = 0
}
