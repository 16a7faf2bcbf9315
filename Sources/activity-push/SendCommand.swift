import ActivityPushAPNs
import ActivityPushCore
import Foundation
import Synchronization

/// `activity-push send` — checks a push with the validator, then sends it to one or many tokens over one
/// HTTP/2 connection. Exit 0 when every token was accepted, 1 otherwise (or refused), 2 when it could not start.
let sendCommand = Command(
    name: "send",
    summary: "check a push, then send it to APNs (or mock-apns) for one or many tokens"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push send --auth-key AuthKey_KEYID.p8 --team-id TEAMID --bundle-id ID
                                  (--token HEX ... | --tokens-file FILE | --channel-id ID)
                                  (PAYLOAD.json [--headers HEADERS.json] | --event … [build flags])
                                  [--env sandbox|production] [--port 443|2197] [--url URL] [--ca-file PEM]
                                  [--attributes PATH]... [--force] [--format text|json] [--concurrency N]
          --auth-key PATH        Apple's .p8 key (token auth); its Key ID is read from AuthKey_<KeyID>.p8 (or env ACTIVITY_PUSH_AUTH_KEY)
          --key-id ID            Key ID when the file name does not carry it
          --team-id ID           your 10-character Team ID
          --bundle-id ID         the app's bundle id (apns-topic is ID.push-type.liveactivity)
          --token HEX            a push-to-start token (start) or an activity update token (repeatable)
          --tokens-file FILE     one hex token per line (# comments and blank lines ignored)
          --env sandbox|production   APNs environment (default sandbox)
          --port 443|2197        APNs port (default 443)
          --url URL              send to this server instead (https://…, or http://… for cleartext HTTP/2)
          --ca-file PEM          trust this CA (e.g. the one mock-apns prints)
          --attributes PATH      the app's Swift source: checks attributes/content-state against its types
          --headers FILE         with PAYLOAD.json: APNs headers as a JSON object (default: built from flags)
          --force                send despite findings from the app's schema (APNs-level errors still refuse)
          --format text|json     json: one line per token (redacted token, status, reason, apns-id, class)
          --concurrency N        requests in flight at once (default 1000)
        build flags (instead of PAYLOAD.json):
        """ + BuildFlags.help + """

        exit: 0 all accepted, 1 refused or any token not accepted, 2 could not start (bad flags, key, file)
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: BuildFlags.booleanFlags.union(["--force"]))
    let options = try SendOptions.read(&a)
    return try SendRun(options: options).run()
}

/// Every `send` option, read and checked before anything is sent.
struct SendOptions {
    var keyPath: String
    var keyID: String
    var teamID: String
    var bundleID: String
    var tokens: [String]
    var environment: APNsEnvironment
    var caFile: String?
    var schema: ActivitySchema?
    var force: Bool
    var json: Bool
    var concurrency: Int
    var payloadPath: String?
    var headersPath: String?
    var build: BuildFlags?
    var priority: Int?
    var expiration: Int64?
    var apnsID: String?
    var collapseID: String?
    var channelID: String?

    static func read(_ a: inout Arguments) throws -> SendOptions {
        guard let keyPath = a.value("--auth-key", environment: "ACTIVITY_PUSH_AUTH_KEY") else { throw UsageError("--auth-key AuthKey_KEYID.p8 (or env ACTIVITY_PUSH_AUTH_KEY) is required (token auth)") }
        let fileName = (keyPath as NSString).lastPathComponent
        var keyID = a.value("--key-id")
        if keyID == nil, fileName.hasPrefix("AuthKey_"), fileName.hasSuffix(".p8") {
            keyID = String(fileName.dropFirst(8).dropLast(3))
        }
        guard let keyID else { throw UsageError("--key-id is required when the key file is not named AuthKey_<KeyID>.p8") }
        guard let teamID = a.value("--team-id") else { throw UsageError("--team-id is required (10 characters, Membership details)") }
        guard let bundleID = a.value("--bundle-id") else { throw UsageError("--bundle-id is required") }
        var tokens = a.values("--token")
        if let file = a.value("--tokens-file") {
            let text = String(decoding: try Inputs.bytes(file), as: UTF8.self)
            for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard line.utf8.count % 2 == 0, line.allSatisfy(\.isHexDigit) else {
                    throw UsageError("\(file):\(i + 1): not a hex token; put one token per line as hex")
                }
                tokens.append(line)
            }
        }
        for t in a.values("--token") where !(t.utf8.count % 2 == 0 && !t.isEmpty && t.allSatisfy(\.isHexDigit)) {
            throw UsageError("--token \(Redact.token(t)): not hex (the token data printed as hex)")
        }
        var env: APNsEnvironment
        switch a.value("--env") ?? "sandbox" {
        case "sandbox": env = .sandbox
        case "production": env = .production
        case let other: throw UsageError("--env must be sandbox or production, got '\(other)'")
        }
        switch a.value("--port") ?? "443" {
        case "443": break
        case "2197": env = env.onPort2197()
        case let other: throw UsageError("--port must be 443 or 2197, got '\(other)'")
        }
        if let url = a.value("--url") {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw UsageError("--url must start with https:// or http://") }
            env = .custom(url)
        }
        if let b = a.value("--broadcast-url") { env.broadcastURL = b }
        let caFile = a.value("--ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw UsageError("\(caFile): cannot read the CA file") }
        let schema = try Inputs.schema(a.values("--attributes"))
        let force = a.flag("--force")
        let format = a.value("--format") ?? "text"
        guard format == "text" || format == "json" else { throw UsageError("--format must be text or json") }
        let concurrency = try a.int("--concurrency") ?? 1000
        guard concurrency >= 1 else { throw UsageError("--concurrency must be at least 1") }
        let headersPath = a.value("--headers")
        // Read before BuildFlags (which drops them when there is no --event) so they also apply to PAYLOAD.json.
        let priority = try a.int("--priority")
        let channelID = a.value("--channel-id")
        let build = try BuildFlags.read(&a)
        try a.finish()
        var o = SendOptions(keyPath: keyPath, keyID: keyID, teamID: teamID, bundleID: bundleID, tokens: tokens,
                            environment: env, caFile: caFile, schema: schema, force: force, json: format == "json",
                            concurrency: concurrency, payloadPath: nil, headersPath: headersPath, build: nil)
        if let build {
            if !a.positionals.isEmpty { throw UsageError("give either PAYLOAD.json or --event with build flags, not both") }
            o.build = build
        } else {
            guard a.positionals.count == 1 else { throw UsageError("give one PAYLOAD.json, or --event start|update|end with build flags") }
            o.payloadPath = a.positionals[0]
        }
        o.priority = priority
        o.channelID = channelID
        return o
    }
}

