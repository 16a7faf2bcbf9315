import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `POST /v1/check`: judges a payload and its headers exactly as `check --format json`.
    static let check = ConsoleRoute(.post, "/v1/check", schemas: [
        ("CheckRequest", #"""
        {
          "type": "object",
          "properties": {
            "payload": { "type": "object", "description": "the push body; line:column of findings refer to it as pretty-printed (2 spaces)" },
            "body": { "type": "string", "description": "instead of payload: the exact body text (findings point into it)" },
            "headers": { "$ref": "#/components/schemas/Headers" },
            "now": { "type": "number", "description": "clock for staleness rules, UNIX seconds (default: now)" },
            "strict": { "type": "boolean", "description": "unknown content-state keys are errors" }
          },
          "examples": [{ "payload": { "aps": { "timestamp": 1767225600, "event": "update", "content-state": { "status": "baking" } } },
                         "headers": { "apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity" } }]
        }
        """#),
    ], operation: #"""
        {
          "summary": "Judge a payload and its headers — the same JSON as `activity-push check --format json`",
          "operationId": "check",
          "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CheckRequest" } } } },
          "responses": {
            "200": { "description": "The verdict (accepted or not, the HTTP status is 200 either way)",
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Report" } } } },
            "400": { "$ref": "#/components/responses/Error" },
            "413": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try api.check(context.request) }
}

extension ConsoleAPI {
    /// `{"payload": {…}} | {"body": "<exact JSON text>"}`, optional `"headers": {…}`, `"now": UNIX`, `"strict": true`
    /// → `{"accept", "findings"}` exactly as `check --format json`. With `payload`, line:column refer to the payload
    /// as written by `JSONWriter.pretty` (what the page previews); with `body`, to the text given.
    func check(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let bytes: [UInt8]
        if let payload = body.node("payload") {
            bytes = Array(JSONWriter.pretty(payload.value.value).utf8)
        } else if let text = try body.string("body") {
            bytes = Array(text.utf8)
        } else {
            throw .badRequest("payload", "required: the push body as a JSON object (or \"body\": its exact text)",
                              fix: "send {\"payload\": {\"aps\": {…}}, \"headers\": {\"apns-push-type\": \"liveactivity\", …}}")
        }
        let headers = try Self.headers(&body)
        let now = try body.double("now") ?? Date().timeIntervalSince1970
        let strict = try body.bool("strict") ?? configuration.strict
        try body.rejectUnknown(allowed: [])
        let report = Validator(schema: configuration.schema, strict: strict).check(body: bytes, headers: headers, nowUnixSeconds: now)
        metrics.checked(accept: report.accept)
        return .json(200, ReportFormatter.jsonValue(report))
    }

    /// `"headers": {"apns-push-type": "liveactivity", "apns-priority": 10, …}` (names any case; strings or numbers).
    static func headers(_ body: inout RequestBody) throws(APIError) -> APNsHeaders? {
        guard let given = body.node("headers") else { return nil }
        guard let members = given.value.value.members else {
            throw .badRequest("headers", "expected an object of header names to values", position: given.value.position)
        }
        var headers = APNsHeaders()
        for member in members {
            switch member.value.value {
            case .string(let text): headers[member.key] = text
            case .number(let number): headers[member.key] = number.lexeme
            case .bool(let flag): headers[member.key] = flag ? "true" : "false"
            default:
                throw .badRequest("headers.\(member.key)", "must be a string or number", position: member.value.position)
            }
        }
        return headers
    }
}
