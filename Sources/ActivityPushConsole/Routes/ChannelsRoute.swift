import ActivityPushCore
import Foundation

extension ConsoleRoute {
    /// `POST /v1/channels`: creates a broadcast channel at Apple and registers it.
    static let createChannel = ConsoleRoute(.post, "/v1/channels", schemas: [
        ("BroadcastChannel", #"""
        { "type": "object", "properties": {
          "channelID": { "type": "string" }, "environment": { "type": "string" }, "bundleID": { "type": "string" },
          "storagePolicy": { "type": "integer", "enum": [0, 1] }, "storagePolicyName": { "type": "string" },
          "createdAt": { "type": "integer", "description": "UNIX seconds" }, "activityID": { "type": ["string", "null"] },
          "deletedAt": { "type": ["integer", "null"], "description": "UNIX seconds" } } }
        """#),
    ], operation: #"""
        {
          "summary": "Create a broadcast channel at Apple and register it (the 10 000-per-app-per-environment limit is checked first)",
          "operationId": "createChannel",
          "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["storagePolicy"],
            "additionalProperties": false, "properties": {
              "storagePolicy": { "type": "integer", "enum": [0, 1], "description": "0 = No Message Stored (higher publishing budget; broadcasts need apns-expiration 0), 1 = Most Recent Message Stored (the last broadcast kept up to 8 hours). Fixed at creation." },
              "bundleID": { "type": "string", "description": "default: serve --bundle-id (the activity is linked when it starts on the channel: POST /v1/activities with channelID)" } } } } } },
          "responses": {
            "201": { "description": "Created at Apple (id from the apns-channel-id header) and registered",
              "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BroadcastChannel" } } } },
            "400": { "$ref": "#/components/responses/Error" },
            "409": { "description": "channel-limit: the app has 10 000 live channels in this environment; nothing was sent to Apple", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
            "502": { "description": "apns-rejected (Apple's reason in the message) or apns-unreachable", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
            "503": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try await api.createChannel(context.request) }

    /// `GET /v1/channels`: the registry's channels, and Apple's beside them with `apple=true`.
    static let listChannels = ConsoleRoute(.get, "/v1/channels", operation: #"""
        {
          "summary": "The app's channels: the registry's, and with apple=true Apple's all-channels beside them",
          "operationId": "listChannels",
          "parameters": [
            { "name": "bundleID", "in": "query", "schema": { "type": "string" }, "description": "default: serve --bundle-id" },
            { "name": "apple", "in": "query", "schema": { "type": "boolean", "default": false }, "description": "also read GET /1/apps/<bundle id>/all-channels" },
            { "name": "all", "in": "query", "schema": { "type": "boolean", "default": false }, "description": "include channels deleted through the registry" } ],
          "responses": {
            "200": { "description": "presence: registered (Apple not asked), both, registry-only (Apple no longer lists it), apple-only (made by another tool), deleted",
              "content": { "application/json": { "schema": { "type": "object", "properties": {
                "bundleID": { "type": "string" }, "environment": { "type": "string" }, "askedApple": { "type": "boolean" },
                "channels": { "type": "array", "items": { "type": "object", "properties": {
                  "channelID": { "type": "string" }, "presence": { "type": "string", "enum": ["registered", "both", "registry-only", "apple-only", "deleted"] },
                  "atApple": { "type": ["boolean", "null"] },
                  "registry": { "oneOf": [{ "$ref": "#/components/schemas/BroadcastChannel" }, { "type": "null" }] } } } } } } } } },
            "400": { "$ref": "#/components/responses/Error" },
            "502": { "$ref": "#/components/responses/Error" },
            "503": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in try await api.listChannels(context.request) }

    /// `GET /v1/channels/{channelID}`: one channel as the registry knows it.
    static let readChannel = ConsoleRoute(.get, "/v1/channels/{channelID}", operation: #"""
        {
          "summary": "One channel as the registry knows it (the id in its base64url spelling: '-' for '+', '_' for '/')",
          "operationId": "readChannel",
          "responses": {
            "200": { "description": "The record", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BroadcastChannel" } } } },
            "404": { "$ref": "#/components/responses/Error" },
            "503": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in
        try api.readChannel(context.request, pathID: try context.parameters.require("channelID"))
    }

    /// `DELETE /v1/channels/{channelID}`: deletes the channel at Apple and marks it deleted in the registry.
    static let deleteChannel = ConsoleRoute(.delete, "/v1/channels/{channelID}", operation: #"""
        {
          "summary": "Delete the channel at Apple (irreversible) and mark it deleted in the registry (the id in its base64url spelling)",
          "operationId": "deleteChannel",
          "parameters": [{ "name": "bundleID", "in": "query", "schema": { "type": "string" }, "description": "needed only for a channel the registry does not know" }],
          "responses": {
            "200": { "description": "Deleted", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BroadcastChannel" } } } },
            "404": { "$ref": "#/components/responses/Error" },
            "502": { "$ref": "#/components/responses/Error" },
            "503": { "$ref": "#/components/responses/Error" }
          }
        }
        """#) { api, context throws(APIError) in
        try await api.deleteChannel(context.request, pathID: try context.parameters.require("channelID"))
    }
}
