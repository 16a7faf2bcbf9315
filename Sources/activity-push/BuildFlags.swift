import ActivityPushCore
import Foundation

/// The build flags shared by `build`, `send` and `queue enqueue`: every way the CLI makes a push goes through
/// these into the one builder (``LiveActivityPush``).
///
/// `--event start|update|end [--type NAME] --attributes-json JSON --content-state-json JSON
///  [--alert-title T --alert-body B [--alert-sound S]] [--timestamp UNIX] [--stale-date UNIX]
///  [--dismissal-date UNIX] [--relevance-score X] [--priority 5|10] [--expiration UNIX] [--apns-id UUID]
///  [--collapse-id ID] [--request-update-token] [--input-push-channel ID] [--channel-id ID]`
struct BuildFlags {
    static let booleanFlags: Set<String> = ["--request-update-token"]
    static let help = """
      --event start|update|end   the Live Activity event
      --type NAME                attributes-type (default: the only ActivityAttributes type in --attributes)
      --attributes-json JSON     start: the type's stored properties, as a JSON object
      --content-state-json JSON  the ContentState, as a JSON object (Dates: seconds since 2001-01-01)
      --alert-title T --alert-body B [--alert-sound S]   aps.alert (required for start)
      --timestamp UNIX           aps.timestamp, UNIX seconds (default: now)
      --stale-date UNIX          aps.stale-date, UNIX seconds
      --dismissal-date UNIX      aps.dismissal-date, UNIX seconds (end only)
      --relevance-score X        aps.relevance-score
      --priority 5|10            apns-priority (default 10)
      --expiration UNIX          apns-expiration, UNIX seconds
      --apns-id UUID             apns-id
      --collapse-id ID           apns-collapse-id (≤ 64 bytes)
      --request-update-token     start, iOS 18+: input-push-token: 1
      --input-push-channel ID    start, iOS 18+: subscribe the activity to a broadcast channel
      --channel-id ID            send an update / end as a broadcast to this channel
    """

    var event: String
    var type: String?
    var attributesJSON: String?
    var contentStateJSON: String?
    var alertTitle: String?
    var alertBody: String?
    var alertSound: String?
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

    /// Reads the build flags; nil when `--event` is absent (the caller then expects a PAYLOAD.json).
    static func read(_ a: inout Arguments) throws -> BuildFlags? {
        func int64(_ flag: String) throws -> Int64? {
            guard let v = a.value(flag) else { return nil }
            guard let i = Int64(v) else { throw UsageError("\(flag) expects whole UNIX seconds, got '\(v)'") }
            return i
        }
        let event = a.value("--event")
        let flags = BuildFlags(
            event: event ?? "", type: a.value("--type"), attributesJSON: a.value("--attributes-json"),
            contentStateJSON: a.value("--content-state-json"), alertTitle: a.value("--alert-title"),
            alertBody: a.value("--alert-body"), alertSound: a.value("--alert-sound"), timestamp: try int64("--timestamp"),
            staleDate: try int64("--stale-date"), dismissalDate: try int64("--dismissal-date"),
            relevanceScore: try a.double("--relevance-score"), priority: try a.int("--priority"),
            expiration: try int64("--expiration"), apnsID: a.value("--apns-id"), collapseID: a.value("--collapse-id"),
            requestUpdateToken: a.flag("--request-update-token"), inputPushChannel: a.value("--input-push-channel"),
            channelID: a.value("--channel-id"))
        return event == nil ? nil : flags
    }

    private func object(_ text: String?, flag: String) throws -> JSONValue? {
        guard let text else { return nil }
        let doc = JSONReader.read(text)
        if let p = doc.problems.first {
            throw UsageError("\(flag): not valid JSON at column \(p.position.column): \(p.message)")
        }
        guard let v = doc.root?.value, v.members != nil else { throw UsageError("\(flag) must be a JSON object") }
        return v
    }