/// One `send` run: check, then send, then report.
struct SendRun {
    var options: SendOptions

    func run() throws -> Int32 {
        let o = options
        // 1. Make the PushRequest (the validator runs inside) before touching the network or the key.
        guard let request = try makeRequest(), clockAllows(request) else { return 1 }
        let broadcast: Bool
        if case .broadcast = request.destination { broadcast = true } else { broadcast = false }
        if broadcast && !o.tokens.isEmpty { throw UsageError("a broadcast (--channel-id) takes no --token") }
        if !broadcast && o.tokens.isEmpty { throw UsageError("give --token HEX or --tokens-file FILE (or --channel-id for a broadcast)") }
        for w in request.warnings where !o.json {
            printError("warning: \(w.path): \(w.message) [\(w.code)]" + (w.fix.map { "\n    fix: \($0)" } ?? ""))
        }

        // 2. Credentials and connection.
        let token: ProviderToken
        do { token = try ProviderToken(keyFile: o.keyPath, keyID: o.keyID, teamID: o.teamID) }
        catch { throw UsageError("\(error)") }
        if let w = token.keyFileWarning { printError("warning: \(w)") }
        let client = try APNsClient(environment: o.environment, token: token,
                                    transport: HTTP2TransportConfiguration(caFile: o.caFile))

        // 3. Send.
        let targets = broadcast ? ["channel"] : o.tokens
        let progress = SendProgress(total: targets.count, enabled: isatty(2) == 1 && targets.count > 1)
        let results = blockingAwait {
            await Self.sendAll(client: client, request: request, targets: targets, broadcast: broadcast,
                               concurrency: o.concurrency, progress: progress)
        }
        progress.finish()

        // 4. Report.
        var summary: [String: Int] = [:]
        var allAccepted = true
        for (target, result) in zip(targets, results) {
            let d = result.disposition()
            if d != .accepted { allAccepted = false }
            let label: String
            switch result {
            case .response(let r): label = "\(r.status) " + (r.reason?.rawValue ?? (r.isSuccess ? "accepted" : "no reason"))
            case .failure: label = "no response (transport error)"
            }
            summary["\(label) → \(d.name)", default: 0] += 1
            if o.json {
                print(Self.jsonLine(target: broadcast ? (request.headers["apns-channel-id"] ?? "") : target,
                                    broadcast: broadcast, result: result, disposition: d))
            } else if targets.count <= 20 || d != .accepted {
                var line = "\(broadcast ? "channel" : Redact.token(target))  "
                switch result {
                case .response(let r):
                    line += "\(r.status) \(r.reason?.rawValue ?? "")".trimmingCharacters(in: .whitespaces)
                    if let id = r.apnsID { line += "  apns-id \(id)" }
                    if let u = r.uniqueID { line += "  apns-unique-id \(u)" }
                    if let ts = r.timestampMilliseconds { line += "  token invalid since \(ts) ms" }
                case .failure(let e): line += e.description
                }
                print(line + "  [\(d)]")
            }
        }
        if !o.json {
            print("summary: \(targets.count) sent to \(o.environment)")
            for (k, v) in summary.sorted(by: { $0.value > $1.value }) { print("  \(v)\t\(k)") }
        }
        blockingAwait { await client.shutdown() }
        return allAccepted ? 0 : 1
    }

