/// Counters of one HTTP/2 client since it started (every pool summed). For tests, metrics and `send`'s summary.
package struct HTTP2ClientCounters: Sendable, Hashable {
    /// Streams opened (HEADERS submitted), resends included.
    package var streamsOpened = 0
    /// Requests that got an HTTP response.
    package var responses = 0
    /// Requests that ended without a response (any ``HTTP2StreamFailure/Kind``).
    package var failures = 0
    /// Streams the server refused (`REFUSED_STREAM`, or above a GOAWAY's last-stream-id); each was resent.
    package var refused = 0
    /// Requests that ended "may have been processed" (written, never answered).
    package var mayHaveBeenProcessed = 0
    /// Requests that ended "not sent".
    package var notSent = 0
    /// Requests whose deadline passed (in either of the two kinds above).
    package var timedOut = 0
    /// Requests put back in the queue because their stream or connection failed before the request went out.
    package var retriedUnsent = 0
    /// Connections that completed their handshake (TCP, proxy tunnel, TLS, HTTP/2 preface).
    package var connectionsOpened = 0
    /// Connection attempts that failed before HTTP/2 started.
    package var connectFailures = 0
    /// GOAWAY frames received.
    package var goawaysReceived = 0
    /// RST_STREAM frames received.
    package var resetsReceived = 0
    /// RST_STREAM frames this client sent (only to cancel a stream whose deadline passed).
    package var resetsSent = 0
    /// Keepalive PINGs sent.
    package var pingsSent = 0

    package init() {}

    package static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.streamsOpened += rhs.streamsOpened
        sum.responses += rhs.responses
        sum.failures += rhs.failures
        sum.refused += rhs.refused
        sum.mayHaveBeenProcessed += rhs.mayHaveBeenProcessed
        sum.notSent += rhs.notSent
        sum.timedOut += rhs.timedOut
        sum.retriedUnsent += rhs.retriedUnsent
        sum.connectionsOpened += rhs.connectionsOpened
        sum.connectFailures += rhs.connectFailures
        sum.goawaysReceived += rhs.goawaysReceived
        sum.resetsReceived += rhs.resetsReceived
        sum.resetsSent += rhs.resetsSent
        sum.pingsSent += rhs.pingsSent
        return sum
    }
}
