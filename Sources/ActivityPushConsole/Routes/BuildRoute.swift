import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `POST /v1/build`: typed fields to headers and payload through the builder, with its findings.
    static let build = ConsoleRoute(.post, "/v1/build", schemas: [
        ("Built", #"""
        {
          "type": "object", "required": ["accept", "findings", "headers", "payload", "body"],
          "properties": {
            "accept": { "type": "boolean" },
            "findings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" }, "description": "positions refer to body" },
            "headers": { "$ref": "#/components/schemas/Headers" },
            "payload": { "type": "object" },
            "body": { "type": "string", "description": "the exact compact bytes the client would send" }
          }
        }
        """#),
    ], operation: #"""
        {
          "summary": "Typed fields to headers and payload through the builder, with its findings",
          "operationId": "build",
          "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PushFields" } } } },
          "responses": {
            "200": { "description": "Built; findings are warnings only", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Built" } } } },
            "422": { "description": "The push has error findings (payload and headers are still shown)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Built" } } } },
            "400": { "$ref": "#/components/responses/Error" },
            "413": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try api.build(context.request) }
}

extension ConsoleAPI {
    /// Typed fields (``PushForm``) → the builder's headers and payload, and its verdict: 200 with warnings, or
    /// 422 with the error findings (the payload and headers are still returned, for the preview).
    func build(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let form = try PushForm(&body)
        try body.rejectUnknown(allowed: [])
        let push: LiveActivityPush
        switch try form.push(bundleID: configuration.bundleID, schema: configuration.schema) {
        case .success(let made): push = made
        case .failure(let missing):
            // A start without its parts: the same findings `activity-push build` prints; no preview to show.
            return .json(422, .obj([("accept", .bool(false)),
                                    ("findings", .arr(missing.findings.map(ReportFormatter.findingJSON)))]))
        }
        let findings: [Finding]
        let accept: Bool
        do {
            findings = try push.build(schema: configuration.schema).warnings
            accept = true
        } catch {
            findings = error.findings
            accept = false
        }
        return .json(accept ? 200 : 422, .obj([
            ("accept", .bool(accept)),
            ("findings", .arr(findings.map(ReportFormatter.findingJSON))),
            ("headers", Self.headersJSON(push)),
            ("payload", push.payload),
            ("body", .string(JSONWriter.compact(push.payload))),
        ]))
    }

    /// The request headers as sent, plus `:path` for a broadcast (as `activity-push build` prints them).
    static func headersJSON(_ push: LiveActivityPush) -> JSONValue {
        var pairs: [(String, JSONValue)] = push.headers.map { ($0.name, .string($0.value)) }
        if push.broadcastChannelID != nil { pairs.append((":path", .string("/4/broadcasts/apps/\(push.bundleID)"))) }
        return .obj(pairs)
    }
}
