import ActivityPushCore

/// `GET /openapi.json`: the console API as an OpenAPI 3.1 document, generated from the route table
/// (``ConsoleRoutes/all``): each route's path and method, its operation text (registered with the route), the
/// `security` and 401/403 answers of its access scopes, its path parameters and its own component schemas, on
/// top of ``base``. A test checks the result is strict JSON and agrees with the table both ways.
enum OpenAPIDocument {
    /// The document served (rendered once).
    static let text: String = render(ConsoleRoutes.all).text

    /// The document's text and the problems met making it (fragments that are not strict JSON); a test asserts
    /// there are none.
    struct Rendering: Sendable {
        var text: String
        var problems: [String]
    }

    static func render(_ routes: [ConsoleRoute]) -> Rendering {
        var problems: [String] = []
        func parsed(_ text: String, _ what: String) -> JSONValue {
            let document = JSONReader.read(text)
            if let problem = document.problems.first {
                problems.append("\(what): \(problem.message) at \(problem.position)")
            }
            return document.root?.value ?? .obj([("description", .string("unreadable: \(what)"))])
        }
        var root = parsed(base, "OpenAPIDocument.base").members ?? []

        var pathItems: [(pattern: RoutePattern, operations: [(String, JSONValue)])] = []
        var routeSchemas: [(String, JSONValue)] = []
        for route in routes {
            let operation = Self.operation(parsed(route.operation, "\(route.method) \(route.pattern)"), scopes: route.scopes)
            if let index = pathItems.firstIndex(where: { $0.pattern == route.pattern }) {
                pathItems[index].operations.append((route.method.openAPIKey, operation))
            } else {
                pathItems.append((route.pattern, [(route.method.openAPIKey, operation)]))
            }
            for schema in route.schemas {
                routeSchemas.append((schema.name, parsed(schema.text, "schema \(schema.name) of \(route.method) \(route.pattern)")))
            }
        }
        let paths: JSONValue = .obj(pathItems.map { item in
            var members = item.operations
            if !item.pattern.parameterNames.isEmpty {
                members.insert(("parameters", .arr(item.pattern.parameterNames.map { name in
                    .obj([("name", .string(name)), ("in", .string("path")), ("required", .bool(true)),
                          ("schema", .obj([("type", .string("string"))]))])
                })), at: 0)
            }
            return (item.pattern.description, .obj(members))
        })
        let securitySchemes: JSONValue = .obj(AccessScope.all.map { scope in
            (scope.name, .obj([("type", .string("http")), ("scheme", .string("bearer")), ("description", .string(scope.summary))]))
        })

        let componentsIndex = root.firstIndex(where: { $0.key == "components" }) ?? root.endIndex
        root.insert(JSONMember(key: "paths", value: JSONNode(paths)), at: componentsIndex)
        if let index = root.firstIndex(where: { $0.key == "components" }) {
            var components = root[index].value.value.members ?? []
            components.insert(JSONMember(key: "securitySchemes", value: JSONNode(securitySchemes)), at: 0)
            if let schemasIndex = components.firstIndex(where: { $0.key == "schemas" }) {
                let shared = components[schemasIndex].value.value.members ?? []
                for (name, _) in routeSchemas where shared.contains(where: { $0.key == name }) {
                    problems.append("schema \(name) is both shared and registered with a route")
                }
                components[schemasIndex].value = JSONNode(.object(shared + routeSchemas.map {
                    JSONMember(key: $0.0, value: JSONNode($0.1))
                }))
            }
            root[index].value = JSONNode(.object(components))
        }
        return Rendering(text: JSONWriter.pretty(.object(root)) + "\n", problems: problems)
    }

    /// The route's operation with `security` from its scopes (`{}` first: without a token configured the route is
    /// open) and the access check's 401 and 403 answers.
    static func operation(_ registered: JSONValue, scopes: [AccessScope]) -> JSONValue {
        var members = registered.members ?? []
        let security: JSONValue = .arr([.obj([])] + scopes.map { .obj([($0.name, .arr([]))]) })
        members.append(JSONMember(key: "security", value: JSONNode(security)))
        if let index = members.firstIndex(where: { $0.key == "responses" }) {
            var responses = members[index].value.value.members ?? []
            for status in ["401", "403"] where !responses.contains(where: { $0.key == status }) {
                responses.append(JSONMember(key: status, value: JSONNode(.obj([("$ref", .string("#/components/responses/Error"))]))))
            }
            members[index].value = JSONNode(.object(responses))
        }
        return .object(members)
    }

