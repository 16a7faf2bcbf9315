import ActivityPushCore
import Foundation

/// The typed fields of `POST /v1/build`, `/v1/send` and `/v1/enqueue`, decoded into the builder's one typed
/// input, ``LiveActivityPush/Fields`` (the CLI's build flags decode into the same type), with the JSON keys of
/// ``LiveActivityPush/Field``:
///
/// ```
/// {"event": "start" | "update" | "end",
///  "type": "PizzaDeliveryAttributes",            // start; default: the only type read from --attributes
///  "attributes": {…} | "{…}",                     // start: stored properties (object, or its JSON text)
///  "contentState": {…} | "{…}",                   // ContentState (Dates: seconds since 2001-01-01)
///  "alert": {"title": "…", "body": "…", "sound": "…"},   // required for start
///  "timestamp": UNIX, "staleDate": UNIX, "dismissalDate": UNIX (end), "relevanceScore": 0.5,
///  "priority": 5 | 10, "expiration": UNIX, "apnsID": "UUID", "collapseID": "…",
///  "requestUpdateToken": true, "inputPushChannel": "…",  // start, iOS 18+
///  "channelID": "…"}                              // update / end as a broadcast
/// ```
/// All `aps` times are UNIX seconds. A start without attributes, type or alert is answered with findings (422),
/// as `activity-push build` answers it; a shape the builder cannot express is a 400 naming the field.
struct PushForm {
    typealias Field = LiveActivityPush.Field

    var fields: LiveActivityPush.Fields

    /// Reads the fields (marking them used in `body`).
    init(_ body: inout RequestBody) throws(APIError) {
        guard let event = try body.string(Field.event.jsonKey) else {
            throw .badRequest(Field.event.jsonKey, "required: \"start\", \"update\" or \"end\"")
        }
        fields = LiveActivityPush.Fields(event: LiveActivityEvent(rawValue: event))
        fields.attributesType = try body.string(Field.attributesType.jsonKey)
        fields.attributes = try body.object(Field.attributes.jsonKey)
        fields.contentState = try body.object(Field.contentState.jsonKey)
        try Self.readAlert(&body, into: &fields)
        fields.timestampUnixSeconds = try body.int64(Field.timestamp.jsonKey, unit: "UNIX seconds")
        fields.staleDateUnixSeconds = try body.int64(Field.staleDate.jsonKey, unit: "UNIX seconds")
        fields.dismissalDateUnixSeconds = try body.int64(Field.dismissalDate.jsonKey, unit: "UNIX seconds")
        fields.relevanceScore = try body.double(Field.relevanceScore.jsonKey)
        fields.priority = try body.int64(Field.priority.jsonKey, unit: "numbers (5 or 10)").map { Int(clamping: $0) }
        fields.expirationUnixSeconds = try body.int64(Field.expiration.jsonKey, unit: "UNIX seconds")
        fields.apnsID = try body.string(Field.apnsID.jsonKey)
        fields.collapseID = try body.string(Field.collapseID.jsonKey)
        fields.requestUpdateToken = try body.bool(Field.requestUpdateToken.jsonKey) ?? false
        fields.inputPushChannel = try body.string(Field.inputPushChannel.jsonKey)
        fields.channelID = try body.string(Field.channelID.jsonKey)
    }

    /// `alert`: an object with string members `title`, `body`, `sound` (null members are ignored).
    static func readAlert(_ body: inout RequestBody, into fields: inout LiveActivityPush.Fields) throws(APIError) {
        guard let alert = body.node("alert") else { return }
        guard let members = alert.value.value.members else {
            throw .badRequest("alert", "expected an object {\"title\": …, \"body\": …}", position: alert.value.position)
        }
        for member in members {
            guard let text = member.value.value.stringValue else {
                if member.value.value == .null { continue }
                throw .badRequest("alert.\(member.key)", "expected a string", position: member.value.position)
            }
            switch member.key {
            case "title": fields.alertTitle = text
            case "body": fields.alertBody = text
            case "sound": fields.alertSound = text
            default:
                throw .badRequest("alert.\(member.key)", "unknown field", fix: "alert takes title, body and sound",
                                  position: member.keyPosition)
            }
        }
    }

    /// The push these fields describe, made by the one builder (`.failure` with the findings of a start missing
    /// its parts: answer 422 as for the validator's findings).
    /// - Throws: ``APIError`` 400 naming the field for a shape the builder cannot express.
    func push(bundleID: String, schema: ActivitySchema?) throws(APIError) -> Result<LiveActivityPush, PushBuildError> {
        do {
            return .success(try fields.push(bundleID: bundleID, schema: schema, naming: .json))
        } catch {
            switch error {
            case .findings(let findings): return .failure(PushBuildError(findings: findings))
            case .invalidField(let field, let message, let fix): throw .badRequest(field.jsonKey, message, fix: fix)
            }
        }
    }
}
