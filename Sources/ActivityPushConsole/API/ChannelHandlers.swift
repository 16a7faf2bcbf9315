import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// The handlers of `/v1/channels` (routes in `Routes/ChannelsRoute.swift`): broadcast channels on Apple's
/// channel-management API and the registry in the console's queue store (``BroadcastChannels``, the same as
/// `activity-push channels`).
///
/// - `POST /v1/channels` `{"storagePolicy": 0|1, "bundleID"?}` → 201 with the channel;
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
    /// `POST /v1/channels` `{"storagePolicy": 0|1, "bundleID"?}` → 201 with the channel.
    func createChannel(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let channels = try channelService()
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        guard let member = body.node("storagePolicy") else {
            throw APIError.badRequest("storagePolicy", "required: 0 or 1, fixed at creation",
                                      fix: "0 = No Message Stored (higher publishing budget; broadcasts need apns-expiration 0), "
                                          + "1 = Most Recent Message Stored (Apple keeps the last broadcast up to 8 hours)")
        }
        // The number as the client wrote it (`2`, not `2.0`), or the JSON kind when it is not a number.
        let number = member.value.value.numberValue
        guard let policy = number?.integralValue, policy == 0 || policy == 1 else {
            throw APIError.badRequest("storagePolicy", "must be 0 or 1, got \(number?.lexeme ?? member.value.value.kindName)",
                                      fix: "0 = No Message Stored, 1 = Most Recent Message Stored", position: member.value.position)
        }
        let bundleID = try body.string("bundleID") ?? configuration.bundleID
        // A channel gets its activity when the activity starts on it (issue 11, U7): a link made here could name
        // no activity, or one on devices, and then move silently.
        if let activity = body.node("activityID") {
            throw APIError.badRequest("activityID", "is not accepted here: a channel is linked to its activity when the activity starts on it",
                                      fix: "create the channel without activityID, then POST /v1/activities with \"channel\": true and "
                                          + "\"channelID\": \"<this channel's id>\" (or without channelID to get a new channel)",
                                      position: activity.value.position)
        }
        try body.rejectUnknown(allowed: [])
        do throws(ChannelError) {
            let made = try await channels.create(bundleID: bundleID, storagePolicy: MessageStoragePolicy(rawValue: Int(policy)))
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
        case .limitReached, .inUse: status = 409
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
