/// Why a client stream ended without an HTTP response, and what that says about whether the server processed it.
///
/// Sources: RFC 9113 §6.8 (a stream above GOAWAY's last-stream-id was not processed), §8.7 (`REFUSED_STREAM`
/// means the stream was not processed; any other reset, a dropped connection or a timeout after the request
/// went out leaves it unknown).
package struct HTTP2StreamFailure: Error, Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// The request never went out (connect, DNS, TLS or proxy failure; deadline passed while it waited for a
        /// stream; shut down).
        case notSent
        /// The server refused the stream (`REFUSED_STREAM`, or above a GOAWAY's last-stream-id) more often than
        /// the client resends.
        case refused
        /// The request was written and no answer came: APNs may have processed it.
        case mayHaveBeenProcessed
    }

    package var kind: Kind
    package var message: String
    /// Times the request was put on a stream or tried on a connection attempt.
    package var attempts: Int
    /// True when the request's own deadline passed.
    package var timedOut: Bool

    package init(kind: Kind, message: String, attempts: Int, timedOut: Bool = false) {
        self.kind = kind
        self.message = message
        self.attempts = attempts
        self.timedOut = timedOut
    }
}
