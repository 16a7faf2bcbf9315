import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `POST /v1/activities`: starts an activity on devices (idempotent on its activityID).
    static let startActivity = ConsoleRoute(.post, "/v1/activities", schemas: [
        ("ActivityStart", #"""
        {
          "type": "object",
          "required": [
            "activityID",
            "contentState"
          ],
          "additionalProperties": false,
          "properties": {
            "activityID": {
              "type": "string",
              "pattern": "^[A-Za-z0-9._~:-]{1,128}$",
              "description": "the idempotency key"
            },
            "type": {
              "type": "string",
              "description": "attributes-type; default: the only type read from --attributes"
            },
            "attributes": {
              "type": "object"
            },
            "contentState": {
              "type": "object"
            },
            "alert": {
              "type": "object",
              "properties": {
                "title": {
                  "type": "string"
                },
                "body": {
                  "type": "string"
                }
              }
            },
            "deviceIDs": {
              "type": "array",
              "items": {
                "type": "string"
              }
            },
            "channel": {
              "type": "boolean",
              "description": "send updates and ends as broadcasts on a channel; starts to deviceIDs carry input-push-channel; the channel is channelID or one created at Apple for the activity (needs serve --auth-key)"
            },
            "channelID": {
              "type": "string",
              "description": "with channel: a live channel of the registry (POST /v1/channels)"
            },
            "deleteChannelOnEnd": {
              "type": "boolean",
              "description": "with channel: delete the channel at Apple once the end broadcast is sent"
            },
            "staleDate": {
              "type": "integer",
              "description": "UNIX seconds"
            },
            "relevanceScore": {
              "type": "number"
            }
          }
        }
        """#),
        ("Activity", #"""
        {
          "type": "object",
          "properties": {
            "activityID": {
              "type": "string"
            },
            "type": {
              "type": "string"
            },
            "environment": {
              "type": "string"
            },
            "state": {
              "enum": [
                "starting",
                "active",
                "ended"
              ]
            },
            "endReason": {
              "type": [
                "string",
                "null"
              ],
              "description": "end-requested or apple-8-hour-limit"
            },
            "createdAt": {
              "type": "number",
              "description": "UNIX seconds"
            },
            "endedAt": {
              "type": [
                "number",
                "null"
              ]
            },
            "lastTimestamp": {
              "type": "integer",
              "description": "the newest aps.timestamp given (UNIX seconds)"
            },
            "devices": {
              "type": "array",
              "items": {
                "type": "object",
                "properties": {
                  "deviceID": {
                    "type": "string"
                  },
                  "state": {
                    "enum": [
                      "no-token",
                      "starting",
                      "started",
                      "ended",
                      "token-retired"
                    ]
                  },
                  "held": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "the event held for the update token"
                  },
                  "pushToStartToken": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "updateToken": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "tokenRetired": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "APNs reason"
                  }
                }
              }
            },
            "missingTokens": {
              "type": "array",
              "items": {
                "type": "string"
              },
              "description": "devices without a push-to-start token"
            },
            "pushes": {
              "type": "array",
              "items": {
                "type": "object",
                "properties": {
                  "event": {
                    "type": "string"
                  },
                  "deviceID": {
                    "type": "string"
                  },
                  "pushID": {
                    "type": "integer"
                  },
                  "apnsID": {
                    "type": "string"
                  },
                  "priority": {
                    "type": "integer"
                  },
                  "notBefore": {
                    "type": "number"
                  },
                  "budget": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "target": {
                    "type": "string",
                    "description": "redacted token"
                  },
                  "queueState": {
                    "type": "string"
                  },
                  "status": {
                    "type": [
                      "integer",
                      "null"
                    ]
                  },
                  "reason": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "deviceOutcome": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              }
            },
            "journal": {
              "type": "array",
              "items": {
                "type": "object",
                "properties": {
                  "at": {
                    "type": "number"
                  },
                  "deviceID": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "note": {
                    "type": "string"
                  }
                }
              }
            }
          }
        }
        """#),
    ], operation: #"""
        {
          "summary": "Start an activity on devices (idempotent on activityID): each start goes to the device's push-to-start token with input-push-token: 1",
          "description": "The same request again sends nothing and answers 200 with the current state; another body under the same activityID is 409. A device without a push-to-start token is listed in missingTokens (the others are started); no device with a token is 422. A start over the push-to-start budget (10 per token per hour by default) is held (its push has budget set and a later notBefore).",
          "operationId": "startActivity",
          "requestBody": {
            "required": true,
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ActivityStart"
                }
              }
            }
          },
          "responses": {
            "202": {
              "description": "Created; the starts are queued",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Activity"
                  }
                }
              }
            },
            "200": {
              "description": "A repeat of the start: nothing queued",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Activity"
                  }
                }
              }
            },
            "400": {
              "$ref": "#/components/responses/Error"
            },
            "409": {
              "$ref": "#/components/responses/Error"
            },
            "422": {
              "description": "The start has error findings, or no device has a push-to-start token",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "404": {
              "description": "channelID is not a live channel of the registry",
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
            },
            "502": {
              "description": "Apple refused to create the activity's channel, or could not be reached",
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
            },
            "503": {
              "$ref": "#/components/responses/Error"
            }
          }
        }
        """#) { api, context throws(APIError) in
        try await ActivityRoutes.answer(api) { service throws in
            var body = try RequestBody(context.request, maxBytes: api.configuration.maxBodyBytes)
            let start = try ActivityRoutes.startRequest(&body)
            try body.rejectUnknown(allowed: [])
            let (view, created) = try await service.start(start, channels: start.channel ? try api.channelService() : nil)
            return .json(created ? 202 : 200, view.summaryJSON)
        }
    }

    /// `GET /v1/activities?state=&limit=`: the activities, newest first.
    static let listActivities = ConsoleRoute(.get, "/v1/activities", operation: #"""
        {
          "summary": "Activities, newest first, each as a summary (state, device counts, push and journal counts) or with detail=full as GET /v1/activities/{id} gives it (those past Apple's 8-hour limit are ended first)",
          "operationId": "listActivities",
          "parameters": [
            {
              "name": "state",
              "in": "query",
              "schema": {
                "type": "string",
                "enum": [
                  "starting",
                  "active",
                  "ended"
                ]
              }
            },
            {
              "name": "limit",
              "in": "query",
              "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": 500,
                "default": 50
              }
            },
            {
              "name": "detail",
              "in": "query",
              "description": "summary (default): state and counts per activity; full: devices, the newest 50 pushes and journal rows",
              "schema": {
                "type": "string",
                "enum": [
                  "summary",
                  "full"
                ]
              }
            }
          ],
          "responses": {
            "200": {
              "description": "The list",
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "properties": {
                      "activities": {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/Activity"
                        }
                      }
                    }
                  }
                }
              }
            },
            "400": {
              "$ref": "#/components/responses/Error"
            }
          }
        }
        """#) { api, context throws(APIError) in
        try await ActivityRoutes.answer(api) { service throws in
            var state: ActivityState?
            if let text = context.request.query["state"], !text.isEmpty {
                guard ActivityState.all.map(\.rawValue).contains(text) else {
                    throw APIError.badRequest("state", "unknown state '\(text)'",
                                              fix: "one of " + ActivityState.all.map(\.rawValue).joined(separator: ", "))
                }
                state = ActivityState(rawValue: text)
            }
            let limit = try context.request.query["limit"].map(ActivityListLimit.parse) ?? ActivityListLimit.defaultLimit
            let full: Bool
            switch context.request.query["detail"] {
            case nil, "", "summary"?: full = false
            case "full"?: full = true
            case let other?:
                throw APIError.badRequest("detail", "unknown detail '\(other)'", fix: "summary (default) or full")
            }
            let views = try service.list(state: state, limit: limit, detail: full ? .recent : .summary)
            return .json(200, .obj([("activities", .arr(views.map { full ? $0.json : $0.summaryJSON }))]))
        }
    }
}