    /// The rules that need the clock (a stale `timestamp`, a start whose `stale-date` has passed), judged now:
    /// warnings are printed; errors refuse the send unless `--force`.
    private func clockAllows(_ request: PushRequest) -> Bool {
        let report = Validator(schema: options.schema).check(body: request.body, headers: request.headers,
                                                             nowUnixSeconds: Date().timeIntervalSince1970)
        let timed = report.findings.filter { !request.warnings.contains($0) && $0.severity != .info }
        guard !timed.isEmpty else { return true }
        let shown = ValidationReport(findings: timed)
        if options.json { printError(ReportFormatter.json(shown, pretty: false)) }
        else { printError(ReportFormatter.text(shown, files: .init(payload: options.payloadPath ?? "<built payload>")), terminator: "") }
        if shown.accept || options.force { return true }
        printError("activity-push send: refused — the push is already out of date (fix the times above, or --force)")
        return false
    }

    /// The push to send: from build flags through the builder, or from PAYLOAD.json through
    /// `PushRequest(bundleID:storedHeaders:body:schema:)`. Prints findings and returns nil when refused.
    private func makeRequest() throws -> PushRequest? {
        let o = options
        let files: ReportFormatter.Files
        let attempt: (ActivitySchema?) throws(PushBuildError) -> PushRequest
        if let build = o.build {
            let push = try build.push(bundleID: o.bundleID, schema: o.schema)
            files = .init(payload: "<built payload>")
            attempt = { schema throws(PushBuildError) in try push.build(schema: schema) }
        } else {
            let path = o.payloadPath!
            let body = try Inputs.bytes(path)
            var headers: APNsHeaders
            var positions: [String: SourcePosition] = [:]
            if let hp = o.headersPath {
                (headers, positions) = try Inputs.headers(hp)
            } else {
                headers = APNsHeaders()
                headers["apns-push-type"] = "liveactivity"
                if let ch = o.channelID {
                    headers["apns-channel-id"] = ch
                    headers["apns-expiration"] = "0"
                } else {
                    headers["apns-topic"] = o.bundleID + LiveActivityPush.topicSuffix
                }
                headers["apns-priority"] = String(o.priority ?? 10)
            }
            files = .init(payload: path, headers: o.headersPath, headerPositions: positions)
            attempt = { schema throws(PushBuildError) in
                try PushRequest(bundleID: o.bundleID, storedHeaders: headers, body: body, schema: schema)
            }
        }
        do {
            return try attempt(o.schema)
        } catch let e {
            let report = ValidationReport(findings: e.findings)
            if o.json { printError(ReportFormatter.json(report, pretty: false)) }
            else { printError(ReportFormatter.text(report, files: files), terminator: "") }
            // Without the schema only APNs-level and payload-shape rules remain; those can never be forced.
            let forcible: PushRequest? = o.schema == nil ? nil : (try? attempt(nil))
            guard o.force, let forced = forcible else {
                if o.force || forcible == nil {
                    printError("activity-push send: refused — fix the errors above (they break Apple's payload or header rules; --force cannot send them)")
                } else {
                    printError("activity-push send: refused — fix the errors above, or --force to send despite these schema findings")
                }
                return nil
            }
            printError("activity-push send: --force: sending despite the schema findings above")
            return forced
        }
    }

