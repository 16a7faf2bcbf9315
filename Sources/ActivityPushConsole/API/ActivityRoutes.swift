import ActivityPushCore
import ActivityPushQueue
import Foundation

/// The lifecycle routes, thin fronts for ``LiveActivityService`` (which decides, builds and queues):
///
/// | Route | Body | Answer |
/// |---|---|---|
/// | `POST /v1/tokens` | ``ActivityTokenRegistration`` | 202 `{"kind", "deviceID", "token" (redacted), "retired", "released"}` |
/// | `POST /v1/activities` | ``ActivityStartRequest`` | 202 the activity (created), 200 (repeat: nothing sent), 409 other body |
/// | `GET /v1/activities?state=` | – | 200 `{"activities": [...]}` |
/// | `GET /v1/activities/{id}` | – | 200 the activity (``ActivityView``) |
/// | `POST /v1/activities/{id}/update`, `…/end` | ``ActivityChangeRequest`` | 202 the activity |
///
/// `/v1/tokens` is for the app: it takes the `--intake-token` bearer (or the admin `--api-token`), so the app
/// never holds the admin credential. Errors are ``APIError`` JSON naming the field and the fix; findings are 422
/// with the findings, as `/v1/enqueue` answers them.
enum ActivityRoutes {
    /// The routes as ``ConsoleAPI/routes`` and `openapi.json` list them (`{id}` is a path parameter).
    static let routes: [(method: String, path: String)] = [
        ("POST", "/v1/tokens"), ("POST", "/v1/activities"), ("GET", "/v1/activities"), ("GET", "/v1/activities/{id}"),
        ("POST", "/v1/activities/{id}/update"), ("POST", "/v1/activities/{id}/end"),
    ]

