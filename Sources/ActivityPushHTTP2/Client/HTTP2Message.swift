/// One HTTP/2 request as the transport sends it. Header names are lowercase (HTTP/2 requires it; the client
/// lowercases any that are not).
package struct HTTP2Request: Sendable, Hashable {
    /// `POST`, `GET` or `DELETE`.
    package var method: String
    /// Scheme, host and port; nil when the URL given to ``init(method:url:headers:body:)`` was not an absolute
    /// `http(s)` URL (the request then ends "not sent", naming ``url``).
    package var origin: HTTP2Origin?
    /// `:path`: path and query, `/` at least.
    package var path: String
    package var headers: [HTTP2Header]
    package var body: [UInt8]
    private var unparsedURL: String?

    /// Absolute URL, e.g. `https://api.sandbox.push.apple.com/3/device/<token>` (parsed once, here).
    package init(method: String, url: String, headers: [HTTP2Header], body: [UInt8] = []) {
        self.method = method
        self.headers = headers
        self.body = body
        if let (origin, path) = HTTP2Origin.parse(url) {
            self.origin = origin
            self.path = path
        } else {
            self.path = "/"
            self.unparsedURL = url
        }
    }

    /// A request to a parsed origin (no URL parsing per request: callers that send many requests to one host
    /// parse its URL once).
    package init(method: String, origin: HTTP2Origin, path: String, headers: [HTTP2Header], body: [UInt8] = []) {
        self.method = method
        self.origin = origin
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The absolute URL (as given when it could not be parsed).
    package var url: String { origin.map { $0.description + path } ?? unparsedURL ?? path }
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