    private static func sendAll(client: APNsClient, request: PushRequest, targets: [String], broadcast: Bool,
                                concurrency: Int, progress: SendProgress) async -> [APNsResult] {
        var results = [APNsResult?](repeating: nil, count: targets.count)
        await withTaskGroup(of: (Int, APNsResult).self) { group in
            var next = 0
            func add() {
                let i = next
                next += 1
                group.addTask {
                    do {
                        return (i, broadcast ? try await client.broadcast(request)
                                             : try await client.send(request, deviceToken: targets[i]))
                    } catch {
                        return (i, .failure(APNsTransportError(curlCode: 0, message: "\(error)",
                                                               mayHaveBeenProcessed: false, attempts: 0)))
                    }
                }
            }
            while next < min(concurrency, targets.count) { add() }
            for await (i, r) in group {
                results[i] = r
                progress.tick()
                if next < targets.count { add() }
            }
        }
        return results.map { $0! }
    }

    static func jsonLine(target: String, broadcast: Bool, result: APNsResult, disposition: APNsDisposition) -> String {
        var fields: [(String, JSONValue)] = [(broadcast ? "channel" : "token", .string(broadcast ? target : Redact.token(target)))]
        switch result {
        case .response(let r):
            fields.append(("status", .int(r.status)))
            fields.append(("reason", r.reason.map { .string($0.rawValue) } ?? .null))
            fields.append(("apns-id", r.apnsID.map { .string($0) } ?? .null))
            if let u = r.uniqueID { fields.append(("apns-unique-id", .string(u))) }
            if let ts = r.timestampMilliseconds { fields.append(("timestamp", .int(Int(ts)))) }
        case .failure(let e):
            fields.append(("status", .null))
            fields.append(("reason", .null))
            fields.append(("apns-id", .null))
            fields.append(("error", .string(e.description)))
        }
        fields.append(("class", .string(disposition.name)))
        if case .retry(let s) = disposition { fields.append(("retry-after", .double(s))) }
        return JSONWriter.compact(.obj(fields))
    }
}

/// A one-line progress bar on standard error (only on a terminal).
final class SendProgress: Sendable {
    private let total: Int
    private let enabled: Bool
    private let done = Mutex<(count: Int, lastDraw: Double)>((0, 0))

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func tick() {
        guard enabled else { return }
        let (n, draw) = done.withLock { s -> (Int, Bool) in
            s.count += 1
            let now = Date().timeIntervalSince1970
            let draw = now - s.lastDraw > 0.1 || s.count == total
            if draw { s.lastDraw = now }
            return (s.count, draw)
        }
        guard draw else { return }
        let width = 30
        let filled = total == 0 ? width : width * n / total
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(n)/\(total)".utf8))
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Runs async work from a synchronous command and waits for it.
func blockingAwait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let v = await work()
        box.withLock { $0 = v }
        done.signal()
    }
    done.wait()
    return box.withLock { $0! }
}

func printError(_ message: String, terminator: String) {
    FileHandle.standardError.write(Data((message + terminator).utf8))
}
