import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `/v1/channels`: broadcast channels on Apple's channel-management API and the registry in the console's queue
/// store (``BroadcastChannels``, the same as `activity-push channels`).
///
/// - `POST /v1/channels` `{"storagePolicy": 0|1, "bundleID"?, "activityID"?}` → 201 with the channel;
/// - `GET /v1/channels?bundleID=…&apple=true&all=true` → 200 with the registry's channels, and Apple's
///   `all-channels` beside them with `apple=true`;
/// - `GET /v1/channels/{channelID}` → 200 with the registry's record;
/// - `DELETE /v1/channels/{channelID}?bundleID=…` → 200 with the record marked deleted.
///
/// The environment is the console's queue environment (`serve --env`); the bundle id defaults to `serve
/// --bundle-id`. Errors: 400 bad field, 404 unknown channel, 409 `channel-limit` (10 000 live channels for the app
/// in this environment; nothing sent to Apple), 502 `apns-rejected` / `apns-unreachable`, 503 without
/// `--database` (or without `--auth-key` for what calls Apple).
extension ConsoleAPI {
    static let channelsPath = "/v1/channels"

    func channelRoute(_ request: HTTPRequest, path: String) async throws(APIError) -> HTTPResponse {
        let id = path.count > Self.channelsPath.count + 1 ? String(path.dropFirst(Self.channelsPath.count + 1)) : nil
        let method = request.method == "HEAD" ? "GET" : request.method
        let allowed = id == nil ? ["GET", "POST"] : ["GET", "DELETE"]
        guard allowed.contains(method) else {
            var r = APIError(405, "method-not-allowed", "\(path) takes \(allowed.joined(separator: ", ")), not \(request.method)").response
            r.headers.append(("Allow", allowed.joined(separator: ", ")))
            return r
        }
        switch (method, id) {
        case ("POST", nil): return try await createChannel(request)
        case ("GET", nil): return try await listChannels(request)
        case ("GET", let channelID?): return try readChannel(request, pathID: channelID)
        case (_, let channelID?): return try await deleteChannel(request, pathID: channelID)
        default: throw APIError(404, "not-found", "no route \(request.method) \(path)")
        }
    }

    /// `POST /v1/channels` `{"storagePolicy": 0|1, "bundleID"?, "activityID"?}` → 201 with the channel.
    func createChannel(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let channels = try channelService()
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        guard let policy = try body.double("storagePolicy") else {
            throw APIError.badRequest("storagePolicy", "required: 0 or 1, fixed at creation",
                                      fix: "0 = No Message Stored (higher publishing budget; broadcasts need apns-expiration 0), "
                                          + "1 = Most Recent Message Stored (Apple keeps the last broadcast up to 8 hours)")
        }
        guard policy == 0 || policy == 1 else {
            throw APIError.badRequest("storagePolicy", "must be 0 or 1, got \(policy)",
                                      fix: "0 = No Message Stored, 1 = Most Recent Message Stored")
        }
        let bundleID = try body.string("bundleID") ?? configuration.bundleID
        let activityID = try body.string("activityID")
        try body.rejectUnknown(allowed: [])
        do throws(ChannelError) {
            let made = try await channels.create(bundleID: bundleID, storagePolicy: MessageStoragePolicy(rawValue: Int(policy)),
                                                 activityID: activityID)
            return .json(201, made.json)
        } catch {
            throw Self.apiError(error)
        }
    }

    /// `GET /v1/channels?bundleID=…&apple=true&all=true` → 200 with the registry's channels (and Apple's beside them).
    func listChannels(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let channels = try channelService()
        let bundleID = request.query["bundleID"] ?? configuration.bundleID
        let askApple = try Self.flag(request, "apple"), includeDeleted = try Self.flag(request, "all")
        do throws(ChannelError) {
            return .json(200, try await channels.list(bundleID: bundleID, askApple: askApple, includeDeleted: includeDeleted).json)
        } catch {
            throw Self.apiError(error)
        }
    }

    /// `GET /v1/channels/{channelID}` → 200 with the registry's record.
    func readChannel(_ request: HTTPRequest, pathID: String) throws(APIError) -> HTTPResponse {
        let channels = try channelService()
        let channelID = Self.channelID(fromPath: pathID)
        let found: BroadcastChannel?
        do throws(ChannelError) { found = try channels.registry.channel(id: channelID, environment: channels.environment) } catch {
            throw Self.apiError(error)
        }
        guard let found else {
            throw APIError(404, "not-found", "channel \(channelID) is not in the registry for \(channels.environment)",
                           fix: "GET /v1/channels?apple=true lists Apple's channels beside the registry's")
        }
        return .json(200, found.json)
    }

    /// `DELETE /v1/channels/{channelID}?bundleID=…` → 200 with the record marked deleted.
    func deleteChannel(_ request: HTTPRequest, pathID: String) async throws(APIError) -> HTTPResponse {
        let channels = try channelService()
        let channelID = Self.channelID(fromPath: pathID)
        do throws(ChannelError) {
            let gone = try await channels.delete(channelID: channelID, bundleID: request.query["bundleID"])
            return .json(200, gone?.json ?? .obj([("channelID", .string(channelID)), ("deleted", .bool(true)), ("registry", .null)]))
        } catch {
            throw Self.apiError(error)
        }
    }

