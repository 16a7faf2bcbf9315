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
                "deviceSecret": {
                  "type": "string",
                  "minLength": 16,
                  "maxLength": 200,
                  "description": "The install secret: 32 random bytes the app generates at install and keeps in the Keychain (hex). The first registration of a deviceID with one binds the device to it (only its SHA-256 is stored); later posts for that deviceID must carry it (403 otherwise). A deviceID first registered without one stays open."
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
                "deviceSecret": {
                  "type": "string",
                  "minLength": 16,
                  "maxLength": 200,
                  "description": "The install secret: 32 random bytes the app generates at install and keeps in the Keychain (hex). The first registration of a deviceID with one binds the device to it (only its SHA-256 is stored); later posts for that deviceID must carry it (403 otherwise). A deviceID first registered without one stays open."
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
              "description": "the APNs reason when the token stays retired (APNs marked it inactive after this post)"
            },
            "reactivated": {
              "type": [
                "string",
                "null"
              ],
              "description": "the APNs reason the token had been retired for, when this post made it valid again (a token registered after the 410 timestamp is valid again)"
            },
            "movedFrom": {
              "type": "array",
              "items": {
                "type": "string"
              },
              "description": "deviceIDs the token was registered under before: a token identifies one device, so it moved here"
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
          "description": "For the app, not the admin: with `serve --intake-token` it needs `Authorization: Bearer <intake token>` (the API token also works); a loopback serve without either leaves it open. The intake token authenticates the app, not the device: send `deviceSecret` so that only this install can replace this deviceID's tokens (403 `forbidden` otherwise). Without the admin token a database failure answers a generic 503. Tokens are stored in full and never returned in full.",
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
            "403": {
              "$ref": "#/components/responses/Error"
            },
            "404": {
              "$ref": "#/components/responses/Error"
            },
            "422": {
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
