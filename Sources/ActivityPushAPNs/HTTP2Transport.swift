import ActivityPushHTTP2
import Foundation

/// How the APNs client connects.
public struct HTTP2TransportConfiguration: Sendable, Hashable {
    /// PEM file of CA certificates to trust instead of the system store (e.g. the mock's CA). nil: system CAs.
    public var caFile: String?
    /// Connections per host at most. 1 (the default) multiplexes every request on one HTTP/2 connection, as
    /// Apple recommends; with N > 1 a new connection opens only when the open ones are full.
    public var connections: Int
    /// Client cap on concurrent streams per connection. The server's `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// (APNs: 1 until the first valid provider token, then up to 1000) is honoured too, as it changes.
    public var maxConcurrentStreams: Int
    /// Deadline of one request in seconds, from the moment it is submitted (default 10). A request that never
    /// went out by then ends "not sent"; one that went out and got no answer ends "may have been processed".
    public var requestTimeoutSeconds: Double
    /// DNS + TCP + proxy + TLS limit in seconds.
    public var connectTimeoutSeconds: Double
    /// An HTTP/2 PING after this many seconds without a frame from the server (0: never); no answer within
    /// 10 s closes the connection as dead and the next request opens a new one.
    public var keepaliveSeconds: Double
    /// Streams after which a connection takes no new requests and closes once drained (0: never, the default).
    public var streamsPerConnection: Int

    /// Makes a configuration; each parameter sets the property of the same name (times in seconds).
    /// `connections` and `maxConcurrentStreams` are raised to at least 1; `streamsPerConnection` nil or
    /// negative means 0 (never retire a connection).
    public init(caFile: String? = nil, connections: Int = 1, maxConcurrentStreams: Int = 1000,
                requestTimeoutSeconds: Double = 10, connectTimeoutSeconds: Double = 10, keepaliveSeconds: Double = 60,
                streamsPerConnection: Int? = nil) {
        self.caFile = caFile
        self.connections = max(1, connections)
        self.maxConcurrentStreams = max(1, maxConcurrentStreams)
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.keepaliveSeconds = keepaliveSeconds
        self.streamsPerConnection = max(0, streamsPerConnection ?? 0)
    }

    var policy: HTTP2PoolScheduler.Policy {
        var policy = HTTP2PoolScheduler.Policy()
        policy.maxConnections = connections
        policy.maxConcurrentStreams = maxConcurrentStreams
        policy.requestTimeoutSeconds = requestTimeoutSeconds
        policy.connectTimeoutSeconds = connectTimeoutSeconds
        policy.keepaliveSeconds = keepaliveSeconds
        policy.streamsPerConnection = streamsPerConnection
        return policy
    }
}

package typealias HTTP2Request = ActivityPushHTTP2.HTTP2Request
package typealias HTTP2Origin = ActivityPushHTTP2.HTTP2Origin
package typealias HTTP2ClientResult = ActivityPushHTTP2.HTTP2ClientResult
package typealias HTTP2Header = ActivityPushHTTP2.HTTP2Header
package typealias HTTP2Response = ActivityPushHTTP2.HTTP2Response
/// Counters of the transport (every connection): streams opened, refused, may-have-been-processed, connections
/// opened, PINGs, resets…
package typealias HTTP2TransportStatistics = HTTP2ClientCounters

/// The outcome of one request at the transport level.
package typealias HTTP2Result = Result<HTTP2Response, APNsTransportError>

/// The APNs client's transport: ``HTTP2Client`` (libnghttp2 + OpenSSL, epoll) with its failures in APNs terms
/// (``APNsTransportError/Kind``). The HTTPS proxy comes from `https_proxy` / `HTTPS_PROXY` (and `NO_PROXY`).
package final class HTTP2Transport: Sendable {
    package let configuration: HTTP2TransportConfiguration
    private let client: HTTP2Client

    /// - Throws: ``APNsTransportError`` (not sent) when the CA file cannot be loaded or the proxy variable is
    ///   not an `http://host:port` URL.
    package init(configuration: HTTP2TransportConfiguration = .init(),
                 environment: [String: String] = ProcessInfo.processInfo.environment) throws(APNsTransportError) {
        self.configuration = configuration
        do {
            let (proxy, noProxy, authorization) = try HTTP2ClientConfiguration.proxySettings(from: environment)
            client = try HTTP2Client(configuration: HTTP2ClientConfiguration(
                policy: configuration.policy, caFile: configuration.caFile, proxy: proxy, noProxy: noProxy,
                proxyAuthorization: authorization))
        } catch {
            throw APNsTransportError(kind: .notSent, message: error.message, attempts: 0)
        }
    }

    /// Sends one request and waits for its one result.
    package func send(_ request: HTTP2Request) async -> HTTP2Result {
        await client.send(request).mapError(APNsTransportError.init(_:))
    }

    /// Queues one request; `completion` runs exactly once, on the loop thread (keep it short).
    package func submit(_ request: HTTP2Request, completion: @escaping @Sendable (HTTP2Result) -> Void) {
        client.submit(request) { completion($0.mapError(APNsTransportError.init(_:))) }
    }

    /// Queues one request and hands `completion` the HTTP/2 client's own result (one closure per request, no
    /// mapping layer: for callers that map the result themselves, like ``APNsClient/submit(_:deviceToken:completion:)``).
    package func submitUnmapped(_ request: HTTP2Request, completion: @escaping @Sendable (HTTP2ClientResult) -> Void) {
        client.submit(request, completion: completion)
    }

    package var statistics: HTTP2TransportStatistics { client.counters }

    /// Lets queued and in-flight requests finish (each bounded by its deadline), then closes the connections.
    package func shutdown() async { await client.shutdown() }
}

extension APNsTransportError {
    init(_ failure: HTTP2StreamFailure) {
        let kind: Kind
        switch failure.kind {
        case .notSent: kind = .notSent
        case .refused: kind = .refused
        case .mayHaveBeenProcessed: kind = .mayHaveBeenProcessed
        }
        self.init(kind: kind, message: failure.message, attempts: failure.attempts, timedOut: failure.timedOut)
    }
}
