import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `GET /v1/activities/{id}`: one activity — devices, pushes with their APNs answer (and, when serve can
    /// reach mock-apns, the device outcome), journal.
    static let showActivity = ConsoleRoute(.get, "/v1/activities/{id}", operation: #"""
        {
          "summary": "One activity: its state, each device (tokens redacted), its newest 50 pushes with apns-id and APNs answer and newest 50 journal rows (pushCount/journalCount: all; ?pushes=all for every one)",
          "operationId": "showActivity",
          "parameters": [
            {
              "name": "pushes",
              "in": "query",
              "schema": {
                "type": "string",
                "enum": [
                  "all"
                ]
              }
            }
          ],
          "responses": {
            "200": {
              "description": "The activity",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Activity"
                  }
                }
              }
            },
            "404": {
              "$ref": "#/components/responses/Error"
            }
          }
        }
        """#) { api, context throws(APIError) in
        let id = try context.parameters.require("id")
        return try await ActivityRoutes.answer(api) { service throws in
            let detail: ActivityView.Detail
            switch context.request.query["pushes"] {
            case nil, "", "recent"?: detail = .recent
            case "all"?: detail = .all
            case let other?:
                throw APIError.badRequest("pushes", "unknown value '\(other)'", fix: "all (every push and journal row) or leave it out for the newest 50")
            }
            var view = try service.show(activityID: id, detail: detail)
            // Against mock-apns (serve --url with a key), what each device did with each delivered push.
            if api.configuration.readMockJournal, let client = api.client,
               let outcomes = await DeviceOutcome.lookupAll(client: client) {
                for index in view.pushes.indices {
                    view.pushes[index].deviceOutcome = outcomes[view.pushes[index].apnsID.lowercased()]?.outcome
                }
            }
            return .json(200, view.json)
        }
    }

    /// `POST /v1/activities/{id}/update`: sent to started devices, held for the others.
    static let updateActivity = ConsoleRoute(.post, "/v1/activities/{id}/update", schemas: [
        ("ActivityChange", #"""
        {
          "type": "object",
          "required": [
            "contentState"
          ],
          "additionalProperties": false,
          "properties": {
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
            "staleDate": {
              "type": "integer",
              "description": "UNIX seconds"
            },
            "dismissalDate": {
              "type": "integer",
              "description": "UNIX seconds; end only"
            },
            "priority": {
              "enum": [
                5,
                10
              ],
              "default": 10
            }
          }
        }
        """#),
    ], operation: changeOperation(head: #"""
          "summary": "Update an activity: sent to each started device's update token, held (newest wins) for a device whose update token has not arrived",
          "description": "aps.timestamp strictly increases per activity. A priority-10 update over the per-activity budget (60 per hour by default) goes at priority 5.",
          "operationId": "updateActivity",
        """#, event: "update")) { api, context throws(APIError) in try await change(api, context, event: .update) }

    /// `POST /v1/activities/{id}/end`: delivered like an update, then the activity is ended.
    static let endActivity = ConsoleRoute(.post, "/v1/activities/{id}/end", operation: changeOperation(head: #"""
          "summary": "End an activity: delivered like an update (held for devices without an update token); the activity is then ended",
          "operationId": "endActivity",
        """#, event: "end")) { api, context throws(APIError) in try await change(api, context, event: .end) }

    /// The OpenAPI operation of `…/update` and `…/end`: the same request and answers, its own head (summary,
    /// description, operationId) and the event named in the 422 text.
    private static func changeOperation(head: String, event: String) -> String {
        #"""
        {
        \#(head)
          "requestBody": {
            "required": true,
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ActivityChange"
                }
              }
            }
          },
          "responses": {
            "202": {
              "description": "Queued or held",
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
            "404": {
              "$ref": "#/components/responses/Error"
            },
            "409": {
              "$ref": "#/components/responses/Error"
            },
            "422": {
              "description": "The \#(event) has error findings",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            }
          }
        }
        """#
    }


    private static func change(_ api: ConsoleAPI, _ context: ConsoleRequestContext,
                               event: LiveActivityEvent) async throws(APIError) -> HTTPResponse {
        let id = try context.parameters.require("id")
        return try await ActivityRoutes.answer(api) { service throws in
            var body = try RequestBody(context.request, maxBytes: api.configuration.maxBodyBytes)
            let change = try ActivityRoutes.changeRequest(&body)
            try body.rejectUnknown(allowed: [])
            let view = event == .end ? try service.end(activityID: id, change) : try service.update(activityID: id, change)
            if event == .end, view.channelID != nil { api.deleteEndedChannelsSoon() }
            return .json(view.repeated ? 200 : 202, view.summaryJSON)
        }
    }
}