    /// The route template a path belongs to, nil when none.
    static func template(_ path: String) -> (path: String, activityID: String?)? {
        if path == "/v1/tokens" || path == "/v1/activities" { return (path, nil) }
        let prefix = "/v1/activities/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch rest.count {
        case 1 where !rest[0].isEmpty: return ("/v1/activities/{id}", rest[0])
        case 2 where !rest[0].isEmpty && (rest[1] == "update" || rest[1] == "end"): return ("/v1/activities/{id}/\(rest[1])", rest[0])
        default: return nil
        }
    }

    /// True for the app's route (its own bearer).
    static func isIntake(_ path: String) -> Bool { path == "/v1/tokens" }

    /// The intake check: with an intake token, `Authorization: Bearer` must carry it (or the admin token).
    static func intakeRefusal(_ request: HTTPRequest, configuration: ConsoleConfiguration) -> APIError? {
        let tokens = [configuration.intakeToken, configuration.apiToken].compactMap { $0 }
        guard !tokens.isEmpty else { return nil }
        if tokens.contains(where: { AccessCheck.allows(request, token: $0) }) { return nil }
        return APIError(401, "unauthorized", "POST /v1/tokens needs the intake token",
                        fix: "send Authorization: Bearer <token> (the --intake-token given to serve)")
    }

    /// Answers a lifecycle route; nil when `path` is not one.
    static func handle(_ request: HTTPRequest, path: String, api: ConsoleAPI) async throws(APIError) -> HTTPResponse? {
        guard let (template, activityID) = template(path) else { return nil }
        let method = request.method == "HEAD" ? "GET" : request.method
        let methods = routes.filter { $0.path == template }.map(\.method)
        guard methods.contains(method) else {
            var r = APIError(405, "method-not-allowed", "\(template) takes \(methods.joined(separator: ", ")), not \(request.method)").response
            r.headers.append(("Allow", methods.joined(separator: ", ")))
            return r
        }
        guard let service = api.activities else {
            throw APIError(503, "not-configured", "activities need a queue on this console",
                           fix: "start serve with --database PATH|postgres://…")
        }
        let maxBytes = api.configuration.maxBodyBytes
        do {
            switch (method, template) {
            case ("POST", "/v1/tokens"):
                var body = try RequestBody(request, maxBytes: maxBytes)
                let registration = try token(&body)
                try body.rejectUnknown(allowed: [])
                return .json(202, try service.register(registration).json)
            case ("POST", "/v1/activities"):
                var body = try RequestBody(request, maxBytes: maxBytes)
                let start = try startRequest(&body)
                try body.rejectUnknown(allowed: [])
                let (view, created) = try await service.start(start, channels: start.channel ? try api.channelService() : nil)
                return .json(created ? 202 : 200, view.json)
            case ("GET", "/v1/activities"):
                var state: ActivityState?
                if let text = request.query["state"], !text.isEmpty {
                    guard ActivityState.all.map(\.rawValue).contains(text) else {
                        throw APIError.badRequest("state", "unknown state '\(text)'",
                                                  fix: "one of " + ActivityState.all.map(\.rawValue).joined(separator: ", "))
                    }
                    state = ActivityState(rawValue: text)
                }
                var limit = 100
                if let text = request.query["limit"] {
                    guard let number = Int(text), number > 0 else { throw APIError.badRequest("limit", "expected a positive whole number, got '\(text)'") }
                    limit = min(number, 1000)
                }
                return .json(200, .obj([("activities", .arr(try service.list(state: state, limit: limit).map(\.json)))]))
            case ("GET", _):
                var view = try service.show(activityID: activityID ?? "")
                // Against mock-apns (serve --url with a key), what each device did with each delivered push.
                if api.configuration.readMockJournal, let client = api.client,
                   let outcomes = await DeviceOutcome.lookupAll(client: client) {
                    for index in view.pushes.indices {
                        view.pushes[index].deviceOutcome = outcomes[view.pushes[index].apnsID.lowercased()]?.outcome
                    }
                }
                return .json(200, view.json)
            default:
                var body = try RequestBody(request, maxBytes: maxBytes)
                let change = try changeRequest(&body)
                try body.rejectUnknown(allowed: [])
                let view = template.hasSuffix("/end") ? try service.end(activityID: activityID ?? "", change)
                                                      : try service.update(activityID: activityID ?? "", change)
                if template.hasSuffix("/end"), view.channelID != nil { api.deleteEndedChannelsSoon() }
                return .json(202, view.json)
            }
        } catch let error as ActivityError {
            return response(error)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(500, "internal", "\(error)")
        }
    }

    /// An ``ActivityError`` as the API answers it (422 with the findings, as `/v1/enqueue`).
    static func response(_ error: ActivityError) -> HTTPResponse {
        let apiError = APIError(error.status, error.code, error.message, fix: error.fix, field: error.field)
        guard !error.findings.isEmpty, case .object(var members) = apiError.json else { return apiError.response }
        members.insert(JSONMember(key: "findings", value: JSONNode(.arr(error.findings.map(ReportFormatter.findingJSON)))), at: 0)
        members.insert(JSONMember(key: "accept", value: JSONNode(.bool(false))), at: 0)
        return .json(error.status, .object(members))
    }

    // MARK: Bodies

    private static func token(_ body: inout RequestBody) throws(APIError) -> ActivityTokenRegistration {
        guard let kind = try body.string("kind") else {
            throw .badRequest("kind", "is required: \"push-to-start\" or \"update\"")
        }
        guard let deviceID = try body.string("deviceID") else {
            throw .badRequest("deviceID", "is required: the app's id for this device")
        }
        guard let token = try body.string("token") else {
            throw .badRequest("token", "is required: the token as hex")
        }
        return ActivityTokenRegistration(kind: ActivityTokenKind(rawValue: kind), deviceID: deviceID,
                                         attributesType: try body.string("attributesType"),
                                         activityID: try body.string("activityID"), token: token,
                                         environment: try body.string("environment"))
    }

    private static func startRequest(_ body: inout RequestBody) throws(APIError) -> ActivityStartRequest {
        guard let activityID = try body.string("activityID") else {
            throw .badRequest("activityID", "is required: your id of the activity (the idempotency key)",
                              fix: "give \"activityID\": \"game-42\"")
        }
        var start = ActivityStartRequest(activityID: activityID)
        start.attributesType = try body.string("type")
        start.attributes = try body.object("attributes")
        start.contentState = try body.object("contentState")
        var alert = LiveActivityPush.Fields()
        try PushForm.readAlert(&body, into: &alert)
        start.alertTitle = alert.alertTitle
        start.alertBody = alert.alertBody
        start.deviceIDs = try body.strings("deviceIDs") ?? []
        start.channel = try body.bool("channel") ?? false
        start.channelID = try body.string("channelID")
        start.deleteChannelOnEnd = try body.bool("deleteChannelOnEnd") ?? false
        start.staleDateUnixSeconds = try body.int64("staleDate", unit: "UNIX seconds")
        start.relevanceScore = try body.double("relevanceScore")
        return start
    }

    private static func changeRequest(_ body: inout RequestBody) throws(APIError) -> ActivityChangeRequest {
        var change = ActivityChangeRequest(contentState: try body.object("contentState"))
        var alert = LiveActivityPush.Fields()
        try PushForm.readAlert(&body, into: &alert)
        change.alertTitle = alert.alertTitle
        change.alertBody = alert.alertBody
        change.staleDateUnixSeconds = try body.int64("staleDate", unit: "UNIX seconds")
        change.dismissalDateUnixSeconds = try body.int64("dismissalDate", unit: "UNIX seconds")
        change.priority = try body.int64("priority", unit: "numbers (5 or 10)").map { Int(clamping: $0) }
        return change
    }
}
