import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push queue enqueue|status|dead|purge|journal` — the durable outbox (SQLite file by default,
/// PostgreSQL with `--database postgres://…`). Exit 0 on success, 1 when a push was refused by the validator,
/// 2 on bad flags or a database that cannot be opened.
let queueCommand = Command(
    name: "queue",
    summary: "durable push queue: enqueue, status, dead letters, purge, journal (SQLite or PostgreSQL)"
) { argv in
    guard let sub = argv.first, sub != "--help", sub != "-h" else {
        print(QueueCLI.usage)
        return argv.isEmpty ? 2 : 0
    }
    let rest = Array(argv.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(QueueCLI.usage)
        return 0
    }
    switch sub {
    case "enqueue": return try QueueCLI.enqueue(rest)
    case "status": return try QueueCLI.status(rest)
    case "dead": return try QueueCLI.dead(rest)
    case "purge": return try QueueCLI.purge(rest)
    case "journal": return try QueueCLI.journal(rest)
    default: throw UsageError("unknown queue subcommand '\(sub)' (enqueue, status, dead, purge, journal)")
    }
}

enum QueueCLI {
    static let usage = """
    usage: activity-push queue enqueue [--database DB] --bundle-id ID (--token HEX ... | --tokens-file FILE)
                                       (PAYLOAD.json [--headers HEADERS.json] | --event … [build flags])
                                       [--attributes PATH]... [--env sandbox|production] [--credential NAME]
                                       [--not-before UNIX] [--format text|json]
           activity-push queue status  [--database DB] [--format text|json]
           activity-push queue dead    [--database DB] [--limit N] [--retry [--id N]...] [--format text|json]
           activity-push queue purge   [--database DB] --dead [--format text|json]
           activity-push queue journal [--database DB] [--id N] [--limit N] [--format text|json]

      --database DB          postgres://user@host:port/db for PostgreSQL; a file path (or sqlite:PATH) for SQLite.
                             Default: $ACTIVITY_PUSH_QUEUE, else $XDG_DATA_HOME/activity-push/queue.sqlite,
                             else ./activity-push-queue.sqlite
      --bundle-id ID         the app's bundle id (apns-topic is ID.push-type.liveactivity)
      --token HEX            a push-to-start token (start) or an activity update token; repeatable, one push each
      --tokens-file FILE     one hex token per line (# comments and blank lines ignored)
      --attributes PATH      the app's Swift source: the push is checked against its ActivityAttributes types
      --env NAME             environment the push is for; a worker started with the same --env sends it (default sandbox)
      --credential NAME      signing key name; a worker started with the same --credential sends it (default "default")
      --not-before UNIX      do not send before this time (UNIX seconds)
      --retry                queue dead: put dead letters back (all, or those given with --id); clears the
                             inactive mark of their tokens (use after the app registered the token again)
    build flags (instead of PAYLOAD.json):
    """ + BuildFlags.help + """

    The push is checked by the validator first and refused (exit 1) with its findings; nothing is stored then.
    Every push gets its apns-id now; retries resend the same bytes with the same apns-id.
    """

    static func open(_ a: inout Arguments) throws -> Outbox {
        do { return try Outbox.open(database: a.value("--database")) } catch { throw UsageError(error.description) }
    }

    static func format(_ a: inout Arguments) throws -> Bool {
        let f = a.value("--format") ?? "text"
        guard f == "text" || f == "json" else { throw UsageError("--format must be text or json") }
        return f == "json"
    }

