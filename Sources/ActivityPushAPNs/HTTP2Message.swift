/// One HTTP/2 request as the transport sends it. Header names are lowercase (HTTP/2 requires it).
public struct HTTP2Request: Sendable, Hashable {
    /// `POST`, `GET` or `DELETE`.
    public var method: String
    /// Absolute URL, e.g. `https://api.sandbox.push.apple.com/3/device/<token>`.
    public var url: String
    public var headers: [HTTP2Header]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [HTTP2Header], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One header field.
public struct HTTP2Header: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}

/// The server's answer: status, response headers (lowercase names; the last value wins) and body.
public struct HTTP2Response: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Counters of one transport since it started (all lanes summed).
public struct HTTP2TransportStatistics: Sendable, Hashable {
    /// Requests that got an HTTP response.
    public var responses: Int
    /// Requests that ended in a transport failure.
    public var failures: Int
    /// Requests sent a second time because the first try provably never reached the server.
    public var retriedUnsent: Int
    /// TCP/TLS connections opened (libcurl `CURLINFO_NUM_CONNECTS` summed).
    public var connectionsOpened: Int
}
