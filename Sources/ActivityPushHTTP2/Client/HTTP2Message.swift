/// One HTTP/2 request as the transport sends it. Header names are lowercase (HTTP/2 requires it).
package struct HTTP2Request: Sendable, Hashable {
    /// `POST`, `GET` or `DELETE`.
    package var method: String
    /// Absolute URL, e.g. `https://api.sandbox.push.apple.com/3/device/<token>`.
    package var url: String
    package var headers: [HTTP2Header]
    package var body: [UInt8]

    package init(method: String, url: String, headers: [HTTP2Header], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The server's answer: status, response headers (lowercase names; the last value wins) and body.
package struct HTTP2Response: Sendable, Hashable {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]
    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
