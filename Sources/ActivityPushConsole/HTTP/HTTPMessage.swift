import ActivityPushCore

/// One HTTP request as the console's router sees it: method, path (no query), query arguments, headers
/// (lowercase names) and the whole body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded by the server (e.g. `/v1/check`).
    public var path: String
    public var query: [String: String]
    /// Header names lowercase.
    public var headers: [String: String]
    public var body: [UInt8]
    /// True when the body went over the server's limit and was discarded (`body` is then empty).
    public var bodyTooLarge: Bool

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], bodyTooLarge: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// One HTTP response: status, headers (in order) and body bytes.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// `application/json` written by ``JSONWriter`` (pretty, so `curl` output reads well).
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")],
                     body: Array((JSONWriter.pretty(value) + "\n").utf8))
    }

    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }
}
