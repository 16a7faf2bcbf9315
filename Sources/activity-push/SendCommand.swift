import ActivityPushAPNs
import ActivityPushCore
import Foundation
import Synchronization

/// `activity-push send` — checks a push with the validator, then sends it to one or many tokens over one
/// HTTP/2 connection. Exit 0 when every token was accepted, 1 otherwise (or refused), 2 when it could not start.
let sendCommand = Command(
    name: "send",
    summary: "check a push, then send it to APNs (or mock-apns) for one or many tokens",
    synopsis: ["--auth-key AuthKey_KEYID.p8 --team-id TEAMID --bundle-id ID",
               "(--token HEX ... | --tokens-file FILE | --channel-id ID)",
               "(PAYLOAD.json [--headers HEADERS.json] | --event … [build flags]) [options]"],
    groups: [OptionGroup(CommonOptions.bundleID(), CommonOptions.attributes, CommonOptions.headers, SendOptions.force,
                         SendOptions.format, SendOptions.concurrency, SendOptions.port, SendOptions.broadcastURL),
             APNsConnectionOptions.group, DeviceTokenFlags.group, BuildFlags.group],
    notes: "exit: 0 all accepted, 1 refused or any token not accepted, 2 could not start (bad flags, key, file)"
) { arguments in
    let options = try SendOptions.read(arguments)
    return try await SendRun(options: options).run()
}

/// Every `send` option, read and checked before anything is sent.
struct SendOptions {
    static let force = Flag("--force", help: "send despite findings from the app's schema (APNs-level errors still refuse)")
    static let format = Option<OutputFormat>.format(
        [.text, .json], default: .text, help: "json: one line per token (redacted token, status, reason, apns-id, class)")
    static let concurrency = Option<Int>.integer("--concurrency", help: "requests in flight at once", default: 1000)
    static let port = Option<Int>.choice("--port", [(name: "443", value: 443), (name: "2197", value: 2197)],
                                         help: "APNs port (2197 where 443 is blocked)", default: 443, defaultText: "443")
    static let broadcastURL = Option<String>(
        "--broadcast-url", valueName: "URL", help: "base URL for broadcasts when it differs from the device host")

    var credentials: APNsConnectionOptions
    var bundleID: String
    var tokens: [String]
    var environment: APNsEnvironment
    var schema: ActivitySchema?
    var force: Bool
    var json: Bool
    var concurrency: Int
    var payloadPath: String?
    var headersPath: String?
    var build: BuildFlags?
    var priority: Int?
    var channelID: String?

    static func read(_ arguments: ParsedArguments) throws -> SendOptions {
        let connection = try APNsConnectionOptions(arguments)
        try connection.requireCredentials()
        guard let bundleID = try arguments.value(CommonOptions.bundleID()) else { throw UsageError(.missingOption, option: "--bundle-id", "--bundle-id is required") }
        let tokens = try DeviceTokenFlags.read(arguments)
        var environment = connection.namedEnvironment
        if try arguments.value(port) == 2197 { environment = environment.onPort2197() }
        if let url = connection.serverURL { environment = .custom(url) }
        if let broadcastURL = try arguments.value(broadcastURL) { environment.broadcastURL = broadcastURL }
        let schema = try CommonOptions.schema(arguments)
        if schema == nil { Inputs.noteMissingSchema() }
        let concurrency = try arguments.defaultedValue(concurrency)
        guard concurrency >= 1 else { throw UsageError(.badValue, option: "--concurrency", "--concurrency must be at least 1") }
        var options = SendOptions(
            credentials: connection, bundleID: bundleID, tokens: tokens, environment: environment, schema: schema,
            force: arguments.isSet(force), json: try arguments.value(format) == .json, concurrency: concurrency,
            payloadPath: nil, headersPath: try arguments.value(CommonOptions.headers), build: nil,
            // Also for PAYLOAD.json (BuildFlags.read drops them when there is no --event).
            priority: try arguments.value(BuildFlags.priority), channelID: try arguments.value(BuildFlags.channelID))
        if let build = try BuildFlags.read(arguments) {
            if !arguments.positionals.isEmpty { throw UsageError(.conflictingOptions, "give either PAYLOAD.json or --event with build flags, not both") }
            options.build = build
        } else {
            guard arguments.positionals.count == 1 else {
                throw UsageError(.badArguments, "give one PAYLOAD.json, or --event start|update|end with build flags")
            }
            options.payloadPath = arguments.positionals[0]
        }
        return options
    }
}

/// One `send` run: check, then send, then report.
struct SendRun {
    var options: SendOptions

