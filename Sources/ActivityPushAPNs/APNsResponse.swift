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
        self.init(status: status, apnsID: headers["apns-id"], uniqueID: headers["apns-unique-id"],
                  requestID: headers["apns-request-id"], channelID: headers["apns-channel-id"], reason: reason,
                  timestampMilliseconds: timestamp,
                  retryAfterSeconds: headers["retry-after"].flatMap { Self.parseRetryAfter($0, now: now) },
                  body: body)
    }

    /// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an IMF-fixdate. Returns seconds from `now` (≥ 0).
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
public struct APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libcurl's `CURLcode` (0 when the failure is the client's own, e.g. shut down).
    public var curlCode: Int
    /// libcurl's message for the code, plus detail.
    public var message: String
    /// False when the request provably never reached the server (connect/TLS failure, refused stream, client
    /// shut down before sending): resending cannot duplicate it. True when it was (or may have been) sent, so
    /// the server may have processed it.
    public var mayHaveBeenProcessed: Bool
    /// How many times the request was put on the wire or tried (1 or 2: the transport retries once only when
    /// the first try was not processed).
    public var attempts: Int

    public init(curlCode: Int, message: String, mayHaveBeenProcessed: Bool, attempts: Int = 1) {
        self.curlCode = curlCode
        self.message = message
        self.mayHaveBeenProcessed = mayHaveBeenProcessed
        self.attempts = attempts
    }

    public var description: String {
        "transport error \(curlCode): \(message)" + (mayHaveBeenProcessed ? " (may have been processed)" : " (not sent)")
    }
}

/// The one result of one request: APNs's response, or a transport failure. Every request gets exactly one.
public enum APNsResult: Sendable, Hashable {
    case response(APNsResponse)
    case failure(APNsTransportError)

    public var response: APNsResponse? {
        if case .response(let r) = self { return r }
        return nil
    }

    /// What the caller should do with this result, per the table on ``APNsDisposition``.
    public func disposition(policy: APNsRetryPolicy = .init()) -> APNsDisposition {
        switch self {
        case .response(let r): return APNsDisposition.classify(status: r.status, reason: r.reason,
                                                                retryAfterSeconds: r.retryAfterSeconds, policy: policy)
        case .failure: return .retry(afterSeconds: policy.transportDelaySeconds)
        }
    }
}
