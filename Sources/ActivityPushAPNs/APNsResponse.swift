import ActivityPushCore
import Foundation

/// What APNs answered to one request.
///
/// Source: Apple, "Handling notification responses from APNs" (spec §4.1): the status, `apns-id`,
/// `apns-unique-id` (development only), and for an error a JSON body `{"reason": "..."}`; a 410 also carries
/// `timestamp` in **milliseconds** since 1970-01-01.
public struct APNsResponse: Sendable, Hashable {
    /// HTTP `:status` (200 success; 201/204 for channel management).
    public var status: Int
    /// `apns-id` echoed by APNs (lowercase UUID), nil when absent.
    public var apnsID: String?
    /// `apns-unique-id` (sandbox only): the id to look the push up in the Push Notifications Console.
    public var uniqueID: String?
    /// `apns-request-id` (broadcast and channel endpoints).
    public var requestID: String?
    /// `apns-channel-id` (channel create / read).
    public var channelID: String?
    /// The error `reason`, nil on success or when the body carried none.
    public var reason: APNsReason?
    /// 410 only: when APNs last confirmed the token was not valid for the topic, **milliseconds** since 1970-01-01 (UNIX).
    public var timestampMilliseconds: Int64?
    /// `Retry-After` in seconds (a delta or an HTTP date converted to a delta), when APNs sent one.
    public var retryAfterSeconds: Double?
    /// The raw response body (JSON for errors and channel reads; empty on a push success).
    public var body: [UInt8]

    /// Makes a response from its parts (tests, the mock); each parameter sets the property of the same name.
    /// `timestampMilliseconds` is milliseconds since 1970-01-01 (UNIX), `retryAfterSeconds` a delay in seconds.
    public init(status: Int, apnsID: String? = nil, uniqueID: String? = nil, requestID: String? = nil,
                channelID: String? = nil, reason: APNsReason? = nil, timestampMilliseconds: Int64? = nil,
                retryAfterSeconds: Double? = nil, body: [UInt8] = []) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.requestID = requestID
        self.channelID = channelID
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
        self.retryAfterSeconds = retryAfterSeconds
        self.body = body
    }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Builds a response from a status, response headers (lowercase names) and the body, reading `reason` and
    /// `timestamp` from a JSON error body. A body that is not JSON leaves `reason` nil; it never throws.
    public init(status: Int, headers: [String: String], body: [UInt8], now: Date = Date()) {
        var reason: APNsReason?
        var timestamp: Int64?
        if !body.isEmpty, let obj = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            if let r = obj["reason"] as? String { reason = APNsReason(rawValue: r) }
            if let t = obj["timestamp"] as? NSNumber { timestamp = t.int64Value }
            else if let t = obj["timestamp"] as? String { timestamp = Int64(t) }
        }
        self.init(status: status, apnsID: headers[APNsHeaderName.id.rawValue],
                  uniqueID: headers[APNsHeaderName.uniqueID.rawValue],
                  requestID: headers[APNsHeaderName.requestID.rawValue],
                  channelID: headers[APNsHeaderName.channelID.rawValue], reason: reason,
                  timestampMilliseconds: timestamp,
                  retryAfterSeconds: headers["retry-after"].flatMap { Self.parseRetryAfter($0, now: now) },
                  body: body)
    }

    /// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an IMF-fixdate. Returns seconds from `now` (≥ 0; a date
    /// in the past gives 0), or nil when the value is neither (never throws).
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let s = Double(v), s.isFinite, s >= 0 { return s }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let d = f.date(from: v) else { return nil }
        return max(0, d.timeIntervalSince(now))
    }
}

/// A request that got no HTTP response: the connection could not be made, dropped, timed out, or the client
/// was shut down.
///
/// ``kind`` says what the protocol lets us know about whether APNs processed it (RFC 9113 §6.8 GOAWAY's
/// last-stream-id and §8.7 `REFUSED_STREAM` say a stream was *not* processed; a request written and never
/// answered may have been).
public struct APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is known about whether the server processed the request. An open set of names.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name (`not-sent`, `refused`, `may-have-been-processed`, or another).
        public var rawValue: String
        /// Makes a kind from its name; any string is accepted (an open set).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The request never left this process (connect, DNS, TLS or proxy failure, deadline passed while it
        /// waited for a stream, client shut down). Resending cannot duplicate it.
        public static let notSent = Kind(rawValue: "not-sent")
        /// The server said it did not process the stream: `RST_STREAM` with `REFUSED_STREAM`, or a stream above
        /// the last-stream-id of a `GOAWAY`. The client resends these at once on a healthy connection with the
        /// same `apns-id`; a caller sees this kind only when those resends ran out.
        public static let refused = Kind(rawValue: "refused")
        /// The request was written (in whole or in part) and no answer came: the connection dropped, the
        /// server reset the stream with another code, or the request's deadline passed. APNs may have
        /// processed it — resending can deliver it twice.
        public static let mayHaveBeenProcessed = Kind(rawValue: "may-have-been-processed")
        /// The ``rawValue``.
        public var description: String { rawValue }
    }

    /// What is known about processing.
    public var kind: Kind
    /// What happened, for people (e.g. "connection closed by peer after the request was sent").
    public var message: String
    /// How many times the request was put on the wire or tried (refused streams are retried by the client).
    public var attempts: Int
    /// True when the request's own deadline passed (a timeout), as opposed to a connection failure.
    public var timedOut: Bool
    /// The request's `apns-id` (the push's own, or the one the client gave it), so a "may have been processed"
    /// outcome can be looked up — and a duplicate recognised — by id. Nil when the request had none.
    public var apnsID: String?

    /// Makes an error; each parameter sets the property of the same name.
    public init(kind: Kind, message: String, attempts: Int = 1, timedOut: Bool = false, apnsID: String? = nil) {
        self.apnsID = apnsID
        self.kind = kind
        self.message = message
        self.attempts = attempts
        self.timedOut = timedOut
    }

    /// True when APNs may have processed the request (``Kind/mayHaveBeenProcessed``): resending can duplicate it.
    public var mayHaveBeenProcessed: Bool { kind == .mayHaveBeenProcessed }

    /// `transport error (<kind>): <message>`.
    public var description: String { "transport error (\(kind)): \(message)" }
}

/// The one result of one request: APNs's response, or a transport failure. Every request gets exactly one.
public enum APNsResult: Sendable, Hashable {
    /// APNs answered with an HTTP status (success or error); see ``APNsResponse``.
    case response(APNsResponse)
    /// No HTTP response came; ``APNsTransportError/kind`` says whether APNs may have processed the request.
    case failure(APNsTransportError)

    /// The response, or nil for a ``failure(_:)``.
    public var response: APNsResponse? {
        if case .response(let r) = self { return r }
        return nil
    }

    /// What the caller should do with this result, per the table on ``APNsDisposition``; a ``failure(_:)`` is
    /// `retry(policy.transportDelaySeconds)` whatever its kind (callers that must not duplicate a start check
    /// ``APNsTransportError/mayHaveBeenProcessed`` themselves, as the queue does).
    public func disposition(policy: APNsRetryPolicy = .init()) -> APNsDisposition {
        switch self {
        case .response(let r): return APNsDisposition.classify(status: r.status, reason: r.reason,
                                                                retryAfterSeconds: r.retryAfterSeconds, policy: policy)
        case .failure: return .retry(afterSeconds: policy.transportDelaySeconds)
        }
    }
}
