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
        if let l = request.query["limit"] {
            guard let n = Int(l), n > 0 else { throw .badRequest("limit", "expected a positive whole number, got '\(l)'") }
            limit = min(n, journal.capacity)
        }
        var out: [(String, JSONValue)] = [("entries", .arr(journal.recent(limit).map(\.json)))]
        if let outbox, let attempts = try? outbox.store.journal(pushID: nil, limit: limit) {
            out.append(("queueAttempts", .arr(attempts.map { a in
                .obj([("pushID", .number(JSONNumber(lexeme: String(a.pushID)))),
                      ("time", .string(ConsoleJournalEntry.iso8601(a.atUnixSeconds))),
                      ("target", .string(a.tokenRedacted)), ("outcome", .string(a.outcome.rawValue)),
                      ("status", a.status.map { .int($0) } ?? .null), ("reason", a.reason.map { .string($0) } ?? .null),
                      ("apnsID", .string(a.apnsID)),
                      ("latencyMs", a.latencyMilliseconds.map { .double($0) } ?? .null)])
            })))
        }
        return .json(200, .obj(out))
    }
}
