/// Counters of what mock-apns did at the HTTP/2 level since `start()`: a client's reset storm, the
/// connection faults it met, and idle handling show here (`MockAPNsServer.statistics`, `GET /_mock/stats`,
/// and the line mock-apns prints when it stops).
public struct MockAPNsStatistics: Sendable, Equatable {
    /// APNs requests answered or faulted (`/_mock` calls not counted).
    public var requests = 0
    /// Connections accepted.
    public var connectionsAccepted = 0
    /// RST_STREAM frames received from clients (libcurl 7.x sends one per finished stream).
    public var resetStreamsReceived = 0
    /// GOAWAY frames sent (faults, idle timeouts, protocol errors).
    public var goawaysSent = 0
    /// Streams answered with RST_STREAM REFUSED_STREAM (`refused` fault), not processed.
    public var refusedStreams = 0
    /// Streams above a GOAWAY's last-stream-id that arrived or completed after it; not processed.
    public var streamsCutByGoaway = 0
    /// `drop-before` (alias `drop`) faults: connection closed, request not processed.
    public var dropsBeforeProcessing = 0
    /// `drop-after` faults: request processed, connection closed before the answer.
    public var dropsAfterProcessing = 0
    /// SETTINGS_MAX_CONCURRENT_STREAMS changes sent by the `streams=N` fault.
    public var streamLimitChanges = 0
    /// Connections closed for idleness (no bytes for the idle timeout, or no TLS handshake in time).
    public var idleConnectionsClosed = 0
    /// Connections the mock fell silent on (a request after the no-PING idle period) and requests left unanswered there.
    public var silencedConnections = 0
    public var requestsIgnoredOnSilentConnections = 0
    /// Times accepting paused because the process hit its descriptor limit (EMFILE/ENFILE).
    public var acceptPausesAtDescriptorLimit = 0

    public init() {}

    /// One JSON object with the counters under their spelled-out names.
    public var json: String {
        let fields: [(String, Int)] = [
            ("requests", requests), ("connections-accepted", connectionsAccepted),
            ("rst-stream-received", resetStreamsReceived), ("goaway-sent", goawaysSent),
            ("refused-streams", refusedStreams), ("streams-cut-by-goaway", streamsCutByGoaway),
            ("drops-before-processing", dropsBeforeProcessing), ("drops-after-processing", dropsAfterProcessing),
            ("stream-limit-changes", streamLimitChanges), ("idle-connections-closed", idleConnectionsClosed),
            ("silenced-connections", silencedConnections),
            ("requests-ignored-on-silent-connections", requestsIgnoredOnSilentConnections),
            ("accept-pauses-at-descriptor-limit", acceptPausesAtDescriptorLimit),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// The stop line's summary: `RST_STREAM received 0, GOAWAY sent 1, refused 0, drops before/after 2/1, …`.
    public var summary: String {
        "RST_STREAM received \(resetStreamsReceived), GOAWAY sent \(goawaysSent), refused \(refusedStreams), "
            + "cut by GOAWAY \(streamsCutByGoaway), drops before/after processing \(dropsBeforeProcessing)/\(dropsAfterProcessing), "
            + "idle closed \(idleConnectionsClosed), silenced \(silencedConnections), connections \(connectionsAccepted)"
    }
}
