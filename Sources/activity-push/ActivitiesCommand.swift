import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push activities start|update|end|show|list|token` — the Live Activity lifecycle against the store
/// (`--database`, the same SQLite file or PostgreSQL database `serve` and `worker` use). Exit 0 on success,
/// 1 when the request was refused (findings, conflict, unknown activity), 2 on bad flags or a database error.
enum ActivitiesOptions {
    static let id = Option<String>("--id", valueName: "ACTIVITY", help: "the activity id (the idempotency key of a start)")
    static let device = Option<String>("--device", valueName: "ID", help: "a device id the app posted its tokens under",
                                       repeatable: true)
    static let state = Option<ActivityState>.choice("--state", ActivityState.all.map { (name: $0.rawValue, value: $0) },
                                                    help: "only activities in this state")
    static let limit = Option<Int>.integer("--limit", help: "activities to list (1…\(ActivityListLimit.maximum))",
                                           default: ActivityListLimit.defaultLimit)
    static let kind = Option<ActivityTokenKind>.choice("--kind", ActivityTokenKind.all.map { (name: $0.rawValue, value: $0) },
                                                       help: "which token: push-to-start (with --type) or update (with --id)")
    static let token = Option<String>("--token", valueName: "HEX", help: "the token as hex")
    static let tokenEnvironment = Option<String>("--token-env", valueName: "sandbox|production",
                                                 help: "push-to-start: the token's environment (default: --env)")
    static let pushToStartBudget = Option<Int>.integer(
        "--push-to-start-budget", help: "starts per push-to-start token per hour; more wait", default: 10)
    static let priority10Budget = Option<Int>.integer(
        "--priority-10-budget", help: "priority-10 updates per activity per hour; more go at priority 5", default: 60)
    static let format = Option<OutputFormat>.format([.text, .json], default: .text)
    static let channelID = Option<String>(
        "--channel-id", valueName: "ID",
        help: "broadcast the activity's updates and ends on this registered channel (`channels create`);\nthe starts to --device carry input-push-channel")
    static let deleteChannelOnEnd = Flag("--delete-channel-on-end",
                                         help: "with --channel-id: delete the channel once the end is sent (`channels sweep`)")

    /// What every subcommand takes: the store, the app, the budgets, the output.
    static let common = OptionGroup("store and app", [CommonOptions.database, CommonOptions.bundleID(),
                                                      CommonOptions.attributes, APNsConnectionOptions.environment,
                                                      pushToStartBudget, priority10Budget, format])
}

let activitiesCommand = Command(
    name: "activities",
    summary: "Live Activity lifecycle: start, update, end, show, list activities; post tokens (store-backed)",
    notes: """
    Starts go to each device's push-to-start token (posted with `token` or POST /v1/tokens); updates and ends
    to the activity's update token, held until the device posts it. Pushes are built by the one builder,
    checked by the validator (against --attributes when given) and queued for `activity-push worker`.
    """,
    subcommands: [
        Command(name: "start", summary: "start an activity on devices (idempotent on --id)",
                synopsis: ["--id ACTIVITY --device ID... --attributes-json J --content-state-json J --alert-title T --alert-body B [options]"],
                groups: [OptionGroup(ActivitiesOptions.id, ActivitiesOptions.device, BuildFlags.attributesType, BuildFlags.attributes,
                                     BuildFlags.contentState, BuildFlags.alertTitle, BuildFlags.alertBody, BuildFlags.staleDate,
                                     BuildFlags.relevanceScore, ActivitiesOptions.channelID, ActivitiesOptions.deleteChannelOnEnd),
                         ActivitiesOptions.common],
                run: { arguments in try await ActivitiesCommandSupport.run("start", arguments) }),
        Command(name: "update", summary: "update an activity (held for devices without an update token)",
                synopsis: ["--id ACTIVITY --content-state-json J [options]"],
                groups: [OptionGroup(ActivitiesOptions.id, BuildFlags.contentState, BuildFlags.alertTitle, BuildFlags.alertBody,
                                     BuildFlags.staleDate, BuildFlags.priority), ActivitiesOptions.common],
                run: { arguments in try await ActivitiesCommandSupport.run("update", arguments) }),
        Command(name: "end", summary: "end an activity",
                synopsis: ["--id ACTIVITY --content-state-json J [options]"],
                groups: [OptionGroup(ActivitiesOptions.id, BuildFlags.contentState, BuildFlags.alertTitle, BuildFlags.alertBody,
                                     BuildFlags.staleDate, BuildFlags.dismissalDate, BuildFlags.priority), ActivitiesOptions.common],
                run: { arguments in try await ActivitiesCommandSupport.run("end", arguments) }),
        Command(name: "show", summary: "one activity: devices, pushes with their APNs answer, journal",
                synopsis: ["--id ACTIVITY [options]"],
                groups: [OptionGroup(ActivitiesOptions.id), ActivitiesOptions.common],
                run: { arguments in try await ActivitiesCommandSupport.run("show", arguments) }),
        Command(name: "list", summary: "activities, newest first",
                groups: [OptionGroup(ActivitiesOptions.state, ActivitiesOptions.limit), ActivitiesOptions.common],
                run: { arguments in try await ActivitiesCommandSupport.run("list", arguments) }),
        Command(name: "token", summary: "store a token as the app would post it to /v1/tokens",
                synopsis: ["--kind push-to-start --device ID --type NAME --token HEX [options]",
                           "--kind update --device ID --id ACTIVITY --token HEX [options]"],
                groups: [OptionGroup(ActivitiesOptions.kind, ActivitiesOptions.device, BuildFlags.attributesType, ActivitiesOptions.id,
                                     ActivitiesOptions.token, ActivitiesOptions.tokenEnvironment), ActivitiesOptions.common],
                run: { arguments in try await ActivitiesCommandSupport.run("token", arguments) }),
    ]
)

enum ActivitiesCommandSupport {
    /// `--push-to-start-budget`, `--priority-10-budget` (serve and `activities`).
    static func budgets(_ arguments: ParsedArguments) throws -> ActivityBudgets {
        let starts = try arguments.defaultedValue(ActivitiesOptions.pushToStartBudget)
        let updates = try arguments.defaultedValue(ActivitiesOptions.priority10Budget)
        guard starts > 0 else { throw UsageError(.badValue, option: "--push-to-start-budget", "--push-to-start-budget must be at least 1") }
        guard updates >= 0 else { throw UsageError(.badValue, option: "--priority-10-budget", "--priority-10-budget must be 0 or more") }
        return ActivityBudgets(pushToStartPerHour: starts, priority10UpdatesPerHour: updates)
    }

    static func service(_ outbox: Outbox, bundleID: String, environment: APNsEnvironment, schema: ActivitySchema?,
                        budgets: ActivityBudgets) throws -> LiveActivityService {
        do {
            return try LiveActivityService(outbox: outbox, bundleID: bundleID, environment: environment, schema: schema, budgets: budgets)
        } catch {
            throw UsageError(refused: error, option: "--database", prefix: "--database")
        }
    }

    @Sendable static func run(_ sub: String, _ arguments: ParsedArguments) async throws -> Int32 {
        try arguments.expectNoPositionals()
        // show and list build nothing; the others warn as `build` does.
        let bundleID = ["show", "list"].contains(sub) ? (try arguments.value(CommonOptions.bundleID()) ?? CommonOptions.placeholderBundleID)
            : try CommonOptions.bundleIDOrPlaceholder(arguments, command: "activities \(sub)")
        let schema = try CommonOptions.schema(arguments)
        let environment = try arguments.defaultedValue(APNsConnectionOptions.environment)
        let format = try arguments.defaultedValue(ActivitiesOptions.format)
        let budgets = try budgets(arguments)
        let outbox: Outbox
        do { outbox = try Outbox.open(database: try arguments.value(CommonOptions.database)) } catch { throw UsageError(refused: error, option: "--database", prefix: "--database") }
        defer { outbox.store.close() }
        let service = try service(outbox, bundleID: bundleID, environment: environment, schema: schema, budgets: budgets)
        func required<Value>(_ option: Option<Value>) throws -> Value {
            guard let value = try arguments.value(option) else { throw UsageError(.missingOption, option: option.spec.name, "\(option.spec.name) is required for `activities \(sub)`") }
            return value
        }
        do {
            let output: JSONValue
            let text: String
            switch sub {
            case "token":
                let kind = try required(ActivitiesOptions.kind)
                var type = try arguments.value(BuildFlags.attributesType)
                if kind == .pushToStart, type == nil {
                    // As the help says: the one ActivityAttributes type of --attributes.
                    guard let schema, schema.types.count == 1 else {
                        let known = schema.map { " (--attributes declares \($0.types.map(\.name).joined(separator: ", ")))" } ?? ""
                        throw UsageError(.missingOption, option: BuildFlags.attributesType.spec.name,
                                         "\(BuildFlags.attributesType.spec.name) NAME is required for --kind push-to-start\(known): "
                                         + "the ActivityAttributes type the token starts, or give --attributes declaring one type")
                    }
                    type = schema.types[0].name
                }
                let registration = ActivityTokenRegistration(
                    kind: kind, deviceID: try arguments.values(ActivitiesOptions.device).last ?? "",
                    attributesType: type, activityID: try arguments.value(ActivitiesOptions.id),
                    token: try required(ActivitiesOptions.token), environment: try arguments.value(ActivitiesOptions.tokenEnvironment))
                let receipt = try service.register(registration)
                output = receipt.json
                text = "\(receipt.kind) token \(receipt.token) for \(receipt.deviceID) stored"
                    + (receipt.retired.map { "; retired by APNs earlier (\($0))" } ?? "")
                    + (receipt.released > 0 ? "; released \(receipt.released) held push(es)" : "")
            case "list":
                let summaries = try service.list(state: try arguments.value(ActivitiesOptions.state),
                                                 limit: try arguments.defaultedValue(ActivitiesOptions.limit))
                output = .obj([("activities", .arr(summaries.map(\.summaryJSON)))])
                text = summaries.isEmpty ? "no activities" : summaries.map {
                    "\($0.activityID)  \($0.state)  \($0.attributesType)  \($0.devices.count) device(s)  \($0.pushCount) push(es)"
                }.joined(separator: "\n")
            case "show":
                let view = try service.show(activityID: try required(ActivitiesOptions.id))
                output = view.json
                text = describe(view)
            case "start":
                var start = ActivityStartRequest(activityID: try required(ActivitiesOptions.id))
                start.attributesType = try arguments.value(BuildFlags.attributesType)
                start.attributes = try arguments.value(BuildFlags.attributes)
                start.contentState = try arguments.value(BuildFlags.contentState)
                start.alertTitle = try arguments.value(BuildFlags.alertTitle)
                start.alertBody = try arguments.value(BuildFlags.alertBody)
                start.staleDateUnixSeconds = try arguments.value(BuildFlags.staleDate)
                start.relevanceScore = try arguments.value(BuildFlags.relevanceScore)
                start.deviceIDs = try arguments.values(ActivitiesOptions.device)
                var channels: BroadcastChannels?
                if let channelID = try arguments.value(ActivitiesOptions.channelID) {
                    // A registered channel: nothing to ask Apple, so no credentials here.
                    start.channel = true
                    start.channelID = channelID
                    start.deleteChannelOnEnd = arguments.isSet(ActivitiesOptions.deleteChannelOnEnd)
                    do { channels = BroadcastChannels(registry: try ChannelRegistry(store: outbox.store), client: nil, environment: environment) } catch {
                        throw UsageError(refused: error, option: "--database", prefix: "--database")
                    }
                } else if arguments.isSet(ActivitiesOptions.deleteChannelOnEnd) {
                    throw UsageError(.conflictingOptions, option: "--delete-channel-on-end", "--delete-channel-on-end needs --channel-id ID")
                }
                let (view, created) = try await service.start(start, channels: channels)
                output = view.json
                text = (created ? "started" : "already started (nothing sent)") + "\n" + describe(view)
            default:
                var change = ActivityChangeRequest(contentState: try arguments.value(BuildFlags.contentState))
                change.alertTitle = try arguments.value(BuildFlags.alertTitle)
                change.alertBody = try arguments.value(BuildFlags.alertBody)
                change.staleDateUnixSeconds = try arguments.value(BuildFlags.staleDate)
                change.priority = try arguments.value(BuildFlags.priority)
                let id = try required(ActivitiesOptions.id)
                let view: ActivityView
                if sub == "end" {
                    change.dismissalDateUnixSeconds = try arguments.value(BuildFlags.dismissalDate)
                    view = try service.end(activityID: id, change)
                } else {
                    view = try service.update(activityID: id, change)
                }
                output = view.json
                text = describe(view)
            }
            print(format == .json ? JSONWriter.pretty(output) : text)
            return 0
        } catch var error as ActivityError {
            error = flagged(error)
            if format == .json {
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

    /// The command-line flag for a request field the service names (`attributesType` → `--type`), nil when none.
    static func flag(forField field: String) -> String? {
        let bare = String(field.prefix(while: { $0 != "[" && $0 != "." }))
        switch bare {
        case "type", "attributesType": return BuildFlags.attributesType.spec.name
        case "deviceID", "deviceIDs": return ActivitiesOptions.device.spec.name
        case "activityID": return ActivitiesOptions.id.spec.name
        case "token": return ActivitiesOptions.token.spec.name
        case "environment": return ActivitiesOptions.tokenEnvironment.spec.name
        case "kind": return ActivitiesOptions.kind.spec.name
        case "channelID": return ActivitiesOptions.channelID.spec.name
        default: return LiveActivityPush.Field.allCases.first(where: { $0.jsonKey == field || $0.jsonKey == bare })?.flag
        }
    }

    /// The service's error as the CLI says it: the flag instead of the JSON field, in the message and the fix.
    static func flagged(_ error: ActivityError) -> ActivityError {
        guard let field = error.field, let flag = flag(forField: field) else { return error }
        var flagged = error
        let bare = String(field.prefix(while: { $0 != "[" && $0 != "." }))
        if flagged.message.hasPrefix(field + ":") { flagged.message = flag + flagged.message.dropFirst(field.count) }
        flagged.fix = flagged.fix.map {
            $0.replacingOccurrences(of: "\"\(bare)\": ", with: "\(flag) ").replacingOccurrences(of: "\"\(bare)\"", with: flag)
        }
        flagged.field = flag
        flagged.findings = flagged.findings.map { finding in
            var named = finding
            if named.path == field { named.path = flag }
            return named
        }
        return flagged
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
