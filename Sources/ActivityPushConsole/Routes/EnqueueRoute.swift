import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `POST /v1/enqueue`: builds and stores one push per token in the durable queue.
    static let enqueue = ConsoleRoute(.post, "/v1/enqueue", schemas: [
        ("EnqueueRequest", #"""
        {
          "allOf": [{ "$ref": "#/components/schemas/PushFields" }, { "type": "object", "properties": {
            "deviceTokens": { "type": "array", "items": { "type": "string" } },
            "deviceToken": { "type": "string" },
            "notBefore": { "type": "number", "description": "not sent before, UNIX seconds" } } }]
        }
        """#),
    ], operation: #"""
        {
          "summary": "Build and store one push per token in the durable queue (refused on error findings)",
          "operationId": "enqueue",
          "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/EnqueueRequest" } } } },
          "responses": {
            "202": { "description": "Stored; `activity-push worker` sends them",
              "content": { "application/json": { "schema": { "type": "object", "properties": {
                "enqueued": { "type": "integer" }, "ids": { "type": "array", "items": { "type": "integer" } },
                "environment": { "type": "string" }, "warnings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" } } } } } } },
            "422": { "description": "Not stored: error findings", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Refusal" } } } },
            "503": { "$ref": "#/components/responses/Error" },
            "400": { "$ref": "#/components/responses/Error" },
            "413": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try api.enqueue(context.request) }
}

extension ConsoleAPI {
    /// Typed fields plus `"deviceTokens": ["<hex>", …]` (or `"deviceToken"`; none for a broadcast) and optional
    /// `"notBefore": UNIX` → one queue row per token, sent later by `activity-push worker`. 202 with the row ids;
    /// 422 with the findings and nothing stored; 503 without a queue.
    func enqueue(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let form = try PushForm(&body)
        var tokens = try body.strings("deviceTokens") ?? []
        if let one = try body.string("deviceToken"), !one.isEmpty { tokens.append(one) }
        let notBefore = try body.double("notBefore")
        try body.rejectUnknown(allowed: [])
        let built = try builtRequest(form)
        let pushRequest: PushRequest
        switch built {
        case .failure(let error): return refusal(error, action: "enqueued")
        case .success(let made): pushRequest = made
        }
        guard let outbox else {
            throw APIError(503, "not-configured", "no queue on this console", fix: "start serve with --database PATH|postgres://…")
        }
        for (index, token) in tokens.enumerated() where !DeviceToken.isHex(token) {
            throw .badRequest("deviceTokens[\(index)]", "'\(DeviceToken.redacted(token))' is not a hex device token (even number of 0-9a-f characters)",
                              fix: DeviceTokenError.fix)
        }
        let ids: [Int64]
        do {
            ids = try outbox.enqueue(pushRequest, to: tokens, environment: configuration.queueEnvironment,
                                     notBeforeUnixSeconds: notBefore)
        } catch {
            throw APIError(400, "queue", error.description)
        }
        metrics.enqueued(ids.count)
        let target: String
        if case .broadcast(let channelID) = pushRequest.destination { target = "channel:" + channelID } else {
            target = tokens.count == 1 ? DeviceToken.redacted(tokens[0]) : "\(tokens.count) tokens"
        }
        journal.append(ConsoleJournalEntry(time: Date().timeIntervalSince1970, action: "enqueue", event: pushRequest.event.rawValue,
                                           target: target, apnsID: pushRequest.apnsID, queueIDs: ids))
        return .json(202, .obj([
            ("enqueued", .int(ids.count)),
            ("ids", .arr(ids.map { .number(JSONNumber(lexeme: String($0))) })),
            ("environment", .string(configuration.queueEnvironment.name)),
            ("warnings", .arr(pushRequest.warnings.map(ReportFormatter.findingJSON))),
        ]))
    }
}
