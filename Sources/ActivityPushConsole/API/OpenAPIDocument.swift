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
    "/v1/tokens": {
      "post": {
        "summary": "The app posts a push-to-start token (per device and type; a new one replaces the old) or an activity's update token (releases the pushes held for it)",
        "description": "For the app, not the admin: with `serve --intake-token` it needs `Authorization: Bearer <intake token>` (the API token also works); a loopback serve without either leaves it open. Tokens are stored in full and never returned in full.",
        "operationId": "postToken",
        "security": [{}, { "intake": [] }],
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/TokenRegistration" } } } },
        "responses": {
          "202": { "description": "Stored", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/TokenReceipt" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "503": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/activities": {
      "post": {
        "summary": "Start an activity on devices (idempotent on activityID): each start goes to the device's push-to-start token with input-push-token: 1",
        "description": "The same request again sends nothing and answers 200 with the current state; another body under the same activityID is 409. A device without a push-to-start token is listed in missingTokens (the others are started); no device with a token is 422. A start over the push-to-start budget (10 per token per hour by default) is held (its push has budget set and a later notBefore).",
        "operationId": "startActivity",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ActivityStart" } } } },
        "responses": {
          "202": { "description": "Created; the starts are queued", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Activity" } } } },
          "200": { "description": "A repeat of the start: nothing queued", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Activity" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "409": { "$ref": "#/components/responses/Error" },
          "422": { "description": "The start has error findings, or no device has a push-to-start token", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
          "404": { "description": "channelID is not a live channel of the registry", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
          "502": { "description": "Apple refused to create the activity's channel, or could not be reached", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
          "503": { "$ref": "#/components/responses/Error" }
        }
      },
      "get": {
        "summary": "Activities, newest first (those past Apple's 8-hour limit are ended first)",
        "operationId": "listActivities",
        "parameters": [
          { "name": "state", "in": "query", "schema": { "type": "string", "enum": ["starting", "active", "ended"] } },
          { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 100 } }
        ],
        "responses": {
          "200": { "description": "The list", "content": { "application/json": { "schema": { "type": "object", "properties": {
            "activities": { "type": "array", "items": { "$ref": "#/components/schemas/ActivitySummary" } } } } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/activities/{id}": {
      "get": {
        "summary": "One activity: its state, each device (tokens redacted), each push with apns-id and APNs answer, its journal",
        "operationId": "showActivity",
        "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string", "pattern": "^[A-Za-z0-9._~:-]{1,128}$" } }],
        "responses": {
          "200": { "description": "The activity", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Activity" } } } },
          "401": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/activities/{id}/update": {
      "post": {
        "summary": "Update an activity: sent to each started device's update token, held (newest wins) for a device whose update token has not arrived",
        "description": "aps.timestamp strictly increases per activity. A priority-10 update over the per-activity budget (60 per hour by default) goes at priority 5.",
        "operationId": "updateActivity",
        "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ActivityChange" } } } },
        "responses": {
          "202": { "description": "Queued or held", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Activity" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" },
          "409": { "$ref": "#/components/responses/Error" },
          "422": { "description": "The update has error findings", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
        }
      }
    },
    "/v1/activities/{id}/end": {
      "post": {
        "summary": "End an activity: delivered like an update (held for devices without an update token); the activity is then ended",
        "operationId": "endActivity",
        "parameters": [{ "name": "id", "in": "path", "required": true, "schema": { "type": "string" } }],
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ActivityChange" } } } },
        "responses": {
          "202": { "description": "Queued or held", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Activity" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "404": { "$ref": "#/components/responses/Error" },
          "409": { "$ref": "#/components/responses/Error" },
          "422": { "description": "The end has error findings", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
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
    "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "description": "the --api-token given to serve" },
      "intake": { "type": "http", "scheme": "bearer", "description": "the --intake-token given to serve (POST /v1/tokens only)" } },
    "responses": {
      "Error": { "description": "A JSON error", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
    },
    "schemas": {
\#(ChannelRoutesOpenAPI.schemas)
      "Error": {
        "type": "object", "required": ["error"],
        "properties": { "error": { "type": "object", "required": ["status", "code", "message"], "properties": {
          "status": { "type": "integer" },
          "code": { "type": "string", "enum": ["bad-json", "bad-request", "unauthorized", "forbidden", "not-found", "method-not-allowed", "payload-too-large", "findings", "not-configured", "queue", "internal", "conflict", "no-tokens", "not-implemented"] },
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
      "TokenRegistration": {
        "oneOf": [
          { "type": "object", "required": ["kind", "deviceID", "attributesType", "token"], "additionalProperties": false, "properties": {
            "kind": { "const": "push-to-start" }, "deviceID": { "type": "string" }, "attributesType": { "type": "string" },
            "token": { "type": "string", "pattern": "^([0-9a-fA-F]{2}){8,100}$" }, "environment": { "enum": ["sandbox", "production"] } } },
          { "type": "object", "required": ["kind", "deviceID", "activityID", "token"], "additionalProperties": false, "properties": {
            "kind": { "const": "update" }, "deviceID": { "type": "string" }, "activityID": { "type": "string" },
            "token": { "type": "string", "pattern": "^([0-9a-fA-F]{2}){8,100}$" } } }
        ]
      },
      "TokenReceipt": {
        "type": "object", "properties": { "kind": { "type": "string" }, "deviceID": { "type": "string" },
          "token": { "type": "string", "description": "redacted: first and last 4 characters" },
          "retired": { "type": ["string", "null"], "description": "the APNs reason when the token was retired before" },
          "released": { "type": "integer", "description": "held pushes this update token released" } }
      },
      "ActivityStart": {
        "type": "object", "required": ["activityID", "contentState"], "additionalProperties": false,
        "properties": {
          "activityID": { "type": "string", "pattern": "^[A-Za-z0-9._~:-]{1,128}$", "description": "the idempotency key" },
          "type": { "type": "string", "description": "attributes-type; default: the only type read from --attributes" },
          "attributes": { "type": "object" }, "contentState": { "type": "object" },
          "alert": { "type": "object", "properties": { "title": { "type": "string" }, "body": { "type": "string" } } },
          "deviceIDs": { "type": "array", "items": { "type": "string" } },
          "channel": { "type": "boolean", "description": "send updates and ends as broadcasts on a channel; starts to deviceIDs carry input-push-channel; the channel is channelID or one created at Apple for the activity (needs serve --auth-key)" },
          "channelID": { "type": "string", "description": "with channel: a live channel of the registry (POST /v1/channels)" },
          "deleteChannelOnEnd": { "type": "boolean", "description": "with channel: delete the channel at Apple once the end broadcast is sent" },
          "staleDate": { "type": "integer", "description": "UNIX seconds" }, "relevanceScore": { "type": "number" }
        }
      },
      "ActivityChange": {
        "type": "object", "required": ["contentState"], "additionalProperties": false,
        "properties": {
          "contentState": { "type": "object" },
          "alert": { "type": "object", "properties": { "title": { "type": "string" }, "body": { "type": "string" } } },
          "staleDate": { "type": "integer", "description": "UNIX seconds" },
          "dismissalDate": { "type": "integer", "description": "UNIX seconds; end only" },
          "priority": { "enum": [5, 10], "default": 10 }
        }
      },
      "ActivitySummary": {
        "type": "object", "properties": { "activityID": { "type": "string" }, "type": { "type": "string" },
          "state": { "enum": ["starting", "active", "ended"] }, "devices": { "type": "integer" },
          "createdAt": { "type": "number", "description": "UNIX seconds" } }
      },
      "Activity": {
        "type": "object",
        "properties": {
          "activityID": { "type": "string" }, "type": { "type": "string" }, "environment": { "type": "string" },
          "state": { "enum": ["starting", "active", "ended"] }, "endReason": { "type": ["string", "null"], "description": "end-requested or apple-8-hour-limit" },
          "createdAt": { "type": "number", "description": "UNIX seconds" }, "endedAt": { "type": ["number", "null"] },
          "lastTimestamp": { "type": "integer", "description": "the newest aps.timestamp given (UNIX seconds)" },
          "devices": { "type": "array", "items": { "type": "object", "properties": {
            "deviceID": { "type": "string" }, "state": { "enum": ["no-token", "starting", "started", "ended", "token-retired"] },
            "held": { "type": ["string", "null"], "description": "the event held for the update token" },
            "pushToStartToken": { "type": ["string", "null"] }, "updateToken": { "type": ["string", "null"] },
            "tokenRetired": { "type": ["string", "null"], "description": "APNs reason" } } } },
          "missingTokens": { "type": "array", "items": { "type": "string" }, "description": "devices without a push-to-start token" },
          "pushes": { "type": "array", "items": { "type": "object", "properties": {
            "event": { "type": "string" }, "deviceID": { "type": "string" }, "pushID": { "type": "integer" }, "apnsID": { "type": "string" },
            "priority": { "type": "integer" }, "notBefore": { "type": "number" }, "budget": { "type": ["string", "null"] },
            "target": { "type": "string", "description": "redacted token" }, "queueState": { "type": "string" },
            "status": { "type": ["integer", "null"] }, "reason": { "type": ["string", "null"] },
            "deviceOutcome": { "type": ["string", "null"] } } } },
          "journal": { "type": "array", "items": { "type": "object", "properties": {
            "at": { "type": "number" }, "deviceID": { "type": ["string", "null"] }, "note": { "type": "string" } } } }
        }
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
