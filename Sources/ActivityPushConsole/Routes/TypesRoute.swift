import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `GET /v1/types`: the ActivityAttributes types read from `--attributes`, and what this server can do.
    static let types = ConsoleRoute(.get, "/v1/types", schemas: [
        ("Types", #"""
        {
          "type": "object",
          "properties": {
            "server": { "type": "object", "properties": { "bundleID": { "type": "string" }, "environment": { "type": "string", "enum": ["sandbox", "production"] },
              "sendsTo": { "type": "string", "description": "the device-push base URL sends go to (Apple's host for the environment, or --url)" },
              "canSend": { "type": "boolean" }, "canEnqueue": { "type": "boolean" }, "maxBodyBytes": { "type": "integer" } } },
            "files": { "type": "array", "items": { "type": "string" } },
            "types": { "type": "array", "items": { "type": "object", "properties": {
              "name": { "type": "string" }, "location": { "type": "string" },
              "attributes": { "type": "object", "description": "a shape: {kind, …} as in `activity-push schema --format json`" },
              "content-state": { "type": "object" } } } }
          }
        }
        """#),
    ], operation: #"""
        {
          "summary": "The ActivityAttributes types read from --attributes, and what this server can do",
          "operationId": "types",
          "responses": {
            "200": { "description": "Types as `activity-push schema --format json` describes them, plus server facts",
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Types" } } } }
          }
        }
        """#) { api, context throws(APIError) in api.types() }
}

extension ConsoleAPI {
    /// `{"server": {bundleID, environment, sendsTo, canSend, canEnqueue, maxBodyBytes}, "files": […], "types": […]}`
    /// (`environment` is `sandbox` or `production`, what pushes are enqueued for; `sendsTo` the base URL sends go to):
    /// the types exactly as `activity-push schema --format json` describes them (``ActivitySchemaDescription``).
    func types() -> HTTPResponse {
        let described = configuration.schema.map(ActivitySchemaDescription.json) ?? .obj([("files", .arr([])), ("types", .arr([]))])
        guard case .object(var members) = described else { return .json(200, described) }
        let server: JSONValue = .obj([
            ("bundleID", .string(configuration.bundleID)), ("environment", .string(configuration.queueEnvironment.name)),
            ("sendsTo", .string(configuration.environment.deviceURL)),
            ("canSend", .bool(client != nil)), ("canEnqueue", .bool(outbox != nil)),
            ("maxBodyBytes", .int(configuration.maxBodyBytes)),
        ])
        members.insert(JSONMember(key: "server", value: JSONNode(server)), at: 0)
        return .json(200, .object(members))
    }
}
