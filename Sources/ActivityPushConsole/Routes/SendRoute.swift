import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `POST /v1/send`: builds and sends one push through the APNs client.
    static let send = ConsoleRoute(.post, "/v1/send", schemas: [
        ("SendRequest", #"""
        {
          "allOf": [{ "$ref": "#/components/schemas/PushFields" }, { "type": "object", "properties": {
            "deviceToken": { "type": "string", "description": "hex push-to-start (start) or update token; omit for a broadcast" } } }]
        }
        """#),
        ("SendResult", #"""
        {
          "allOf": [{ "$ref": "#/components/schemas/JournalEntry" }, { "type": "object", "properties": {
            "sent": { "type": "boolean" }, "warnings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" } } } }]
        }
        """#),
    ], operation: #"""
        {
          "summary": "Build and send one push through the APNs client (refused on error findings)",
          "operationId": "send",
          "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SendRequest" } } } },
          "responses": {
            "200": { "description": "APNs answered (its status may still be an error: see status and reason)",
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SendResult" } } } },
            "422": { "description": "Not sent: error findings", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Refusal" } } } },
            "502": { "description": "APNs could not be reached", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SendResult" } } } },
            "503": { "$ref": "#/components/responses/Error" },
            "400": { "$ref": "#/components/responses/Error" },
            "413": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try await api.send(context.request) }
}

extension ConsoleAPI {
    /// Typed fields plus `"deviceToken": "<hex>"` (omit for a broadcast with `channelID`) → one APNs request
    /// through the client. 200 with APNs's answer (`status`, `apnsID`, `reason`, `latencyMs`, `device`); 422 with the
    /// findings and nothing sent; 502 when APNs could not be reached; 503 when sending is not configured.
    func send(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let form = try PushForm(&body)
        let token = try body.string("deviceToken").flatMap { $0.isEmpty ? nil : $0 }
        try body.rejectUnknown(allowed: [])
        let built = try builtRequest(form)
        let pushRequest: PushRequest
        switch built {
        case .failure(let error): return refusal(error, action: "sent")
        case .success(let made): pushRequest = made
        }
        guard let client else {
            throw APIError(503, "not-configured", "sending is not configured on this console",
                           fix: "start serve with --auth-key AuthKey_KEYID.p8 --team-id TEAM (and --url for a mock)")
        }
        let target: String
        let start = Date()
        let result: APNsResult
        do {
            switch pushRequest.destination {
            case .device:
                guard let token else {
                    throw APIError.badRequest("deviceToken", "required for a device push (hex push-to-start or update token)",
                                              fix: "or give channelID to broadcast an update or end")
                }
                target = DeviceToken.redacted(token)
                result = try await client.send(pushRequest, deviceToken: token)
            case .broadcast(let channelID):
                if token != nil { throw APIError.badRequest("deviceToken", "a broadcast goes to its channel; leave deviceToken empty") }
                target = "channel:" + channelID
                result = try await client.broadcast(pushRequest)
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw .badRequest("deviceToken", "\(error)")
        }
        let seconds = Date().timeIntervalSince(start)
        var entry = ConsoleJournalEntry(time: start.timeIntervalSince1970, action: "send", event: pushRequest.event.rawValue,
                                        target: target, latencyMilliseconds: seconds * 1000)
        switch result {
        case .response(let answer):
            metrics.sent(status: answer.status, reason: answer.reason?.rawValue, seconds: seconds)
            entry.status = answer.status
            entry.reason = answer.reason?.rawValue
            entry.apnsID = answer.apnsID ?? pushRequest.apnsID
            if configuration.readMockJournal, answer.isSuccess, let apnsID = entry.apnsID {
                entry.device = await DeviceOutcome.lookup(apnsID: apnsID, client: client)
            }
        case .failure(let failure):
            metrics.sent(status: nil, reason: nil, seconds: seconds)
            entry.error = failure.description
        }
        journal.append(entry)
        var out = entry.json.members ?? []
        out.insert(JSONMember(key: "sent", value: JSONNode(.bool(entry.status != nil))), at: 0)
        out.append(JSONMember(key: "warnings", value: JSONNode(.arr(pushRequest.warnings.map(ReportFormatter.findingJSON)))))
        return .json(entry.status == nil ? 502 : 200, .object(out))
    }
}
