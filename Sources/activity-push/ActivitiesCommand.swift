import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push activities start|update|end|show|list|token` — the Live Activity lifecycle against the store
/// (`--database`, the same SQLite file or PostgreSQL database `serve` and `worker` use). Exit 0 on success,
/// 1 when the request was refused (findings, conflict, unknown activity), 2 on bad flags or a database error.
let activitiesCommand = Command(
    name: "activities",
    summary: "Live Activity lifecycle: start, update, end, show, list activities; post tokens (store-backed)"
) { argv in
    guard let sub = argv.first, sub != "--help", sub != "-h" else {
        print(ActivitiesCommandSupport.usage)
        return argv.isEmpty ? 2 : 0
    }
    let rest = Array(argv.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(ActivitiesCommandSupport.usage)
        return 0
    }
    guard ["start", "update", "end", "show", "list", "token"].contains(sub) else {
        throw UsageError("unknown activities subcommand '\(sub)' (start, update, end, show, list, token)")
    }
    return try ActivitiesCommandSupport.run(sub, rest)
}

enum ActivitiesCommandSupport {
    static let usage = """
    usage: activity-push activities start  --id ACTIVITY --device ID... [--type NAME] --attributes-json J
                                           --content-state-json J --alert-title T --alert-body B
                                           [--stale-date UNIX] [--relevance-score X]
           activity-push activities update --id ACTIVITY --content-state-json J [--alert-title T --alert-body B]
                                           [--stale-date UNIX] [--priority 5|10]
           activity-push activities end    --id ACTIVITY --content-state-json J [--dismissal-date UNIX] [...]
           activity-push activities show   --id ACTIVITY
           activity-push activities list   [--state starting|active|ended] [--limit N]
           activity-push activities token  --kind push-to-start|update --device ID --token HEX
                                           (--type NAME [--token-env sandbox|production] | --id ACTIVITY)
      common: [--database DB] [--bundle-id ID] [--attributes PATH]... [--env sandbox|production]
              [--push-to-start-budget N] [--priority-10-budget N] [--format text|json]
      --database DB   the queue (SQLite path or postgres://…) that `serve` and `worker` use
      --env NAME      the queue environment pushes are queued under (default sandbox; a worker with the same --env sends them)
    Starts go to each device's push-to-start token (posted with `token` or POST /v1/tokens); updates and ends
    to the activity's update token, held until the device posts it. Pushes are built by the one builder,
    checked by the validator (against --attributes when given) and queued for `activity-push worker`.
    """

    static func budgets(_ arguments: inout Arguments) throws -> ActivityBudgets {
        var budgets = ActivityBudgets()
        if let starts = try arguments.int("--push-to-start-budget") {
            guard starts > 0 else { throw UsageError("--push-to-start-budget must be at least 1") }
            budgets.pushToStartPerHour = starts
        }
        if let updates = try arguments.int("--priority-10-budget") {
            guard updates >= 0 else { throw UsageError("--priority-10-budget must be 0 or more") }
            budgets.priority10UpdatesPerHour = updates
        }
        return budgets
    }

    static func service(_ outbox: Outbox, bundleID: String, environment: String, schema: ActivitySchema?,
                        budgets: ActivityBudgets) throws -> LiveActivityService {
        do {
            return try LiveActivityService(outbox: outbox, bundleID: bundleID, environment: environment, schema: schema, budgets: budgets)
        } catch {
            throw UsageError("--database: \(error.description)")
        }
    }

    static func run(_ sub: String, _ argv: [String]) throws -> Int32 {
        let event = ["start", "update", "end"].contains(sub) ? ["--event", sub] : []
        var a = try Arguments(argv + event, booleanFlags: BuildFlags.booleanFlags)
        let database = a.value("--database")
        let bundleID = a.value("--bundle-id") ?? "com.example.app"
        let schema = try Inputs.schema(a.values("--attributes"))
        let environment = a.value("--env") ?? "sandbox"
        let format = a.value("--format") ?? "text"
        let budgets = try budgets(&a)
        let activityID = a.value("--id")
        let devices = a.values("--device")
        let state = a.value("--state")
        let limit = try a.int("--limit") ?? 100
        let kind = a.value("--kind")
        let token = a.value("--token")
        let tokenEnvironment = a.value("--token-env")
        let tokenType = event.isEmpty ? a.value(LiveActivityPush.Field.attributesType.flag) : nil
        let flags = event.isEmpty ? nil : try BuildFlags.read(&a)
        try a.finish()
        if let p = a.positionals.first { throw UsageError("unexpected argument '\(p)'") }
        guard format == "text" || format == "json" else { throw UsageError("--format must be text or json") }
        guard environment == "sandbox" || environment == "production" else { throw UsageError("--env must be sandbox or production") }
        let outbox: Outbox
        do { outbox = try Outbox.open(database: database) } catch { throw UsageError("--database: \(error)") }
        defer { outbox.store.close() }
        let service = try service(outbox, bundleID: bundleID, environment: environment, schema: schema, budgets: budgets)
        func required(_ value: String?, _ flag: String) throws -> String {
            guard let value, !value.isEmpty else { throw UsageError("\(flag) is required for `activities \(sub)`") }
            return value
        }
        do {
            let output: JSONValue
            let text: String
            switch sub {
            case "token":
                guard let kind else { throw UsageError("--kind push-to-start|update is required") }
                let registration = ActivityTokenRegistration(
                    kind: ActivityTokenKind(rawValue: kind), deviceID: try required(devices.last, "--device"),
                    attributesType: tokenType, activityID: activityID,
                    token: try required(token, "--token"), environment: tokenEnvironment)
                let receipt = try service.register(registration)
                output = receipt.json
                text = "\(receipt.kind) token \(receipt.token) for \(receipt.deviceID) stored"
                    + (receipt.retired.map { "; retired by APNs earlier (\($0))" } ?? "")
                    + (receipt.released > 0 ? "; released \(receipt.released) held push(es)" : "")
            case "list":
                var filter: ActivityState?
                if let state {
                    guard ActivityState.all.map(\.rawValue).contains(state) else {
                        throw UsageError("--state must be one of " + ActivityState.all.map(\.rawValue).joined(separator: ", "))
                    }
                    filter = ActivityState(rawValue: state)
                }
                let summaries = try service.list(state: filter, limit: limit)
                output = .obj([("activities", .arr(summaries.map(\.json)))])
                text = summaries.isEmpty ? "no activities" : summaries.map {
                    "\($0.activityID)  \($0.state)  \($0.attributesType)  \($0.devices) device(s)"
                }.joined(separator: "\n")
            case "show":
                let view = try service.show(activityID: try required(activityID, "--id"))
                output = view.json
                text = describe(view)
            case "start":
                let fields = flags?.fields ?? LiveActivityPush.Fields()
                try refuseUnused(fields, allowed: [.event, .attributesType, .attributes, .contentState, .alertTitle, .alertBody,
                                                   .staleDate, .relevanceScore])
                var start = ActivityStartRequest(activityID: try required(activityID, "--id"))
                start.attributesType = fields.attributesType
                start.attributes = fields.attributes
                start.contentState = fields.contentState
                start.alertTitle = fields.alertTitle
                start.alertBody = fields.alertBody
                start.staleDateUnixSeconds = fields.staleDateUnixSeconds
                start.relevanceScore = fields.relevanceScore
                start.deviceIDs = devices
                let (view, created) = try service.start(start)
                output = view.json
                text = (created ? "started" : "already started (nothing sent)") + "\n" + describe(view)
            default:
                let fields = flags?.fields ?? LiveActivityPush.Fields()
                try refuseUnused(fields, allowed: [.event, .contentState, .alertTitle, .alertBody, .staleDate, .dismissalDate, .priority])
                var change = ActivityChangeRequest(contentState: fields.contentState)
                change.alertTitle = fields.alertTitle
                change.alertBody = fields.alertBody
                change.staleDateUnixSeconds = fields.staleDateUnixSeconds
                change.dismissalDateUnixSeconds = fields.dismissalDateUnixSeconds
                change.priority = fields.priority
                let id = try required(activityID, "--id")
                let view = sub == "end" ? try service.end(activityID: id, change) : try service.update(activityID: id, change)
                output = view.json
                text = describe(view)
            }
            print(format == "json" ? JSONWriter.pretty(output) : text)
            return 0
        } catch let error as ActivityError {
            if format == "json" {
                print(JSONWriter.pretty(.obj([("error", .obj([("status", .int(error.status)), ("code", .string(error.code)),
                                                              ("field", error.field.map(JSONValue.string) ?? .null),
                                                              ("message", .string(error.message)),
                                                              ("fix", error.fix.map(JSONValue.string) ?? .null)])),
                                              ("findings", .arr(error.findings.map(ReportFormatter.findingJSON)))])))
            } else {
                for finding in error.findings where finding.severity == .error {
                    printError("\(finding.path): error: \(finding.message) [\(finding.code.rawValue)]" + (finding.fix.map { "\n    fix: \($0)" } ?? ""))
                }
                printError("activity-push activities \(sub): \(error.description)")
            }
            return error.status == 503 ? 2 : 1
        }
    }

    private static func refuseUnused(_ fields: LiveActivityPush.Fields, allowed: Set<LiveActivityPush.Field>) throws {
        let given: [(LiveActivityPush.Field, Bool)] = [
            (.alertSound, fields.alertSound != nil), (.timestamp, fields.timestampUnixSeconds != nil),
            (.expiration, fields.expirationUnixSeconds != nil), (.apnsID, fields.apnsID != nil), (.collapseID, fields.collapseID != nil),
            (.requestUpdateToken, fields.requestUpdateToken), (.inputPushChannel, fields.inputPushChannel != nil),
            (.channelID, fields.channelID != nil), (.attributes, fields.attributes != nil), (.attributesType, fields.attributesType != nil),
            (.dismissalDate, fields.dismissalDateUnixSeconds != nil), (.priority, fields.priority != nil),
            (.relevanceScore, fields.relevanceScore != nil),
        ]
        for (field, present) in given where present && !allowed.contains(field) {
            throw UsageError("\(field.flag) does not apply here: the service sets it (timestamps, ids, input-push-token) or the event does not take it")
        }
    }

    static func describe(_ view: ActivityView) -> String {
        var lines = ["activity \(view.activityID): \(view.state)\(view.endReason.map { " (\($0))" } ?? "")  type \(view.attributesType)"]
        for device in view.devices {
            lines.append("  device \(device.deviceID): \(device.state)" + (device.held.map { ", \($0) held for its update token" } ?? "")
                         + (device.updateToken.map { ", update token \($0)" } ?? "") + (device.tokenRetired.map { ", token retired (\($0))" } ?? ""))
        }
        for push in view.pushes {
            lines.append("  push \(push.pushID) \(push.event) → \(push.deviceID.isEmpty ? "broadcast" : push.deviceID) \(push.target): "
                         + "\(push.queueState)" + (push.status.map { " \($0)" } ?? "") + (push.reason.map { " \($0)" } ?? "")
                         + " priority \(push.priority)" + (push.budget.map { " [\($0)]" } ?? ""))
        }
        for note in view.journal { lines.append("  · \(note.deviceID.map { $0 + ": " } ?? "")\(note.text)") }
        if !view.devicesWithoutToken.isEmpty {
            lines.append("  missing push-to-start tokens: " + view.devicesWithoutToken.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
