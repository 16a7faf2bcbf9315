import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push queue enqueue|status|dead|purge|journal` — the durable outbox (SQLite file by default,
/// PostgreSQL with `--database postgres://…`). Exit 0 on success, 1 when a push was refused by the validator,
/// 2 on bad flags or a database that cannot be opened.
let queueCommand = Command(
    name: "queue",
    summary: "durable push queue: enqueue, status, dead letters, purge, journal (SQLite or PostgreSQL)",
    notes: "--database DB everywhere: postgres://… for PostgreSQL, a file path (or sqlite:PATH) for SQLite",
    subcommands: [
        Command(name: "enqueue", summary: "check a push and queue it for one or many tokens (or a broadcast)",
                synopsis: ["--bundle-id ID (--token HEX ... | --tokens-file FILE)",
                           "(PAYLOAD.json [--headers HEADERS.json] | --event … [build flags]) [options]"],
                groups: [OptionGroup(CommonOptions.database, CommonOptions.bundleID(), CommonOptions.attributes,
                                     CommonOptions.headers, APNsConnectionOptions.environment, CommonOptions.credential,
                                     QueueCLI.notBefore, QueueCLI.format),
                         DeviceTokenFlags.group, BuildFlags.group],
                notes: """
                The push is checked by the validator first and refused (exit 1) with its findings; nothing is stored then.
                Every push gets its apns-id now; retries resend the same bytes with the same apns-id.
                A worker started with the same --env and --credential sends it.
                """,
                run: QueueCLI.enqueue),
        Command(name: "status", summary: "counts by state, what is due, dead letters by reason",
                groups: [OptionGroup(CommonOptions.database, QueueCLI.format)], run: QueueCLI.status),
        Command(name: "dead", summary: "list dead letters, or put them back with --retry",
                groups: [OptionGroup(CommonOptions.database, QueueCLI.deadLimit, QueueCLI.retry, QueueCLI.pushID,
                                     QueueCLI.format)],
                run: QueueCLI.dead),
        Command(name: "purge", summary: "delete dead letters and their journal rows (--dead)",
                groups: [OptionGroup(CommonOptions.database, QueueCLI.purgeDead, QueueCLI.format)], run: QueueCLI.purge),
        Command(name: "journal", summary: "every attempt: time, outcome, status, reason, apns-id, latency",
                groups: [OptionGroup(CommonOptions.database, QueueCLI.journalPushID, QueueCLI.journalLimit, QueueCLI.format)],
                run: QueueCLI.journal),
    ]
)

enum QueueCLI {
    static let format = Option<OutputFormat>.format([.text, .json], default: .text)
    static let notBefore = Option<Double>.decimal("--not-before", valueName: "UNIX", help: "do not send before this time (UNIX seconds)")
    static let deadLimit = Option<Int>.integer("--limit", help: "dead letters to list", default: 100)
    static let retry = Flag("--retry", help: "put dead letters back (all, or those given with --id); clears the inactive\n"
                                          + "mark of their tokens (use after the app registered the token again)")
    static let pushID = Option<Int64>("--id", valueName: "N", help: "with --retry: this dead letter only", repeatable: true) { text, flag in
        guard let id = Int64(text) else { throw UsageError(.badValue, option: flag, "\(flag) expects a push id, got '\(text)'") }
        return id
    }
    static let purgeDead = Flag("--dead", help: "purge the dead letters and their journal rows")
    static let journalPushID = Option<Int64>("--id", valueName: "N", help: "only this push's attempts") { text, flag in
        guard let id = Int64(text) else { throw UsageError(.badValue, option: flag, "\(flag) expects an integer, got '\(text)'") }
        return id
    }
    static let journalLimit = Option<Int>.integer("--limit", help: "rows to show", default: 1000)

    static func open(_ arguments: ParsedArguments) throws -> Outbox {
        do { return try Outbox.open(database: arguments.value(CommonOptions.database)) } catch { throw UsageError(refused: error) }
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }

