import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push channels create|list|delete|sweep` — iOS 18 broadcast channels on Apple's channel-management
/// API, kept in the registry in the queue's store. Exit 0 done, 1 refused (Apple, the 10 000-channel limit,
/// unknown channel), 2 could not start (flags, key, database). `delete` of a channel the registry already has as
/// deleted exits 0 and says "already deleted" (nothing is sent to Apple), so a script can repeat it.
let channelsCommand = Command(
    name: "channels",
    summary: "create, list and delete broadcast channels (Apple's channel management + the registry in the queue's store)",
    notes: """
    The registry lives in the queue's store (--database). Apple allows 10 000 channels per app per environment;
    the registry refuses the next one before calling Apple. Channels exist per environment (--env).
    A channel gets its activity when the activity starts on it (activities start --channel-id ID), not at create.
    delete of an already deleted channel says so and exits 0 (nothing sent to Apple); an id that is not base64 is
    refused before Apple is called.
    exit: 0 done, 1 refused (by Apple, the limit, an unknown channel, an id that is not base64), 2 could not start
    """,
    subcommands: [
        Command(name: "create", summary: "create a channel at Apple and register it (prints the new id)",
                synopsis: ["--bundle-id ID --storage-policy 0|1 [options]"],
                groups: [OptionGroup(CommonOptions.database, CommonOptions.bundleID(), ChannelsCLI.storagePolicy,
                                     ChannelsCLI.activityID, ChannelsCLI.format),
                         APNsConnectionOptions.group],
                run: { arguments in try await ChannelsCLI.run(.create, arguments) }),
        Command(name: "list", summary: "the registry's channels; --apple puts Apple's all-channels beside them",
                synopsis: ["--bundle-id ID [--apple] [--all] [options]"],
                groups: [OptionGroup(CommonOptions.database, CommonOptions.bundleID(), ChannelsCLI.apple, ChannelsCLI.all,
                                     ChannelsCLI.format),
                         APNsConnectionOptions.group],
                run: { arguments in try await ChannelsCLI.run(.list, arguments) }),
        Command(name: "delete", summary: "delete a channel at Apple (irreversible) and mark it deleted in the registry",
                synopsis: ["CHANNEL_ID [--bundle-id ID] [options]"],
                groups: [OptionGroup(CommonOptions.database, CommonOptions.bundleID(), ChannelsCLI.format),
                         APNsConnectionOptions.group],
                run: { arguments in try await ChannelsCLI.run(.delete, arguments) }),
        Command(name: "sweep", summary: "delete the channels of ended \"deleteChannelOnEnd\" activities whose end is sent",
                groups: [OptionGroup(CommonOptions.database, ChannelsCLI.format), APNsConnectionOptions.group],
                run: { arguments in try await ChannelsCLI.run(.sweep, arguments) }),
    ]
)

/// The options and the one run of `channels`.
enum ChannelsCLI {
    enum Action: String { case create, list, delete, sweep }

    static let storagePolicy = Option<Int>.integer(
        "--storage-policy",
        help: "fixed at creation: 0 = No Message Stored (a higher publishing budget; every broadcast needs\n"
            + "apns-expiration 0), 1 = Most Recent Message Stored (Apple keeps the last broadcast up to 8 hours)")
    /// Refused (issue 11, U7): a link made at create could name no activity, or one on devices, and would then move
    /// silently; the link is made when an activity starts on the channel. Kept so the refusal names the fix.
    static let activityID = Option<String>("--activity-id", valueName: "ID",
                                           help: "not accepted: an activity takes the channel when it starts on it\n"
                                               + "(activities start --channel-id ID), or gets its own (--channel)")
    static let apple = Flag("--apple", help: "also read Apple's all-channels: both · registry-only (Apple no longer has it) ·\n"
                                            + "apple-only (made by another tool) · registered (Apple not asked) · deleted (--all)")
    static let all = Flag("--all", help: "include channels deleted through the registry")
    static let format = Option<OutputFormat>.format([.text, .json], default: .text)

    static func run(_ action: Action, _ arguments: ParsedArguments) async throws -> Int32 {
        let connection = try APNsConnectionOptions(arguments)
        let bundleID = action == .sweep ? nil : try arguments.value(CommonOptions.bundleID())
        let json = try arguments.value(format) == .json
        var policy: MessageStoragePolicy?
        var channelID: String?
        switch action {
        case .create:
            guard bundleID != nil else { throw UsageError(.missingOption, option: "--bundle-id", "create needs --bundle-id ID (the app the channel belongs to)") }
            guard let number = try arguments.value(storagePolicy) else {
                throw UsageError(.missingOption, option: "--storage-policy", "create needs --storage-policy 0|1: 0 = No Message Stored (higher publishing budget), "
                                 + "1 = Most Recent Message Stored (the last broadcast kept up to 8 hours); Apple cannot change it later")
            }
            guard number == 0 || number == 1 else {
                throw UsageError(.badValue, option: "--storage-policy", "--storage-policy must be 0 (No Message Stored) or 1 (Most Recent Message Stored), got '\(number)'")
            }
            policy = MessageStoragePolicy(rawValue: number)
        case .list:
            guard bundleID != nil else { throw UsageError(.missingOption, option: "--bundle-id", "list needs --bundle-id ID") }
        case .delete:
            guard arguments.positionals.count == 1 else { throw UsageError(.badArguments, "delete takes one CHANNEL_ID (base64, as `channels list` prints it)") }
            channelID = arguments.positionals[0]
        case .sweep:
            break
        }
        if action != .delete, let extra = arguments.positionals.first { throw UsageError(.badArguments, "\(action.rawValue) takes no positional argument, got '\(extra)'") }
        let askApple = action == .list && arguments.isSet(apple)
        let includeDeleted = action == .list && arguments.isSet(all)
        if action == .create, let activity = try arguments.value(activityID) {
            throw UsageError(.conflictingOptions, option: "--activity-id",
                             "--activity-id \(activity): a channel is linked to its activity when the activity starts on it, not at create",
                             fix: "create the channel without --activity-id, then start the activity with "
                                 + "`activities start --id \(activity) --channel-id CHANNEL_ID` (or --channel to create one for it)")
        }
        let callsApple = action != .list || askApple
        let token = callsApple ? try connection.providerToken() : try connection.optionalProviderToken()
        if let warning = token?.keyFileWarning { printError("activity-push channels: warning: \(warning)") }
        let outbox: Outbox
        do { outbox = try Outbox.open(database: arguments.value(CommonOptions.database)) } catch { throw UsageError(refused: error, option: "--database", prefix: "--database") }
        defer { outbox.store.close() }
        let registry: ChannelRegistry
        do { registry = try ChannelRegistry(store: outbox.store) } catch { throw UsageError(refused: error, option: "--database") }
        let client = try token.map {
            try APNsClient(environment: connection.environment, token: $0, transport: HTTP2TransportConfiguration(caFile: connection.caFile))
        }
        let channels = BroadcastChannels(registry: registry, client: client, environment: connection.namedEnvironment)
        let outcome: Result<JSONValue, ChannelError>
        var alreadyDeleted: BroadcastChannel?
        do throws(ChannelError) {
            switch action {
            case .create:
                outcome = .success(try await channels.create(bundleID: bundleID!, storagePolicy: policy!).json)
            case .list:
                outcome = .success(try await channels.list(bundleID: bundleID!, askApple: askApple,
                                                           includeDeleted: includeDeleted).json)
            case .delete:
                try BroadcastChannel.checkID(channelID!)
                if let earlier = try registry.channel(id: channelID!, environment: channels.environment), !earlier.isLive {
                    alreadyDeleted = earlier
                    outcome = .success(earlier.json)
                } else {
                    let gone = try await channels.delete(channelID: channelID!, bundleID: bundleID)
                    outcome = .success(gone?.json ?? .obj([("channelID", .string(channelID!)), ("deleted", .bool(true)), ("registry", .null)]))
                }
            case .sweep:
                outcome = .success(.obj([("deleted", .arr(await channels.deleteChannelsOfEndedActivities().map(JSONValue.string)))]))
            }
        } catch {
            outcome = .failure(error)
        }
        await client?.shutdown()
        switch outcome {
        case .failure(let error):
            if json {
                print(JSONWriter.compact(.obj([("error", .obj([("kind", .string(error.kind.rawValue)), ("message", .string(error.description)),
                                                               ("fix", error.fix.map { .string($0) } ?? .null)]))])))
            }
            printError("activity-push channels \(action.rawValue): \(error.description)" + (error.fix.map { "\n    fix: \($0)" } ?? ""))
            return error.kind == .store ? 2 : 1
        case .success(let value):
            if let alreadyDeleted {
                let when = Date(timeIntervalSince1970: alreadyDeleted.deletedUnixSeconds ?? 0).ISO8601Format()
                if json { print(JSONWriter.compact(value)) } else { print("already deleted \(alreadyDeleted.channelID)") }
                printError("activity-push channels delete: channel \(alreadyDeleted.channelID) was already deleted at \(when) "
                           + "(registry, \(alreadyDeleted.environment)); nothing was sent to Apple")
                return 0
            }
            if json { print(JSONWriter.compact(value)) } else {
                printText(value, action: action, askApple: askApple)
            }
            return 0
        }
    }

    /// Text output: `create` prints the new channel id alone on the first line (for scripts), then details;
    /// `list` one channel a line; `delete` one line.
    private static func printText(_ value: JSONValue, action: Action, askApple: Bool) {
        func text(_ node: JSONValue?, _ key: String) -> String {
            guard let found = node?.members?.first(where: { $0.key == key })?.value.value else { return "" }
            switch found {
            case .string(let string): return string
            case .number(let number): return number.lexeme
            case .bool(let flag): return flag ? "yes" : "no"
            default: return "-"
            }
        }
        switch action {
        case .create:
            print(text(value, "channelID"))
            printError("created in \(text(value, "environment")) for \(text(value, "bundleID")): storage policy "
                       + "\(text(value, "storagePolicy")) (\(text(value, "storagePolicyName")))")
        case .list:
            guard case .array(let nodes)? = value.members?.first(where: { $0.key == "channels" })?.value.value else { return }
            let entries = nodes.map(\.value)
            printError("\(entries.count) channel(s) of \(text(value, "bundleID")) in \(text(value, "environment"))"
                       + (askApple ? " (registry and Apple's all-channels)" : " (registry; --apple also asks Apple)"))
            for entry in entries {
                let registry = entry.members?.first(where: { $0.key == "registry" })?.value.value
                let policy = registry.map { text($0, "storagePolicy") } ?? ""
                let activity = registry.map { text($0, "activityID") } ?? ""
                print([text(entry, "channelID"), text(entry, "presence"), policy.isEmpty ? "-" : "policy " + policy,
                       activity.isEmpty || activity == "-" ? "-" : "activity " + activity].joined(separator: "  "))
            }
        case .sweep:
            guard case .array(let nodes)? = value.members?.first(where: { $0.key == "deleted" })?.value.value else { return }
            for node in nodes { print("deleted \(node.value.stringValue ?? "")") }
            printError("\(nodes.count) channel(s) of ended activities deleted")
        default:
            print("deleted \(text(value, "channelID"))")
        }
    }
}