    /// The document's info, servers and the component schemas several routes share; `paths`, `security` and the
    /// route-only schemas are added from the route table.
    static let base = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "ActivityPush console API",
    "version": "1.0.0",
    "summary": "Build, check, send and enqueue Apple Live Activity pushes with the one builder and validator.",
    "description": "Served by `activity-push serve`. Every payload is made by the LiveActivityPush builder and judged by the Validator (the same rules as `activity-push check`). All aps times are UNIX seconds; Date values inside attributes and content-state are seconds since 2001-01-01 (the default JSONDecoder strategy). When serve runs with --api-token, every request needs `Authorization: Bearer <token>`. Errors are JSON: {\"error\": {\"status\", \"code\", \"message\", \"field\"?, \"line\"?, \"column\"?, \"fix\"?}}."
  },
  "servers": [{ "url": "/" }],
  "components": {
    "responses": {
      "Error": { "description": "A JSON error", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
    },
    "schemas": {
      "Error": {
        "type": "object", "required": ["error"],
        "properties": { "error": { "type": "object", "required": ["status", "code", "message"], "properties": {
          "status": { "type": "integer" },
          "code": { "type": "string", "enum": ["bad-json", "bad-request", "unauthorized", "forbidden", "not-found", "method-not-allowed", "payload-too-large", "findings", "not-configured", "queue", "internal"] },
          "message": { "type": "string" }, "field": { "type": "string" },
          "line": { "type": "integer" }, "column": { "type": "integer" }, "fix": { "type": "string" } } } }
      },
      "Finding": {
        "type": "object", "required": ["code", "severity", "path", "line", "column", "message", "fix"],
        "properties": {
          "code": { "type": "string", "description": "stable kebab-case finding code (findings.md)" },
          "severity": { "type": "string", "enum": ["error", "warning", "info"] },
          "path": { "type": "string", "description": "dotted JSON path, or headers.<name>" },
          "line": { "type": ["integer", "null"] }, "column": { "type": ["integer", "null"] },
          "message": { "type": "string" }, "fix": { "type": ["string", "null"] }
        }
      },
      "Report": {
        "type": "object", "required": ["accept", "findings"],
        "properties": { "accept": { "type": "boolean" }, "findings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" } } }
      },
      "Headers": {
        "type": "object", "description": "APNs request headers (lowercase names); :path for a broadcast",
        "additionalProperties": { "type": ["string", "number"] },
        "examples": [{ "apns-push-type": "liveactivity", "apns-topic": "com.example.app.push-type.liveactivity", "apns-priority": "10" }]
      },
      "PushFields": {
        "type": "object", "required": ["event", "contentState"],
        "properties": {
          "event": { "type": "string", "enum": ["start", "update", "end"] },
          "type": { "type": "string", "description": "start: the ActivityAttributes type name (default: the only type)" },
          "attributes": { "type": ["object", "string"], "description": "start: the stored properties (object, or its JSON text)" },
          "contentState": { "type": ["object", "string"], "description": "the ContentState (object, or its JSON text); Dates: seconds since 2001-01-01" },
          "alert": { "type": "object", "properties": { "title": { "type": "string" }, "body": { "type": "string" }, "sound": { "type": "string" } },
                     "description": "required for start" },
          "timestamp": { "type": "integer", "description": "aps.timestamp, UNIX seconds (default now)" },
          "staleDate": { "type": "integer", "description": "aps.stale-date, UNIX seconds" },
          "dismissalDate": { "type": "integer", "description": "aps.dismissal-date, UNIX seconds (end only)" },
          "relevanceScore": { "type": "number" },
          "priority": { "type": "integer", "enum": [5, 10] },
          "expiration": { "type": "integer", "description": "apns-expiration, UNIX seconds" },
          "apnsID": { "type": "string", "format": "uuid" },
          "collapseID": { "type": "string", "maxLength": 64 },
          "requestUpdateToken": { "type": "boolean", "description": "start, iOS 18+: input-push-token: 1" },
          "inputPushChannel": { "type": "string", "description": "start, iOS 18+: subscribe to a broadcast channel" },
          "channelID": { "type": "string", "description": "update/end: send as a broadcast to this channel" }
        }
      },
      "Refusal": {
        "type": "object", "required": ["accept", "findings", "error"],
        "properties": { "accept": { "const": false }, "findings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" } },
                        "error": { "type": "object" } }
      },
      "DeviceOutcome": {
        "type": ["object", "null"], "description": "what the device did (known only with mock-apns)",
        "properties": { "outcome": { "type": "string", "enum": ["started", "updated", "ended", "ignored", "rejected"] },
                        "log": { "type": ["string", "null"] }, "causes": { "type": "array", "items": { "type": "string" } } }
      },
      "JournalEntry": {
        "type": "object",
        "properties": {
          "time": { "type": "string", "format": "date-time" }, "action": { "type": "string", "enum": ["send", "enqueue"] },
          "event": { "type": "string" }, "target": { "type": "string", "description": "redacted token or channel:<id>" },
          "status": { "type": ["integer", "null"] }, "reason": { "type": ["string", "null"] },
          "apnsID": { "type": ["string", "null"] }, "latencyMs": { "type": ["number", "null"] },
          "error": { "type": "string" }, "device": { "$ref": "#/components/schemas/DeviceOutcome" },
          "queueIDs": { "type": "array", "items": { "type": "integer" } }
        }
      }
    }
  }
}
"""#
}