    /// The push these flags describe. Shape errors the builder cannot express (e.g. dismissal date on a start)
    /// are usage errors; everything else is judged by ``LiveActivityPush/build(schema:)``.
    func push(bundleID: String, schema: ActivitySchema?) throws -> LiveActivityPush {
        guard let contentState = try object(contentStateJSON, flag: "--content-state-json") else {
            throw UsageError("--content-state-json is required (the ContentState as a JSON object)")
        }
        let alert: LiveActivityAlert?
        switch (alertTitle, alertBody) {
        case let (t?, b?): alert = LiveActivityAlert(title: t, body: b, sound: alertSound)
        case (nil, nil): alert = nil
        default: throw UsageError("give both --alert-title and --alert-body (the device shows an alert only with both)")
        }
        let ts = timestamp ?? LiveActivityPush.nowUnixSeconds()
        var push: LiveActivityPush
        switch event {
        case "start":
            // A start without these cannot be valid: said as findings (exit 1), like every other refusal.
            var missing: [Finding] = []
            let attributes = try object(attributesJSON, flag: "--attributes-json")
            if attributes == nil {
                missing.append(Finding(code: .missingAttributes, severity: .error, path: "aps.attributes", position: nil,
                                       message: "a start needs attributes: the device cannot create the activity without them",
                                       fix: "give --attributes-json with the type's stored properties as a JSON object"))
            }
            if alert == nil {
                missing.append(Finding(code: .missingAlertForStart, severity: .error, path: "aps.alert", position: nil,
                                       message: "a push-to-start without an alert is dropped by the device although APNs answers 200",
                                       fix: "give --alert-title and --alert-body"))
            }
            if dismissalDate != nil { throw UsageError("--dismissal-date applies to end only") }
            var typeName = type
            if typeName == nil, let schema, schema.types.count == 1 { typeName = schema.types[0].name }
            if typeName == nil {
                missing.append(Finding(code: .missingAttributesType, severity: .error, path: "aps.attributes-type", position: nil,
                                       message: "a start needs attributes-type, the ActivityAttributes type's exact name",
                                       fix: "give --type NAME, or --attributes with a file declaring exactly one ActivityAttributes type"))
            }
            guard missing.isEmpty, let attributes, let alert, let typeName else { throw PushBuildError(findings: missing) }
            push = .start(bundleID: bundleID, attributesType: typeName, attributes: attributes, contentState: contentState,
                          alert: alert, timestampUnixSeconds: ts, staleDateUnixSeconds: staleDate, relevanceScore: relevanceScore,
                          requestUpdateToken: requestUpdateToken, inputPushChannel: inputPushChannel)
        case "update", "end":
            if attributesJSON != nil || type != nil { throw UsageError("--attributes-json and --type apply to start only") }
            if requestUpdateToken || inputPushChannel != nil { throw UsageError("--request-update-token and --input-push-channel apply to start only") }
            if event == "update" {
                if dismissalDate != nil { throw UsageError("--dismissal-date applies to end only") }
                push = .update(bundleID: bundleID, contentState: contentState, timestampUnixSeconds: ts, alert: alert,
                               staleDateUnixSeconds: staleDate, relevanceScore: relevanceScore)
            } else {
                push = .end(bundleID: bundleID, contentState: contentState, timestampUnixSeconds: ts,
                            dismissalDateUnixSeconds: dismissalDate, alert: alert, staleDateUnixSeconds: staleDate,
                            relevanceScore: relevanceScore)
            }
        default:
            throw UsageError("--event must be start, update or end, got '\(event)'")
        }
        if let priority { push.priority = APNsPriority(rawValue: priority) }
        push.expirationUnixSeconds = expiration
        if let apnsID {
            guard let id = UUID(uuidString: apnsID) else { throw UsageError("--apns-id must be a UUID") }
            push.apnsID = id
        }
        push.collapseID = collapseID
        if let channelID { push = push.toBroadcast(channelID: channelID) }
        return push
    }
}
