import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `GET /v1/journal`: this console's recent sends and enqueues, and the queue's latest attempts.
    static let journal = ConsoleRoute(.get, "/v1/journal", operation: #"""
        {
          "summary": "Recent sends and enqueues of this console (newest first), and the queue's latest attempts",
          "operationId": "journal",
          "parameters": [{ "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 200, "default": 50 } }],
          "responses": {
            "200": { "description": "Journal", "content": { "application/json": { "schema": { "type": "object", "properties": {
              "entries": { "type": "array", "items": { "$ref": "#/components/schemas/JournalEntry" } },
              "queueAttempts": { "type": "array", "items": { "type": "object" } } } } } } },
            "400": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try api.journalResponse(context.request) }
}

extension ConsoleAPI {
    /// `?limit=N` (default 50, at most 200): this console's sends and enqueues, newest first, and — with a queue —
    /// the queue's latest attempts.
    func journalResponse(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var limit = 50
        if let text = request.query["limit"] {
            guard let asked = Int(text), asked > 0 else { throw .badRequest("limit", "expected a positive whole number, got '\(text)'") }
            limit = min(asked, journal.capacity)
        }
        var out: [(String, JSONValue)] = [("entries", .arr(journal.recent(limit).map(\.json)))]
        if let outbox, let attempts = try? outbox.store.journal(pushID: nil, limit: limit) {
            out.append(("queueAttempts", .arr(attempts.map { attempt in
                .obj([("pushID", .number(JSONNumber(lexeme: String(attempt.pushID)))),
                      ("time", .string(ConsoleJournalEntry.iso8601(attempt.atUnixSeconds))),
                      ("target", .string(attempt.tokenRedacted)), ("outcome", .string(attempt.outcome.rawValue)),
                      ("status", attempt.status.map { .int($0) } ?? .null), ("reason", attempt.reason.map { .string($0) } ?? .null),
                      ("apnsID", .string(attempt.apnsID)),
                      ("latencyMs", attempt.latencyMilliseconds.map { .double($0) } ?? .null)])
            })))
        }
        return .json(200, .obj(out))
    }
}