    static func time(_ unixSeconds: Double?) -> String {
        guard let unixSeconds else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: unixSeconds))
    }

    // MARK: enqueue

    @Sendable static func enqueue(_ arguments: ParsedArguments) throws -> Int32 {
        guard let bundleID = try arguments.value(CommonOptions.bundleID()) else { throw UsageError(.missingOption, option: "--bundle-id", "--bundle-id is required") }
        let tokens = try DeviceTokenFlags.read(arguments)
        let schema = try CommonOptions.schema(arguments)
        let environment = try arguments.defaultedValue(APNsConnectionOptions.environment)
        let environmentName = environment.name
        let credential = try arguments.defaultedValue(CommonOptions.credential)
        let notBefore = try arguments.value(notBefore)
        let json = try arguments.value(format) == .json
        let headersPath = try arguments.value(CommonOptions.headers)
        let priority = try arguments.value(BuildFlags.priority)
        let channelID = try arguments.value(BuildFlags.channelID)
        let build = try BuildFlags.read(arguments)
        let databaseFlag = try arguments.value(CommonOptions.database)

        // 1. The push, checked by the validator (inside the builder or the stored-bytes initialiser).
        let files: ReportFormatter.Files
        let request: PushRequest
        do {
            if let build {
                guard arguments.positionals.isEmpty else { throw UsageError(.conflictingOptions, "give either PAYLOAD.json or --event with build flags, not both") }
                files = .init(payload: "<built payload>")
                let made = try build.push(bundleID: bundleID, schema: schema)
                do { request = try made.get().build(schema: schema) } catch { return refused(error, files: files, json: json) }
            } else {
                guard arguments.positionals.count == 1 else { throw UsageError(.badArguments, "give one PAYLOAD.json, or --event start|update|end with build flags") }
                let path = arguments.positionals[0]
                let body = try Inputs.bytes(path)
                var headers = APNsHeaders.liveActivity(bundleID: bundleID, broadcastChannelID: channelID,
                                                       priority: APNsPriority(rawValue: priority ?? 10))
                var positions: [String: SourcePosition] = [:]
                if let hp = headersPath { (headers, positions) = try Inputs.headers(hp) }
                files = .init(payload: path, headers: headersPath, headerPositions: positions)
                do { request = try PushRequest(bundleID: bundleID, storedHeaders: headers, body: body, schema: schema) }
                catch { return refused(error, files: files, json: json) }
            }
        }
        for warning in request.warnings where !json {
            printError("warning: \(warning.path): \(warning.message) [\(warning.code)]" + (warning.fix.map { "\n    fix: \($0)" } ?? ""))
        }
        if case .device = request.destination, tokens.isEmpty {
            throw UsageError(.missingOption, "give --token HEX or --tokens-file FILE (or --channel-id for a broadcast)")
        }
        if case .broadcast = request.destination, !tokens.isEmpty { throw UsageError(.conflictingOptions, "a broadcast (--channel-id) takes no --token") }

        // 2. Store, one push per token, in one transaction.
        let outbox: Outbox
        do { outbox = try Outbox.open(database: databaseFlag) } catch { throw UsageError(refused: error) }
        let ids: [Int64]
        do {
            ids = try outbox.enqueue(request, to: tokens, environment: environment, credential: credential, notBeforeUnixSeconds: notBefore)
        } catch { throw UsageError(refused: error) }
        let location = outbox.store.location
        outbox.store.close()
        if json {
            struct Out: Encodable { var queued: Int; var ids: [Int64]; var database: String; var environment: String; var credential: String; var event: String }
            print(Self.json(Out(queued: ids.count, ids: ids, database: location, environment: environmentName, credential: credential,
                                event: request.event.rawValue)))
        } else {
            let range = ids.count == 1 ? "id \(ids[0])" : "ids \(ids.first ?? 0)…\(ids.last ?? 0)"
            print("queued \(ids.count) \(request.event) push\(ids.count == 1 ? "" : "es") (\(range)) in \(location) for \(environmentName), credential \(credential)")
        }
        return 0
    }

    private static func refused(_ error: PushBuildError, files: ReportFormatter.Files, json: Bool) -> Int32 {
        let report = ValidationReport(findings: error.findings)
        if json { printError(ReportFormatter.json(report, pretty: false)) }
        else { FileHandle.standardError.write(Data(ReportFormatter.text(report, files: files).utf8)) }
        printError("activity-push queue enqueue: refused — fix the errors above; nothing was queued")
        return 1
    }

    // MARK: status

    @Sendable static func status(_ arguments: ParsedArguments) throws -> Int32 {
        let json = try arguments.value(format) == .json
        let outbox = try open(arguments)
        defer { outbox.store.close() }
        let now = Date().timeIntervalSince1970
        let status: QueueStatus
        do { status = try outbox.store.status(nowUnixSeconds: now) } catch { throw UsageError(refused: error) }
        if json {
            struct Out: Encodable { var database: String; var status: QueueStatus }
            print(Self.json(Out(database: outbox.store.location, status: status)))
            return 0
        }
        print("queue \(outbox.store.location)")
        for state in PushState.all {
            var line = "  " + state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) + String(status.counts[state.rawValue] ?? 0)
            if state == .pending {
                line += "   (due now \(status.due)" + (status.oldestDueUnixSeconds.map { ", oldest due since \(time($0))" } ?? "")
                line += (status.nextRetryUnixSeconds.map { "; next retry \(time($0))" } ?? "") + ")"
            }
            print(line)
        }
        if !status.deadByReason.isEmpty {
            print("dead letters by reason:")
            for (reason, count) in status.deadByReason.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) { print("  \(reason)  \(count)") }
        }
        print("inactive tokens (410): \(status.inactiveTokens)   journal rows: \(status.attempts)")
        return 0
    }

    // MARK: dead

    @Sendable static func dead(_ arguments: ParsedArguments) throws -> Int32 {
        let json = try arguments.value(format) == .json
        let limit = try arguments.defaultedValue(deadLimit)
        let retry = arguments.isSet(Self.retry)
        let ids = try arguments.values(pushID)
        if !ids.isEmpty && !retry { throw UsageError(.conflictingOptions, option: "--id", "--id goes with --retry") }
        let outbox = try open(arguments)
        defer { outbox.store.close() }
        do {
            if retry {
                let count = try outbox.store.requeueDead(ids: ids.isEmpty ? nil : ids, nowUnixSeconds: Date().timeIntervalSince1970)
                if json { print(#"{"requeued":\#(count)}"#) } else { print("requeued \(count) dead letter\(count == 1 ? "" : "s") (due now, same bytes and apns-id)") }
                return 0
            }
            let letters = try outbox.store.deadLetters(limit: limit)
            if json {
                print(Self.json(letters))
            } else if letters.isEmpty {
                print("no dead letters in \(outbox.store.location)")
            } else {
                print("id\tevent\ttoken\tattempts\tstatus\treason\tapns-id\tsince")
                for letter in letters {
                    print("\(letter.id)\t\(letter.event)\t\(letter.tokenRedacted)\t\(letter.attempts)\t\(letter.lastStatus.map(String.init) ?? "-")\t\(letter.reason)\t\(letter.apnsID)\t\(time(letter.updatedUnixSeconds))")
                }
            }
        } catch {
            throw UsageError(refused: error)
        }
        return 0
    }

    // MARK: purge

    @Sendable static func purge(_ arguments: ParsedArguments) throws -> Int32 {
        let json = try arguments.value(format) == .json
        guard arguments.isSet(purgeDead) else { throw UsageError(.missingOption, "say what to purge: --dead (dead letters and their journal rows)") }
        let outbox = try open(arguments)
        defer { outbox.store.close() }
        let count: Int
        do { count = try outbox.store.purgeDead() } catch { throw UsageError(refused: error) }
        if json { print(#"{"purged":\#(count)}"#) } else { print("purged \(count) dead letter\(count == 1 ? "" : "s") from \(outbox.store.location)") }
        return 0
    }

    // MARK: journal

    @Sendable static func journal(_ arguments: ParsedArguments) throws -> Int32 {
        let json = try arguments.value(format) == .json
        let limit = try arguments.defaultedValue(journalLimit)
        let id = try arguments.value(journalPushID)
        let outbox = try open(arguments)
        defer { outbox.store.close() }
        let rows: [AttemptRecord]
        do { rows = try outbox.store.journal(pushID: id, limit: limit) } catch { throw UsageError(refused: error) }
        if json {
            for row in rows { print(Self.json(row)) }
            return 0
        }
        print("time\tpush\ttoken\toutcome\tstatus\treason\tapns-id\tapns-unique-id\tlatency-ms\tnote")
        for row in rows {
            print("\(time(row.atUnixSeconds))\t\(row.pushID)\t\(row.tokenRedacted)\t\(row.outcome)\t\(row.status.map(String.init) ?? "-")\t\(row.reason ?? "-")\t\(row.apnsID)\t\(row.apnsUniqueID ?? "-")\t\(row.latencyMilliseconds.map { String(format: "%.1f", $0) } ?? "-")\t\(row.note ?? "")")
        }
        return 0
    }
}
