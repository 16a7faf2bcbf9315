import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `POST /v1/tokens`: the app posts a push-to-start or an activity's update token. Its own scope (the
    /// `--intake-token`), so the app never holds the admin credential; the admin token also works.
    static let tokens = ConsoleRoute(.post, "/v1/tokens", scopes: [.intake, .admin], schemas: [
        ("TokenRegistration", #"""
        {
          "oneOf": [
            {
              "type": "object",
              "required": [
                "kind",
                "deviceID",
                "attributesType",
                "token"
              ],
              "additionalProperties": false,
              "properties": {
                "kind": {
                  "const": "push-to-start"
                },
                "deviceID": {
                  "type": "string"
                },
                "attributesType": {
                  "type": "string"
                },
                "token": {
                  "type": "string",
                  "pattern": "^([0-9a-fA-F]{2}){8,100}$"
                },
                "environment": {
                  "enum": [
                    "sandbox",
                    "production"
                  ]
                }
              }
            },
            {
              "type": "object",
              "required": [
                "kind",
                "deviceID",
                "activityID",
                "token"
              ],
              "additionalProperties": false,
              "properties": {
                "kind": {
                  "const": "update"
                },
                "deviceID": {
                  "type": "string"
                },
                "activityID": {
                  "type": "string"
                },
                "token": {
                  "type": "string",
                  "pattern": "^([0-9a-fA-F]{2}){8,100}$"
                }
              }
            }
          ]
        }
        """#),
        ("TokenReceipt", #"""
        {
          "type": "object",
          "properties": {
            "kind": {
              "type": "string"
            },
            "deviceID": {
              "type": "string"
            },
            "token": {
              "type": "string",
              "description": "redacted: first and last 4 characters"
            },
            "retired": {
              "type": [
                "string",
                "null"
              ],
              "description": "the APNs reason when the token was retired before"
            },
            "released": {
              "type": "integer",
              "description": "held pushes this update token released"
            }
          }
        }
        """#),
    ], operation: #"""
        {
          "summary": "The app posts a push-to-start token (per device and type; a new one replaces the old) or an activity's update token (releases the pushes held for it)",
          "description": "For the app, not the admin: with `serve --intake-token` it needs `Authorization: Bearer <intake token>` (the API token also works); a loopback serve without either leaves it open. Tokens are stored in full and never returned in full.",
          "operationId": "postToken",
          "requestBody": {
            "required": true,
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/TokenRegistration"
                }
              }
            }
          },
          "responses": {
            "202": {
              "description": "Stored",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/TokenReceipt"
                  }
                }
              }
            },
            "400": {
              "$ref": "#/components/responses/Error"
            },
            "503": {
              "$ref": "#/components/responses/Error"
            }
          }
        }
        """#) { api, context throws(APIError) in
        try await ActivityRoutes.answer(api) { service throws in
            var body = try RequestBody(context.request, maxBytes: api.configuration.maxBodyBytes)
            let registration = try ActivityRoutes.token(&body)
            try body.rejectUnknown(allowed: [])
            do {
                return .json(202, try service.register(registration).json)
            } catch let error as ActivityError where error.status == 503
                        && !(api.configuration.apiToken.map { AccessCheck.allows(context.request, token: $0) } ?? false) {
                // The intake scope is every app install: no database host, port, user or libpq text for it.
                throw ActivityError.storeUnreachable
            }
        }
    }
}
