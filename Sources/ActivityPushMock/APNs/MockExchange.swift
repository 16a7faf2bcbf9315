import ActivityPushCore
import Foundation

/// One complete HTTP/2 request as the transport hands it to the APNs logic.
struct MockRequest: Sendable {
    var method: String
    var path: String
    /// Regular headers (names lowercase, as HTTP/2 carries them), in arrival order; pseudo-headers excluded.
    var headers: [(name: String, value: String)]
    /// The body, cut at `MockRequest.storedBodyLimit` bytes; `bodyLength` is the full received length.
    var body: [UInt8]
    var bodyLength: Int
    /// Identifies the connection, for per-connection provider-token state.
    var connectionID: Int
    /// False for a stream at or below a GOAWAY's last-stream-id already sent: it must be processed and
    /// answered, so no fault is drawn for it.
    var faultsApply = true

    /// Bytes of a body kept; more are counted, not stored (APNs answers 413 to them anyway).
    static let storedBodyLimit = 16 * 1024

    func header(_ name: String) -> String? { headers.first(where: { $0.name == name })?.value }
    func count(_ name: String) -> Int { headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) } }
}

/// What the transport should do with one request.
struct MockResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Wait this long before answering (fault injection).
    var delayMilliseconds: Int = 0
    /// Instead of (or, for `.dropAfterProcessing`, after) the answer: nothing (nil) or a connection fault.
    var connectionAction: ConnectionAction? = nil
    /// A valid provider token was seen: raise SETTINGS_MAX_CONCURRENT_STREAMS on this connection.
    var authenticated = false
    /// After answering, send SETTINGS_MAX_CONCURRENT_STREAMS = this on the connection (`streams=N` fault).
    var maxConcurrentStreamsAfter: Int? = nil
    /// Build the answer off the event loop (e.g. rendering a large journal); the transport runs it on another
    /// thread and answers when it returns. The returned response's own `render` is ignored.
    var render: (@Sendable () -> MockResponse)? = nil

    enum ConnectionAction: Sendable, Equatable {
        /// Graceful GOAWAY: this request is not processed; streams up to the last processed one are answered.
        case goaway
        /// GOAWAY, then close at once.
        case goawayAbrupt
        /// Close at once; the request was not processed.
        case dropBeforeProcessing
        /// The request was processed; close at once without sending the answer.
        case dropAfterProcessing
        /// RST_STREAM REFUSED_STREAM; the request was not processed.
        case refuse
    }

    /// `{"reason":"…"}` with `apns-id` (device endpoint) or `apns-request-id` (broadcast/channels) set by the caller.
    static func error(_ status: Int, _ reason: APNsReason, extra: String = "") -> MockResponse {
        var text = "{\"reason\":"
        JSONText.appendString(reason.rawValue, to: &text)
        text += extra + "}"
        return MockResponse(status: status, headers: [("content-type", "application/json")], body: Array(text.utf8))
    }

    static func json(_ status: Int, _ text: String) -> MockResponse {
        MockResponse(status: status, headers: [("content-type", "application/json")], body: Array(text.utf8))
    }
}