    /// A channel id from a path segment: Apple's base64 as is, or its base64url spelling (`-` for `+`, `_` for `/`),
    /// which fits in one path segment (standard base64 has neither `-` nor `_`, so the two never clash).
    static func channelID(fromPath text: String) -> String {
        text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    }

    /// After an activity's end: deletes the channels asked to go with it (`"deleteChannelOnEnd"`) once their end
    /// broadcast is sent — checked every 0.25 s for up to 2 minutes (a worker sends the end; `activity-push
    /// channels sweep` catches what this misses, e.g. when serve stops first).
    func deleteEndedChannelsSoon() {
        guard let channels = try? channelService(), channels.client != nil else { return }
        Task.detached {
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                if !(await channels.deleteChannelsOfEndedActivities()).isEmpty { return }
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
    }

    /// The channel service on this console's client and queue store.
    func channelService() throws(APIError) -> BroadcastChannels {
        guard let outbox else {
            throw APIError(503, "not-configured", "no queue store on this console: the channel registry lives there",
                           fix: "start serve with --database PATH|postgres://…")
        }
        let registry: ChannelRegistry
        do { registry = try ChannelRegistry(store: outbox.store) } catch { throw APIError(500, "internal", error.description) }
        return BroadcastChannels(registry: registry, client: client, environment: configuration.queueEnvironment)
    }

    /// `?name=true|false|1|0` (absent: false).
    private static func flag(_ request: HTTPRequest, _ name: String) throws(APIError) -> Bool {
        guard let value = request.query[name] else { return false }
        switch value.lowercased() {
        case "true", "1", "yes", "": return true
        case "false", "0", "no": return false
        default: throw APIError.badRequest(name, "expected true or false, got '\(value)'")
        }
    }

    static func apiError(_ error: ChannelError) -> APIError {
        let status: Int
        switch error.kind {
        case .limitReached: status = 409
        case .notFound: status = 404
        case .badRequest: status = 400
        case .notConfigured: status = 503
        case .rejected, .unreachable: status = 502
        default: status = 500
        }
        let code = status == 503 ? "not-configured" : status == 400 ? "bad-request" : error.kind.rawValue
        return APIError(status, code, error.description, fix: error.fix)
    }
}

/// The OpenAPI entries of `/v1/channels` (spliced into ``OpenAPIDocument``'s `paths`).
enum ChannelRoutesOpenAPI {
    static let paths = #"""
    "/v1/channels": {
      "post": {
        "summary": "Create a broadcast channel at Apple and register it (the 10 000-per-app-per-environment limit is checked first)",
        "operationId": "createChannel",
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "required": ["storagePolicy"],
          "additionalProperties": false, "properties": {
            "storagePolicy": { "type": "integer", "enum": [0, 1], "description": "0 = No Message Stored (higher publishing budget; broadcasts need apns-expiration 0), 1 = Most Recent Message Stored (the last broadcast kept up to 8 hours). Fixed at creation." },
            "bundleID": { "type": "string", "description": "default: serve --bundle-id" },
            "activityID": { "type": "string", "description": "the activity the channel serves" } } } } } },
        "responses": {
          "201": { "description": "Created at Apple (id from the apns-channel-id header) and registered",
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BroadcastChannel" } } } },
          "400": { "$ref": "#/components/responses/Error" },
          "401": { "$ref": "#/components/responses/Error" },
          "409": { "description": "channel-limit: the app has 10 000 live channels in this environment; nothing was sent to Apple", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
          "502": { "description": "apns-rejected (Apple's reason in the message) or apns-unreachable", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
          "503": { "$ref": "#/components/responses/Error" }
        }
      },
      "get": {
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
          "401": { "$ref": "#/components/responses/Error" },
          "502": { "$ref": "#/components/responses/Error" },
          "503": { "$ref": "#/components/responses/Error" }
        }
      }
    },
    "/v1/channels/{channelID}": {
      "parameters": [{ "name": "channelID", "in": "path", "required": true, "schema": { "type": "string" }, "description": "Apple's base64 channel id in its base64url spelling ('-' for '+', '_' for '/'), one path segment" }],
      "get": {
        "summary": "One channel as the registry knows it",
        "operationId": "readChannel",
        "responses": {
          "200": { "description": "The record", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BroadcastChannel" } } } },
          "404": { "$ref": "#/components/responses/Error" },
          "503": { "$ref": "#/components/responses/Error" }
        }
      },
      "delete": {
        "summary": "Delete the channel at Apple (irreversible) and mark it deleted in the registry",
        "operationId": "deleteChannel",
        "parameters": [{ "name": "bundleID", "in": "query", "schema": { "type": "string" }, "description": "needed only for a channel the registry does not know" }],
        "responses": {
          "200": { "description": "Deleted", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BroadcastChannel" } } } },
          "404": { "$ref": "#/components/responses/Error" },
          "502": { "$ref": "#/components/responses/Error" },
          "503": { "$ref": "#/components/responses/Error" }
        }
      }
    },
"""#

    static let schemas = #"""
      "BroadcastChannel": { "type": "object", "properties": {
        "channelID": { "type": "string" }, "environment": { "type": "string" }, "bundleID": { "type": "string" },
        "storagePolicy": { "type": "integer", "enum": [0, 1] }, "storagePolicyName": { "type": "string" },
        "createdAt": { "type": "integer", "description": "UNIX seconds" }, "activityID": { "type": ["string", "null"] },
        "deletedAt": { "type": ["integer", "null"], "description": "UNIX seconds" } } },
"""#
}
