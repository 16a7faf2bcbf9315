/// `GET /openapi.json`: the console API as an OpenAPI 3.1 document (kept next to the routes it describes;
/// a test checks it is strict JSON and lists every route of ``ConsoleAPI/routes``).
enum OpenAPIDocument {
    static let text = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "ActivityPush console API",
    "version": "1.0.0",
    "summary": "Build, check, send and enqueue Apple Live Activity pushes with the one builder and validator.",
    "description": "Served by `activity-push serve`. Every payload is made by the LiveActivityPush builder and judged by the Validator (the same rules as `activity-push check`). All aps times are UNIX seconds; Date values inside attributes and content-state are seconds since 2001-01-01 (the default JSONDecoder strategy). When serve runs with --api-token, every request needs `Authorization: Bearer <token>`. Errors are JSON: {\"error\": {\"status\", \"code\", \"message\", \"field\"?, \"line\"?, \"column\"?, \"fix\"?}}."
  },
  "servers": [{ "url": "/" }],
  "security": [{}, { "bearer": [] }],
  "paths": {
\#(ChannelRoutesOpenAPI.paths)
    "/v1/types": {
      "get": {
        "summary": "The ActivityAttributes types read from --attributes, and what this server can do",
        "operationId": "types",
        "responses": {
          "200": { "description": "Types as `activity-push schema --format json` describes them, plus server facts",
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Types" } } } },
          "401": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/check": {
      "post": {
        "summary": "Judge a payload and its headers — the same JSON as `activity-push check --format json`",
        "operationId": "check",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CheckRequest" } } } },
        "responses": {
          "200": { "description": "The verdict (accepted or not, the HTTP status is 200 either way)",
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Report" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "413": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/build": {
      "post": {
        "summary": "Typed fields to headers and payload through the builder, with its findings",
        "operationId": "build",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PushFields" } } } },
        "responses": {
          "200": { "description": "Built; findings are warnings only", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Built" } } } },
          "422": { "description": "The push has error findings (payload and headers are still shown)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Built" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "413": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/send": {
      "post": {
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
          "401": { "$ref": "#/components/responses/Error" },
          "413": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/enqueue": {
      "post": {
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
          "401": { "$ref": "#/components/responses/Error" },
          "413": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/journal": {
      "get": {
        "summary": "Recent sends and enqueues of this console (newest first), and the queue's latest attempts",
        "operationId": "journal",
        "parameters": [{ "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 200, "default": 50 } }],
        "responses": {
          "200": { "description": "Journal", "content": { "application/json": { "schema": { "type": "object", "properties": {
            "entries": { "type": "array", "items": { "$ref": "#/components/schemas/JournalEntry" } },
            "queueAttempts": { "type": "array", "items": { "type": "object" } } } } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus metrics: requests, sent, accepted, rejected by reason, retries, queue depth, send latency histogram",
        "operationId": "metrics",
        "responses": {
          "200": { "description": "Prometheus text format 0.0.4", "content": { "text/plain": { "schema": { "type": "string" } } } },
          "401": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/openapi.json": {
      "get": { "summary": "This document", "operationId": "openapi",
        "responses": { "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object" } } } } } }
    },
    "/": {
      "get": { "summary": "The console page (HTML; its script and style at /console.js and /console.css)", "operationId": "page",
        "responses": { "200": { "description": "HTML", "content": { "text/html": { "schema": { "type": "string" } } } } } }
    },
    "/console.js": {
      "get": { "summary": "The page's script", "operationId": "pageScript",
        "responses": { "200": { "description": "JavaScript", "content": { "text/javascript": { "schema": { "type": "string" } } } } } }
    },
    "/console.css": {
      "get": { "summary": "The page's style", "operationId": "pageStyle",
        "responses": { "200": { "description": "CSS", "content": { "text/css": { "schema": { "type": "string" } } } } } }
    }
  },
  "components": {
    "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "description": "the --api-token given to serve" } },
    "responses": {
      "Error": { "description": "A JSON error", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
    },
    "schemas": {
\#(ChannelRoutesOpenAPI.schemas)
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
      "CheckRequest": {
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
      "SendRequest": {
        "allOf": [{ "$ref": "#/components/schemas/PushFields" }, { "type": "object", "properties": {
          "deviceToken": { "type": "string", "description": "hex push-to-start (start) or update token; omit for a broadcast" } } }]
      },
      "EnqueueRequest": {
        "allOf": [{ "$ref": "#/components/schemas/PushFields" }, { "type": "object", "properties": {
          "deviceTokens": { "type": "array", "items": { "type": "string" } },
          "deviceToken": { "type": "string" },
          "notBefore": { "type": "number", "description": "not sent before, UNIX seconds" } } }]
      },
      "Built": {
        "type": "object", "required": ["accept", "findings", "headers", "payload", "body"],
        "properties": {
          "accept": { "type": "boolean" },
          "findings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" }, "description": "positions refer to body" },
          "headers": { "$ref": "#/components/schemas/Headers" },
          "payload": { "type": "object" },
          "body": { "type": "string", "description": "the exact compact bytes the client would send" }
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
      },
      "SendResult": {
        "allOf": [{ "$ref": "#/components/schemas/JournalEntry" }, { "type": "object", "properties": {
          "sent": { "type": "boolean" }, "warnings": { "type": "array", "items": { "$ref": "#/components/schemas/Finding" } } } }]
      },
      "Types": {
        "type": "object",
        "properties": {
          "server": { "type": "object", "properties": { "bundleID": { "type": "string" }, "environment": { "type": "string" },
            "canSend": { "type": "boolean" }, "canEnqueue": { "type": "boolean" }, "maxBodyBytes": { "type": "integer" } } },
          "files": { "type": "array", "items": { "type": "string" } },
          "types": { "type": "array", "items": { "type": "object", "properties": {
            "name": { "type": "string" }, "location": { "type": "string" },
            "attributes": { "type": "object", "description": "a shape: {kind, …} as in `activity-push schema --format json`" },
            "content-state": { "type": "object" } } } }
        }
      }
    }
  }
}
"""#
}
