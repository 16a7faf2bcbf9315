import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push channels create|list|delete` — iOS 18 broadcast channels on Apple's channel-management API,
/// kept in the registry in the queue's store. Exit 0 done, 1 refused (Apple, the 10 000-channel limit, unknown
/// channel), 2 could not start (flags, key, database).
let channelsCommand = Command(
    name: "channels",
    summary: "create, list and delete broadcast channels (Apple's channel management + the registry in the queue's store)"
) { argv in
    guard let action = argv.first, !["--help", "-h", "help"].contains(action) else {
        print(ChannelsCommandOptions.help)
        return argv.isEmpty ? 2 : 0
    }
    guard ["create", "list", "delete", "sweep"].contains(action) else {
        throw UsageError("unknown action '\(action)'; use channels create|list|delete|sweep (channels --help)")
    }
    if argv.contains("--help") || argv.contains("-h") {
        print(ChannelsCommandOptions.help)
        return 0
    }
    var a = try Arguments(Array(argv.dropFirst()), booleanFlags: ["--apple", "--all"])
    let options = try ChannelsCommandOptions.read(&a, action: action)
    return try options.run()
}

/// The flags of `channels`, read and checked before anything is sent.
struct ChannelsCommandOptions {
    static let help = """
        usage: activity-push channels create --bundle-id ID --storage-policy 0|1 [--activity-id ID] [credentials]
               activity-push channels list   --bundle-id ID [--apple [credentials]] [--all]
               activity-push channels delete CHANNEL_ID [--bundle-id ID] [credentials]
               activity-push channels sweep  [credentials]   delete the channels of ended activities started with
                                             "deleteChannelOnEnd" whose end broadcast is sent (serve does it after each end)
          common: [--env sandbox|production] [--database DB] [--format text|json]
          --storage-policy 0|1   fixed at creation (Apple, "Sending channel management requests to APNs"):
                                 0 = No Message Stored: a higher publishing budget, every broadcast needs apns-expiration 0;
                                 1 = Most Recent Message Stored: Apple keeps the last broadcast up to 8 hours for devices
                                     that start listening late
          --activity-id ID       the activity the channel serves (stored in the registry)
          --apple                list: also read Apple's GET /1/apps/ID/all-channels and put it beside the registry:
                                 both · registry-only (Apple no longer has it) · apple-only (made by another tool) ·
                                 registered (Apple not asked) · deleted (--all)
          --all                  list: include channels deleted through the registry
          --database DB          the queue's store, where the registry lives (postgres://… or a SQLite file; as for `queue`)
          --env NAME             the environment (default sandbox); channels exist per environment
        credentials (create, delete, list --apple), as for send and worker:
          --auth-key PATH        Apple's .p8 key; Key ID from AuthKey_<KeyID>.p8 or --key-id (or env ACTIVITY_PUSH_AUTH_KEY)
          --team-id ID           your Team ID
          --url URL              channel management on this server instead (mock-apns), with --ca-file PEM
        Apple allows 10 000 channels per app per environment; the registry refuses the next one before calling Apple.
        exit: 0 done, 1 refused (by Apple, the limit, an unknown channel), 2 could not start
        """

    var action: String
    var channelID: String?
    var bundleID: String?
    var storagePolicy: MessageStoragePolicy?
    var activityID: String?
    var askApple: Bool
    var includeDeleted: Bool
    var database: String?
    var environmentName: String
    var environment: APNsEnvironment
    var caFile: String?
    var credentials: (keyPath: String, keyID: String, teamID: String)?
    var json: Bool

    static func read(_ a: inout Arguments, action: String) throws -> ChannelsCommandOptions {
        let environmentName = a.value("--env") ?? "sandbox"
        guard var environment = APNsEnvironment.named(environmentName) else {
            throw UsageError("--env must be sandbox or production, got '\(environmentName)'")
        }
        if let url = try a.serverURL() { environment = .custom(url) }
        let caFile = a.value("--ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw UsageError("\(caFile): cannot read the CA file") }
        var options = ChannelsCommandOptions(
            action: action, bundleID: a.value("--bundle-id"), activityID: a.value("--activity-id"),
            askApple: a.flag("--apple"), includeDeleted: a.flag("--all"), database: a.value("--database"),
            environmentName: environmentName, environment: environment, caFile: caFile, json: false)
        if let policy = a.value("--storage-policy") {
            guard policy == "0" || policy == "1", let number = Int(policy) else {
                throw UsageError("--storage-policy must be 0 (No Message Stored) or 1 (Most Recent Message Stored), got '\(policy)'")
            }
            options.storagePolicy = MessageStoragePolicy(rawValue: number)
        }
        let format = a.value("--format") ?? "text"
        guard format == "text" || format == "json" else { throw UsageError("--format must be text or json") }
        options.json = format == "json"
        let keyPath = a.value("--auth-key", environment: "ACTIVITY_PUSH_AUTH_KEY")
        var keyID = a.value("--key-id")
        let teamID = a.value("--team-id")
        try a.finish()
        switch action {
        case "create":
            guard options.bundleID != nil else { throw UsageError("create needs --bundle-id ID (the app the channel belongs to)") }
            guard options.storagePolicy != nil else {
                throw UsageError("create needs --storage-policy 0|1: 0 = No Message Stored (higher publishing budget), "
                                 + "1 = Most Recent Message Stored (the last broadcast kept up to 8 hours); Apple cannot change it later")
            }
            guard a.positionals.isEmpty else { throw UsageError("create takes no positional argument, got '\(a.positionals[0])'") }
        case "sweep":
            guard a.positionals.isEmpty else { throw UsageError("sweep takes no positional argument, got '\(a.positionals[0])'") }
        case "list":
            guard options.bundleID != nil else { throw UsageError("list needs --bundle-id ID") }
            guard a.positionals.isEmpty else { throw UsageError("list takes no positional argument, got '\(a.positionals[0])'") }
        default:
            guard a.positionals.count == 1 else { throw UsageError("delete takes one CHANNEL_ID (base64, as `channels list` prints it)") }
            options.channelID = a.positionals[0]
        }
        let needsApple = action != "list" || options.askApple
        if let keyPath {
            let fileName = (keyPath as NSString).lastPathComponent
            if keyID == nil, fileName.hasPrefix("AuthKey_"), fileName.hasSuffix(".p8") { keyID = String(fileName.dropFirst(8).dropLast(3)) }
            guard let keyID else { throw UsageError("--key-id is required when the key file is not named AuthKey_<KeyID>.p8") }
            guard let teamID else { throw UsageError("--team-id is required with --auth-key (10 characters, Membership details)") }
            options.credentials = (keyPath, keyID, teamID)
        } else if needsApple {
            throw UsageError("channels \(action)\(action == "list" ? " --apple" : "") calls Apple: give --auth-key AuthKey_KEYID.p8 "
                             + "--team-id TEAMID (or env ACTIVITY_PUSH_AUTH_KEY)")
        }
        return options
    }

    func run() throws -> Int32 {
        let outbox: Outbox
        do { outbox = try Outbox.open(database: database) } catch { throw UsageError("--database: \(error)") }
        defer { outbox.store.close() }
        let registry: ChannelRegistry
        do { registry = try ChannelRegistry(store: outbox.store) } catch { throw UsageError("\(error)") }
        var client: APNsClient?
        if let credentials {
            let token: ProviderToken
            do { token = try ProviderToken(keyFile: credentials.keyPath, keyID: credentials.keyID, teamID: credentials.teamID) } catch {
                throw UsageError("\(error)")
            }
            if let warning = token.keyFileWarning { printError("activity-push channels: warning: \(warning)") }
            client = try APNsClient(environment: environment, token: token, transport: HTTP2TransportConfiguration(caFile: caFile))
        }
        let channels = BroadcastChannels(registry: registry, client: client, environment: environmentName)
        let options = self
        let apnsClient = client
        let outcome: Result<JSONValue, ChannelError> = blockingAwait {
            let result = await Self.perform(options, on: channels)
            await apnsClient?.shutdown()
            return result
        }
        switch outcome {
        case .failure(let error):
            if json {
                print(JSONWriter.compact(.obj([("error", .obj([("kind", .string(error.kind.rawValue)), ("message", .string(error.description)),
                                                               ("fix", error.fix.map { .string($0) } ?? .null)]))])))
            }
            printError("activity-push channels \(action): \(error.description)" + (error.fix.map { "\n    fix: \($0)" } ?? ""))
            return error.kind == .store ? 2 : 1
        case .success(let value):
            if json { print(JSONWriter.compact(value)) } else { printText(value) }
            return 0
        }
    }

    private static func perform(_ options: ChannelsCommandOptions, on channels: BroadcastChannels) async -> Result<JSONValue, ChannelError> {
        do throws(ChannelError) {
            switch options.action {
            case "create":
                let made = try await channels.create(bundleID: options.bundleID!, storagePolicy: options.storagePolicy!,
                                                     activityID: options.activityID)
                return .success(made.json)
            case "sweep":
                let deleted = await channels.deleteChannelsOfEndedActivities()
                return .success(.obj([("deleted", .arr(deleted.map(JSONValue.string)))]))
            case "list":
                let listing = try await channels.list(bundleID: options.bundleID!, askApple: options.askApple,
                                                      includeDeleted: options.includeDeleted)
                return .success(listing.json)
            default:
                let gone = try await channels.delete(channelID: options.channelID!, bundleID: options.bundleID)
                return .success(gone?.json ?? .obj([("channelID", .string(options.channelID!)), ("deleted", .bool(true)),
                                                     ("registry", .null)]))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Text output: `create` prints the new channel id alone on the first line (for scripts), then details;
    /// `list` one channel a line; `delete` one line.
    private func printText(_ value: JSONValue) {
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
        case "create":
            print(text(value, "channelID"))
            printError("created in \(text(value, "environment")) for \(text(value, "bundleID")): storage policy "
                       + "\(text(value, "storagePolicy")) (\(text(value, "storagePolicyName")))"
                       + (activityID.map { ", activity \($0)" } ?? ""))
        case "list":
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
        case "sweep":
            guard case .array(let nodes)? = value.members?.first(where: { $0.key == "deleted" })?.value.value else { return }
            for node in nodes { print("deleted \(node.value.stringValue ?? "")") }
            printError("\(nodes.count) channel(s) of ended activities deleted")
        default:
            print("deleted \(channelID ?? "")")
        }
    }
}
