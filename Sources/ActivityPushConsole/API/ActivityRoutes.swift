import ActivityPushCore
import ActivityPushQueue
import Foundation

/// What the lifecycle routes (`Routes/TokensRoute.swift`, `ActivitiesRoute.swift`, `ActivityRoute.swift`) share:
/// reading their bodies into ``LiveActivityService``'s requests and answering its errors. The routes are thin
/// fronts: the service decides, builds (the one builder and validator) and queues.
///
/// Errors are ``APIError`` JSON naming the field and the fix; findings are 422 with the findings, as `/v1/enqueue`
/// answers them.
enum ActivityRoutes {
    /// Runs `body` with the service; an ``ActivityError`` becomes its JSON answer, 503 without a queue.
    static func answer(_ api: ConsoleAPI,
                       _ body: (LiveActivityService) async throws -> HTTPResponse) async throws(APIError) -> HTTPResponse {
        guard let service = api.activities else {
            throw APIError(503, "not-configured", "activities need a queue on this console",
                           fix: "start serve with --database PATH|postgres://…")
        }
        do {
            return try await body(service)
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

    static func token(_ body: inout RequestBody) throws(APIError) -> ActivityTokenRegistration {
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
                                         environment: try body.string("environment"),
                                         deviceSecret: try body.string("deviceSecret"))
    }

    static func startRequest(_ body: inout RequestBody) throws(APIError) -> ActivityStartRequest {
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

    static func changeRequest(_ body: inout RequestBody) throws(APIError) -> ActivityChangeRequest {
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