    func run() async throws -> Int32 {
        // 1. Make the PushRequest (the validator runs inside) before touching the network or the key.
        guard let request = try makeRequest(), clockAllows(request) else { return 1 }
        let broadcast: Bool
        if case .broadcast = request.destination { broadcast = true } else { broadcast = false }
        if broadcast && !options.tokens.isEmpty { throw UsageError(.conflictingOptions, "a broadcast (--channel-id) takes no --token") }
        if !broadcast && options.tokens.isEmpty { throw UsageError(.missingOption, "give --token HEX or --tokens-file FILE (or --channel-id for a broadcast)") }
        for warning in request.warnings where !options.json {
            printError("warning: \(warning.path): \(warning.message) [\(warning.code)]" + (warning.fix.map { "\n    fix: \($0)" } ?? ""))
        }

        // 2. Credentials and connection.
        let token = try options.credentials.providerToken()
        if let warning = token.keyFileWarning { printError("warning: \(warning)") }
        let client = try APNsClient(environment: options.environment, token: token,
                                    transport: HTTP2TransportConfiguration(caFile: options.credentials.caFile))

        // 3. Send.
        let targets = broadcast ? ["channel"] : options.tokens
        let progress = SendProgress(total: targets.count, enabled: isatty(2) == 1 && targets.count > 1)
        let results = await Self.sendAll(client: client, request: request, targets: targets, broadcast: broadcast,
                                         concurrency: options.concurrency, progress: progress)
        progress.finish()

        // 4. Report.
        var summary: [String: Int] = [:]
        var tally = SendTally()
        for (target, result) in zip(targets, results) {
            let disposition = result.disposition()
            tally.add(result)
            let label: String
            switch result {
            case .response(let response):
                label = "\(response.status) " + (response.reason?.rawValue ?? (response.isSuccess ? "accepted" : "no reason"))
            case .failure(let failure): label = "no response: \(failure.kind)"
            }
            summary["\(label) → \(disposition.name)", default: 0] += 1
            if options.json {
                print(Self.jsonLine(target: broadcast ? (request.headers.channelID ?? "") : target,
                                    broadcast: broadcast, result: result, disposition: disposition))
            } else if targets.count <= 20 || disposition != .accepted {
                var line = "\(broadcast ? "channel" : DeviceToken.redacted(target))  "
                switch result {
                case .response(let response):
                    line += "\(response.status) \(response.reason?.rawValue ?? "")".trimmingCharacters(in: .whitespaces)
                    if let id = response.apnsID { line += "  apns-id \(id)" }
                    if let uniqueID = response.uniqueID { line += "  apns-unique-id \(uniqueID)" }
                    if let invalidSince = response.timestampMilliseconds { line += "  token invalid since \(invalidSince) ms" }
                case .failure(let failure):
                    line += failure.description
                    if let id = failure.apnsID { line += "  apns-id \(id)" }
                }
                print(line + "  [\(disposition)]")
            }
        }
        let counters = client.transport.statistics
        if !options.json {
            print("summary: \(targets.count) \(broadcast ? "broadcast" : targets.count == 1 ? "token" : "tokens") for \(options.environment): " + tally.description)
            for (outcome, count) in summary.sorted(by: { $0.value > $1.value }) { print("  \(count)\t\(outcome)") }
            print("  transport: \(counters.connectionsOpened) connection(s), \(counters.streamsOpened) stream(s), "
                  + "\(counters.refused) refused by the server and resent, \(counters.goawaysReceived) GOAWAY(s), "
                  + "\(counters.resetsReceived) reset(s) received")
        }
        await client.shutdown()
        return tally.accepted == targets.count ? 0 : 1
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
        let files: ReportFormatter.Files
        let attempt: (ActivitySchema?) throws(PushBuildError) -> PushRequest
        if let build = options.build {
            let made = try build.push(bundleID: options.bundleID, schema: options.schema)
            files = .init(payload: "<built payload>")
            attempt = { schema throws(PushBuildError) in try made.get().build(schema: schema) }
        } else {
            guard let path = options.payloadPath else { throw UsageError(.badArguments, "give one PAYLOAD.json, or --event start|update|end with build flags") }
            let body = try Inputs.bytes(path)
            var headers: APNsHeaders
            var positions: [String: SourcePosition] = [:]
            if let headersPath = options.headersPath {
                (headers, positions) = try Inputs.headers(headersPath)
            } else {
                headers = .liveActivity(bundleID: options.bundleID, broadcastChannelID: options.channelID,
                                        priority: APNsPriority(rawValue: options.priority ?? 10))
            }
            files = .init(payload: path, headers: options.headersPath, headerPositions: positions)
            attempt = { schema throws(PushBuildError) in
                try PushRequest(bundleID: options.bundleID, storedHeaders: headers, body: body, schema: schema)
            }
        }
        do {
            return try attempt(options.schema)
        } catch {
            let report = ValidationReport(findings: error.findings)
            if options.json { printError(ReportFormatter.json(report, pretty: false)) }
            else { printError(ReportFormatter.text(report, files: files), terminator: "") }
            // Without the schema only APNs-level and payload-shape rules remain; those can never be forced.
            let forcible: PushRequest? = options.schema == nil ? nil : (try? attempt(nil))
            guard options.force, let forced = forcible else {
                if options.force || forcible == nil {
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

    /// Sends to every target with at most `concurrency` requests in flight, and returns the results in target order.
    ///
    /// The window is refilled from the group's results. Issue 10's release crash (SIGILL for two or more tokens)
    /// came from the child task's `return (i, broadcast ? try await client.broadcast(…) : try await client.send(…))`:
    /// in `-O` builds every task's tuple came back with index 0 (the element evaluated before the suspension was
    /// lost), so `results[1...]` stayed nil and `results.map { $0! }` trapped. Each task now computes its result
    /// into a local first and returns `(index, result)` after the last `await`.
    static func sendAll(client: APNsClient, request: PushRequest, targets: [String], broadcast: Bool,
                        concurrency: Int, progress: SendProgress) async -> [APNsResult] {
        let window = max(1, min(concurrency, targets.count))
        let byIndex = await withTaskGroup(of: (Int, APNsResult).self, returning: [Int: APNsResult].self) { group in
            var collected: [Int: APNsResult] = [:]
            collected.reserveCapacity(targets.count)
            for index in 0..<targets.count {
                if index >= window, let (done, result) = await group.next() {
                    collected[done] = result
                    progress.tick()
                }
                let target = targets[index]
                group.addTask {
                    // The result first, then the tuple: `(index, await …)` came back with index 0 for every
                    // task in -O builds (see above).
                    let result = await sendOne(client: client, request: request, target: target, broadcast: broadcast)
                    return (index, result)
                }
            }
            for await (done, result) in group {
                collected[done] = result
                progress.tick()
            }
            return collected
        }
        return (0..<targets.count).map { index in
            byIndex[index] ?? .failure(APNsTransportError(kind: .notSent, message: "no result (internal error)", attempts: 0))
        }
    }

    /// One request's result; a request the client refuses before sending becomes a not-sent failure.
    private static func sendOne(client: APNsClient, request: PushRequest, target: String, broadcast: Bool) async -> APNsResult {
        do {
            return broadcast ? try await client.broadcast(request) : try await client.send(request, deviceToken: target)
        } catch {
            return .failure(APNsTransportError(kind: .notSent, message: "\(error)", attempts: 0))
        }
    }

    static func jsonLine(target: String, broadcast: Bool, result: APNsResult, disposition: APNsDisposition) -> String {
        var fields: [(String, JSONValue)] = [(broadcast ? "channel" : "token", .string(broadcast ? target : DeviceToken.redacted(target)))]
        switch result {
        case .response(let response):
            fields.append(("status", .int(response.status)))
            fields.append(("reason", response.reason.map { .string($0.rawValue) } ?? .null))
            fields.append((APNsHeaderName.id.rawValue, response.apnsID.map { .string($0) } ?? .null))
            if let uniqueID = response.uniqueID { fields.append((APNsHeaderName.uniqueID.rawValue, .string(uniqueID))) }
            if let invalidSince = response.timestampMilliseconds { fields.append(("timestamp", .int(Int(invalidSince)))) }
        case .failure(let failure):
            fields.append(("status", .null))
            fields.append(("reason", .null))
            fields.append((APNsHeaderName.id.rawValue, failure.apnsID.map { .string($0) } ?? .null))
            fields.append(("error", .string(failure.description)))
        }
        fields.append(("class", .string(disposition.name)))
        if case .retry(let seconds) = disposition { fields.append(("retry-after", .double(seconds))) }
        return JSONWriter.compact(.obj(fields))
    }
}

/// What `send` reports per outcome. "accepted" counts only 2xx answers from APNs; a request without an answer
/// is never counted as sent.
struct SendTally: CustomStringConvertible {
    var accepted = 0
    var rejected = 0
    var refused = 0
    var mayHaveBeenProcessed = 0
    var notSent = 0

    mutating func add(_ result: APNsResult) {
        switch result {
        case .response(let response): if response.isSuccess { accepted += 1 } else { rejected += 1 }
        case .failure(let failure):
            switch failure.kind {
            case .refused: refused += 1
            case .mayHaveBeenProcessed: mayHaveBeenProcessed += 1
            default: notSent += 1
            }
        }
    }

    var description: String {
        var parts = ["\(accepted) accepted by APNs (2xx)"]
        if rejected > 0 { parts.append("\(rejected) rejected by APNs") }
        if refused > 0 { parts.append("\(refused) refused by the server, not processed") }
        if mayHaveBeenProcessed > 0 { parts.append("\(mayHaveBeenProcessed) sent without an answer (may have been processed)") }
        if notSent > 0 { parts.append("\(notSent) not sent") }
        return parts.joined(separator: ", ")
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
        let (count, draw) = done.withLock { state -> (Int, Bool) in
            state.count += 1
            let now = Date().timeIntervalSince1970
            let draw = now - state.lastDraw > 0.1 || state.count == total
            if draw { state.lastDraw = now }
            return (state.count, draw)
        }
        guard draw else { return }
        let width = 30
        let filled = total == 0 ? width : width * count / total
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(count)/\(total)".utf8))
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
