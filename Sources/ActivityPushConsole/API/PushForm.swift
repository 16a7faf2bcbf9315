import ActivityPushCore
import Foundation

/// The typed fields of `POST /v1/build`, `/v1/send` and `/v1/enqueue` — the same set as the CLI's build flags
/// (`activity-push build --event …`), mapped onto the one builder, ``LiveActivityPush``:
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
/// All `aps` times are UNIX seconds. Shape errors the builder cannot express (a start without an alert,
/// `dismissalDate` on a start) are 400 errors naming the field; everything else is judged by the validator.
struct PushForm {
    static let fields: Set<String> = [
        "event", "type", "attributes", "contentState", "alert", "timestamp", "staleDate", "dismissalDate",
        "relevanceScore", "priority", "expiration", "apnsID", "collapseID", "requestUpdateToken",
        "inputPushChannel", "channelID",
    ]

    var event: String
    var type: String?
    var attributes: JSONValue?
    var contentState: JSONValue?
    var alert: LiveActivityAlert?
    var timestamp: Int64?
    var staleDate: Int64?
    var dismissalDate: Int64?
    var relevanceScore: Double?
    var priority: Int?
    var expiration: Int64?
    var apnsID: String?
    var collapseID: String?
    var requestUpdateToken: Bool
    var inputPushChannel: String?
    var channelID: String?

    /// Reads the fields (marking them used in `body`).
    init(_ body: inout RequestBody) throws(APIError) {
        guard let event = try body.string("event") else {
            throw .badRequest("event", "required: \"start\", \"update\" or \"end\"")
        }
        self.event = event
        type = try body.string("type").flatMap { $0.isEmpty ? nil : $0 }
        attributes = try body.object("attributes")
        contentState = try body.object("contentState")
        alert = try Self.alert(&body)
        timestamp = try body.int64("timestamp", unit: "UNIX seconds")
        staleDate = try body.int64("staleDate", unit: "UNIX seconds")
        dismissalDate = try body.int64("dismissalDate", unit: "UNIX seconds")
        relevanceScore = try body.double("relevanceScore")
        priority = try body.int64("priority", unit: "numbers (5 or 10)").map { Int(clamping: $0) }
        expiration = try body.int64("expiration", unit: "UNIX seconds")
        apnsID = try body.string("apnsID").flatMap { $0.isEmpty ? nil : $0 }
        collapseID = try body.string("collapseID").flatMap { $0.isEmpty ? nil : $0 }
        requestUpdateToken = try body.bool("requestUpdateToken") ?? false
        inputPushChannel = try body.string("inputPushChannel").flatMap { $0.isEmpty ? nil : $0 }
        channelID = try body.string("channelID").flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func alert(_ body: inout RequestBody) throws(APIError) -> LiveActivityAlert? {
        guard let m = body.node("alert") else { return nil }
        guard let members = m.value.value.members else {
            throw .badRequest("alert", "expected an object {\"title\": …, \"body\": …}", position: m.value.position)
        }
        var title: String?, text: String?, sound: String?
        for member in members {
            guard let s = member.value.value.stringValue else {
                if member.value.value == .null { continue }
                throw .badRequest("alert.\(member.key)", "expected a string", position: member.value.position)
            }
            switch member.key {
            case "title": title = s
            case "body": text = s
            case "sound": sound = s.isEmpty ? nil : s
            default:
                throw .badRequest("alert.\(member.key)", "unknown field", fix: "alert takes title, body and sound",
                                  position: member.keyPosition)
            }
        }
        switch (title?.isEmpty == false ? title : nil, text?.isEmpty == false ? text : nil) {
        case let (t?, b?): return LiveActivityAlert(title: t, body: b, sound: sound)
        case (nil, nil): return nil
        default:
            throw .badRequest("alert", "give both title and body", fix: "the device shows an alert only with both")
        }
    }

    /// The push these fields describe, made by the one builder.
    func push(bundleID: String, schema: ActivitySchema?) throws(APIError) -> LiveActivityPush {
        guard let contentState else {
            throw .badRequest("contentState", "required (the ContentState as a JSON object)")
        }
        let ts = timestamp ?? LiveActivityPush.nowUnixSeconds()
        var push: LiveActivityPush
        switch event {
        case "start":
            guard let attributes else {
                throw .badRequest("attributes", "a start needs the type's stored properties as a JSON object")
            }
            guard let alert else {
                throw .badRequest("alert", "a start needs alert.title and alert.body (the device drops a start without an alert)")
            }
            if dismissalDate != nil { throw .badRequest("dismissalDate", "applies to end only") }
            var typeName = type
            if typeName == nil, let schema, schema.types.count == 1 { typeName = schema.types[0].name }
            guard let typeName else {
                throw .badRequest("type", "a start needs the ActivityAttributes type name", fix: "see GET /v1/types")
            }
            push = .start(bundleID: bundleID, attributesType: typeName, attributes: attributes, contentState: contentState,
                          alert: alert, timestampUnixSeconds: ts, staleDateUnixSeconds: staleDate,
                          relevanceScore: relevanceScore, requestUpdateToken: requestUpdateToken,
                          inputPushChannel: inputPushChannel)
        case "update", "end":
            if attributes != nil { throw .badRequest("attributes", "applies to start only") }
            if requestUpdateToken || inputPushChannel != nil {
                throw .badRequest(requestUpdateToken ? "requestUpdateToken" : "inputPushChannel", "applies to start only")
            }
            if event == "update" {
                if dismissalDate != nil { throw .badRequest("dismissalDate", "applies to end only") }
                push = .update(bundleID: bundleID, contentState: contentState, timestampUnixSeconds: ts, alert: alert,
                               staleDateUnixSeconds: staleDate, relevanceScore: relevanceScore)
            } else {
                push = .end(bundleID: bundleID, contentState: contentState, timestampUnixSeconds: ts,
                            dismissalDateUnixSeconds: dismissalDate, alert: alert, staleDateUnixSeconds: staleDate,
                            relevanceScore: relevanceScore)
            }
        default:
            throw .badRequest("event", "must be \"start\", \"update\" or \"end\", got \"\(event)\"")
        }
        if let priority { push.priority = APNsPriority(rawValue: priority) }
        push.expirationUnixSeconds = expiration
        if let apnsID {
            guard let id = UUID(uuidString: apnsID) else {
                throw .badRequest("apnsID", "must be a UUID (8-4-4-4-12 hex)", fix: "leave it empty to let APNs assign one")
            }
            push.apnsID = id
        }
        push.collapseID = collapseID
        if let channelID { push = push.toBroadcast(channelID: channelID) }
        return push
    }
}