    static func json(_ value: some Encodable) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: e.encode(value), as: UTF8.self)) ?? "{}"
    }

    static func time(_ unix: Double?) -> String {
        guard let unix else { return "-" }
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: unix))
    }

    // MARK: enqueue

    static func enqueue(_ argv: [String]) throws -> Int32 {
        var a = try Arguments(argv, booleanFlags: BuildFlags.booleanFlags)
        guard let bundleID = a.value("--bundle-id") else { throw UsageError("--bundle-id is required") }
        let tokens = try DeviceTokenFlags.read(&a)
        let schema = try Inputs.schema(a.values("--attributes"))
        let env = a.value("--env") ?? "sandbox"
        let credential = a.value("--credential") ?? "default"
        let notBefore = try a.double("--not-before")
        let json = try format(&a)
        let headersPath = a.value("--headers")
        let priority = try a.int("--priority")
        let channelID = a.value("--channel-id")
        let build = try BuildFlags.read(&a)
        var outbox: Outbox?
        let databaseFlag = a.value("--database")
        try a.finish()

        // 1. The push, checked by the validator (inside the builder or the stored-bytes initialiser).
        let files: ReportFormatter.Files
        let request: PushRequest
        do {
            if let build {
                guard a.positionals.isEmpty else { throw UsageError("give either PAYLOAD.json or --event with build flags, not both") }
                files = .init(payload: "<built payload>")
                let made = try build.push(bundleID: bundleID, schema: schema)
                do { request = try made.get().build(schema: schema) } catch { return refused(error, files: files, json: json) }
            } else {
                guard a.positionals.count == 1 else { throw UsageError("give one PAYLOAD.json, or --event start|update|end with build flags") }
                let path = a.positionals[0]
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
        for w in request.warnings where !json {
            printError("warning: \(w.path): \(w.message) [\(w.code)]" + (w.fix.map { "\n    fix: \($0)" } ?? ""))
        }
        if case .device = request.destination, tokens.isEmpty {
            throw UsageError("give --token HEX or --tokens-file FILE (or --channel-id for a broadcast)")
        }
        if case .broadcast = request.destination, !tokens.isEmpty { throw UsageError("a broadcast (--channel-id) takes no --token") }

        // 2. Store, one push per token, in one transaction.
        do { outbox = try Outbox.open(database: databaseFlag) } catch { throw UsageError(error.description) }
        let ids: [Int64]
        do {
            ids = try outbox!.enqueue(request, to: tokens, environment: env, credential: credential, notBeforeUnixSeconds: notBefore)
        } catch { throw UsageError(error.description) }
        let location = outbox!.store.location
        outbox!.store.close()
        if json {
            struct Out: Encodable { var queued: Int; var ids: [Int64]; var database: String; var environment: String; var credential: String; var event: String }
            print(Self.json(Out(queued: ids.count, ids: ids, database: location, environment: env, credential: credential,
                                event: request.event.rawValue)))
        } else {
            let range = ids.count == 1 ? "id \(ids[0])" : "ids \(ids.first ?? 0)…\(ids.last ?? 0)"
            print("queued \(ids.count) \(request.event) push\(ids.count == 1 ? "" : "es") (\(range)) in \(location) for \(env), credential \(credential)")
        }
        return 0
    }

    private static func refused(_ e: PushBuildError, files: ReportFormatter.Files, json: Bool) -> Int32 {
        let report = ValidationReport(findings: e.findings)
        if json { printError(ReportFormatter.json(report, pretty: false)) }
        else { FileHandle.standardError.write(Data(ReportFormatter.text(report, files: files).utf8)) }
        printError("activity-push queue enqueue: refused — fix the errors above; nothing was queued")
        return 1
    }

    // MARK: status

    static func status(_ argv: [String]) throws -> Int32 {
        var a = try Arguments(argv)
        let json = try format(&a)
        let outbox = try open(&a)
        try a.finish()
        defer { outbox.store.close() }
        let now = Date().timeIntervalSince1970
        let st: QueueStatus
        do { st = try outbox.store.status(nowUnixSeconds: now) } catch { throw UsageError(error.description) }
        if json {
            struct Out: Encodable { var database: String; var status: QueueStatus }
            print(Self.json(Out(database: outbox.store.location, status: st)))
            return 0
        }
        print("queue \(outbox.store.location)")
        for s in PushState.all {
            var line = "  " + s.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) + String(st.counts[s.rawValue] ?? 0)
            if s == .pending {
                line += "   (due now \(st.due)" + (st.oldestDueUnixSeconds.map { ", oldest due since \(time($0))" } ?? "")
                line += (st.nextRetryUnixSeconds.map { "; next retry \(time($0))" } ?? "") + ")"
            }
            print(line)
        }
        if !st.deadByReason.isEmpty {
            print("dead letters by reason:")
            for (r, n) in st.deadByReason.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) { print("  \(r)  \(n)") }
        }
        print("inactive tokens (410): \(st.inactiveTokens)   journal rows: \(st.attempts)")
        return 0
    }

    // MARK: dead

    static func dead(_ argv: [String]) throws -> Int32 {
        var a = try Arguments(argv, booleanFlags: ["--retry"])
        let json = try format(&a)
        let limit = try a.int("--limit") ?? 100
        let retry = a.flag("--retry")
        var ids: [Int64] = []
        for v in a.values("--id") {
            guard let i = Int64(v) else { throw UsageError("--id expects a push id, got '\(v)'") }
            ids.append(i)
        }
        if !ids.isEmpty && !retry { throw UsageError("--id goes with --retry") }
        let outbox = try open(&a)
        try a.finish()
        defer { outbox.store.close() }
        do {
            if retry {
                let n = try outbox.store.requeueDead(ids: ids.isEmpty ? nil : ids, nowUnixSeconds: Date().timeIntervalSince1970)
                if json { print(#"{"requeued":\#(n)}"#) } else { print("requeued \(n) dead letter\(n == 1 ? "" : "s") (due now, same bytes and apns-id)") }
                return 0
            }
            let letters = try outbox.store.deadLetters(limit: limit)
            if json {
                print(Self.json(letters))
            } else if letters.isEmpty {
                print("no dead letters in \(outbox.store.location)")
            } else {
                print("id\tevent\ttoken\tattempts\tstatus\treason\tapns-id\tsince")
                for d in letters {
                    print("\(d.id)\t\(d.event)\t\(d.tokenRedacted)\t\(d.attempts)\t\(d.lastStatus.map(String.init) ?? "-")\t\(d.reason)\t\(d.apnsID)\t\(time(d.updatedUnixSeconds))")
                }
            }
        } catch {
            throw UsageError("\(error)")
        }
        return 0
    }

    // MARK: purge

    static func purge(_ argv: [String]) throws -> Int32 {
        var a = try Arguments(argv, booleanFlags: ["--dead"])
        let json = try format(&a)
        guard a.flag("--dead") else { throw UsageError("say what to purge: --dead (dead letters and their journal rows)") }
        let outbox = try open(&a)
        try a.finish()
        defer { outbox.store.close() }
        let n: Int
        do { n = try outbox.store.purgeDead() } catch { throw UsageError(error.description) }
        if json { print(#"{"purged":\#(n)}"#) } else { print("purged \(n) dead letter\(n == 1 ? "" : "s") from \(outbox.store.location)") }
        return 0
    }

    // MARK: journal

    static func journal(_ argv: [String]) throws -> Int32 {
        var a = try Arguments(argv)
        let json = try format(&a)
        let limit = try a.int("--limit") ?? 1000
        let id = try a.int("--id").map(Int64.init)
        let outbox = try open(&a)
        try a.finish()
        defer { outbox.store.close() }
        let rows: [AttemptRecord]
        do { rows = try outbox.store.journal(pushID: id, limit: limit) } catch { throw UsageError(error.description) }
        if json {
            for r in rows { print(Self.json(r)) }
            return 0
        }
        print("time\tpush\ttoken\toutcome\tstatus\treason\tapns-id\tapns-unique-id\tlatency-ms\tnote")
        for r in rows {
            print("\(time(r.atUnixSeconds))\t\(r.pushID)\t\(r.tokenRedacted)\t\(r.outcome)\t\(r.status.map(String.init) ?? "-")\t\(r.reason ?? "-")\t\(r.apnsID)\t\(r.apnsUniqueID ?? "-")\t\(r.latencyMilliseconds.map { String(format: "%.1f", $0) } ?? "-")\t\(r.note ?? "")")
        }
        return 0
    }
}
