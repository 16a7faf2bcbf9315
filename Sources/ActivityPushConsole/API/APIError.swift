import ActivityPushCore

/// A request the API cannot serve, answered as JSON:
/// `{"error": {"status": 400, "code": "bad-json", "message": "…", "line": 1, "column": 9, "fix": "…"}}`.
///
/// Codes: `bad-json` (400), `bad-request` (400, a field has the wrong type or value), `unauthorized` (401), `forbidden` (403, cross-site),
/// `not-found` (404), `method-not-allowed` (405), `payload-too-large` (413), `queue` (400, the queue refused),
/// `findings` (422, the push has error findings; the body also carries them), `not-configured` (503),
/// `internal` (500).
public struct APIError: Error, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var fix: String?
    /// Where in the request body the problem is (1-based), when known.
    public var position: SourcePosition?
    /// The JSON field at fault (dotted), when known.
    public var field: String?

    public init(_ status: Int, _ code: String, _ message: String, fix: String? = nil,
                field: String? = nil, position: SourcePosition? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.fix = fix
        self.field = field
        self.position = position
    }

    public static func badRequest(_ field: String, _ message: String, fix: String? = nil,
                                  position: SourcePosition? = nil) -> APIError {
        APIError(400, "bad-request", "\(field): \(message)", fix: fix, field: field, position: position)
    }

    /// 413: a body (declared or received) over the console's limit.
    static func payloadTooLarge(maxBytes: Int) -> APIError {
        APIError(413, "payload-too-large", "the request body is over \(maxBytes / 1024) KB",
                 fix: "send at most \(maxBytes) bytes; an APNs payload is at most \(APNsLimits.deviceBodyBytes) bytes (\(APNsLimits.broadcastBodyBytes) broadcast)")
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("status", .int(status)), ("code", .string(code)), ("message", .string(message))]
        if let field { members.append(("field", .string(field))) }
        if let position {
            members.append(("line", .int(position.line)))
            members.append(("column", .int(position.column)))
        }
        if let fix { members.append(("fix", .string(fix))) }
        return .obj([("error", .obj(members))])
    }

    public var response: HTTPResponse {
        var response = HTTPResponse.json(status, json)
        if status == 401 { response.headers.append(("WWW-Authenticate", "Bearer realm=\"activity-push\", Basic realm=\"activity-push\"")) }
        return response
    }
}
