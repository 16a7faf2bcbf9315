import ActivityPushConsole
import ActivityPushCore
import ActivityPushMock
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The options of `mock-apns`. `--auth-key`, `--key-id` and `--team-id` here name the key provider tokens are
/// verified against, not the sender's credentials (``APNsConnectionOptions``).
enum MockAPNsOptions {
    static let host = Option<String>(
        "--host", valueName: "ADDR",
        help: "numeric address to bind (localhost means 127.0.0.1; no name lookup, as serve)", default: "127.0.0.1")
    static let port = Option<Int>.integer("--port", help: "TCP port; 0 picks a free one, printed on the first line", default: 0)
    static let h2c = Flag("--h2c", help: "cleartext HTTP/2 with prior knowledge (curl --http2-prior-knowledge) instead of TLS")
    static let tlsDirectory = Option<String>(
        "--tls-dir", valueName: "DIR", help: "where ca.pem, server.pem, server-key.pem live; generated when absent",
        defaultText: ".mock-apns-tls")
    static let attributes = Option<String>(
        "--attributes", valueName: "PATH",
        help: "the app's .swift file or folder with its ActivityAttributes types, for device emulation", repeatable: true)
    static let authKey = Option<String>(
        "--auth-key", valueName: "PATH",
        help: "verify ES256 provider tokens against this .p8 (kid from the file name AuthKey_KEYID.p8 or --key-id)")
    static let teamID = Option<String>("--team-id", valueName: "TEAM", help: "the iss every provider token must carry (with --auth-key)")
    static let keyID = Option<String>("--key-id", valueName: "KEYID", help: "the kid provider tokens must carry (with --auth-key)")
    static let acceptAnyToken = Flag("--accept-any-token", help: "accept any non-empty bearer token (the default without --auth-key)")
    static let journal = Option<String>("--journal", valueName: "FILE", help: "append one NDJSON line per request to FILE")
    static let faults = Option<String>(
        "--faults", valueName: "SPEC",
        help: """
        inject faults: comma-separated ACTION[:WHEN], e.g. '429=30:next=2,503:share=10%,delay=200ms:all'
        WHEN: next=N (default next=1) | share=P (0.1 or 10%) | all;  'none' clears
        ACTION:
          429[=SECONDS]   429 TooManyRequests with Retry-After (default 1)
          500, 503        InternalServerError, ServiceUnavailable
          delay=MS        answer after MS milliseconds (also 2s); adds to any other fault
          goaway          graceful GOAWAY {"reason":"Shutdown"} naming the highest stream processed:
                          this request and later streams are not processed, every stream at or below
                          it is still answered, then the connection closes
          goaway-abrupt   the same GOAWAY, then close at once (answers still owed are never sent)
          drop-before     close the connection at once; the request is not processed (alias: drop)
          drop-after      process the request (delivered, journaled 200), close before answering
          refused         RST_STREAM REFUSED_STREAM; the request is not processed
          streams=N       answer, then SETTINGS_MAX_CONCURRENT_STREAMS=N on this connection
        """)
    static let maxConcurrentStreams = Option<Int>.integer(
        "--max-concurrent-streams", help: "streams per connection after a valid provider token", default: 1000)
    static let streamsBeforeToken = Option<Int>.integer(
        "--streams-before-token", help: "streams allowed before a valid token (1, as APNs; raise for h2load -m N)", default: 1)
    static let pushToStartBudget = Option<Int>.integer(
        "--push-to-start-budget", help: "starts per push-to-start token per hour before the device refuses", default: 10)
    static let idleTimeout = Option<Double>.decimal(
        "--idle-timeout", help: "close connections that sent nothing for SECONDS (GOAWAY IdleTimeout; 0: never)", default: 300)
    static let silentAfterIdle = Option<Double>.decimal(
        "--silent-after-idle",
        help: "never answer again on a connection whose request comes after SECONDS without any\n"
            + "frame (PING included), as APNs does to long-idle connections without PING", defaultText: "off")
    static let quiet = Flag("--quiet", help: "do not print one line per request on standard error")
    static let reportTokensTo = Option<String>(
        "--report-tokens-to", valueName: "URL",
        help: "play the app against serve at URL (http://127.0.0.1:8787): POST /_mock/devices/<id> {\"attributesType\": \"T\"}\n"
            + "makes a device's push-to-start token and posts it to URL/v1/tokens; each start the device applies that\n"
            + "asked input-push-token: 1 posts the activity's update token")
    static let intakeToken = Option<String>(
        "--intake-token", valueName: "TOKEN", help: "the bearer for URL/v1/tokens (prefer --intake-token-file)",
        environment: "ACTIVITY_PUSH_INTAKE_TOKEN")
    static let intakeTokenFile = Option<String>(
        "--intake-token-file", valueName: "PATH", help: "the bearer for URL/v1/tokens (serve --intake-token), the file's first line")
    static let activityIDAttribute = Option<String>(
        "--activity-id-attribute", valueName: "KEY", help: "the aps.attributes key holding the activity id", default: "activityID")
}

/// `activity-push mock-apns …` — a local APNs that answers like Apple and journals what the device would do.
let mockAPNsCommand = Command(
    name: "mock-apns",
    summary: "run a local APNs (HTTP/2) that answers like Apple and says what the device would do",
    groups: [OptionGroup(MockAPNsOptions.host, MockAPNsOptions.port, MockAPNsOptions.h2c, MockAPNsOptions.tlsDirectory,
                         MockAPNsOptions.attributes, MockAPNsOptions.authKey, MockAPNsOptions.teamID, MockAPNsOptions.keyID,
                         MockAPNsOptions.acceptAnyToken, MockAPNsOptions.journal, MockAPNsOptions.faults,
                         MockAPNsOptions.maxConcurrentStreams, MockAPNsOptions.streamsBeforeToken,
                         MockAPNsOptions.pushToStartBudget, MockAPNsOptions.idleTimeout, MockAPNsOptions.silentAfterIdle,
                         MockAPNsOptions.quiet),
             OptionGroup("playing the app (for serve's Live Activity lifecycle)",
                         [MockAPNsOptions.reportTokensTo, MockAPNsOptions.intakeTokenFile, MockAPNsOptions.intakeToken,
                          MockAPNsOptions.activityIDAttribute])],
    notes: """
    first stdout line: "mock-apns listening on <URL>"; with TLS the second: "mock-apns ca <path to ca.pem>".
    control: GET|DELETE /_mock/journal, GET /_mock/stats, GET|POST /_mock/faults (body: SPEC),
             POST /_mock/unregister/<token>
    stops on SIGINT/SIGTERM and prints the request count and HTTP/2 counters (RST_STREAM received, GOAWAY sent,
    refused, drops before/after processing) on standard error.
    """,
    stopsOnSignals: true,
    run: runMockAPNs
)

@Sendable private func runMockAPNs(_ arguments: ParsedArguments) async throws -> Int32 {
    let host = try arguments.defaultedValue(MockAPNsOptions.host)
    let port = try arguments.defaultedValue(MockAPNsOptions.port)
    let h2c = arguments.isSet(MockAPNsOptions.h2c)
    let tlsDirGiven = try arguments.value(MockAPNsOptions.tlsDirectory)
    let tlsDir = tlsDirGiven ?? ".mock-apns-tls"
    let attributes = try arguments.values(MockAPNsOptions.attributes)
    let authKey = try arguments.value(MockAPNsOptions.authKey)
    let teamID = try arguments.value(MockAPNsOptions.teamID)
    let keyIDFlag = try arguments.value(MockAPNsOptions.keyID)
    let acceptAny = arguments.isSet(MockAPNsOptions.acceptAnyToken)
    let journal = try arguments.value(MockAPNsOptions.journal)
    let faultSpec = try arguments.value(MockAPNsOptions.faults)
    let maxStreams = try arguments.defaultedValue(MockAPNsOptions.maxConcurrentStreams)
    let budget = try arguments.defaultedValue(MockAPNsOptions.pushToStartBudget)
    let streamsBefore = try arguments.defaultedValue(MockAPNsOptions.streamsBeforeToken)
    let quiet = arguments.isSet(MockAPNsOptions.quiet)
    let idleTimeout = try arguments.defaultedValue(MockAPNsOptions.idleTimeout)
    let silentAfterIdle = try arguments.value(MockAPNsOptions.silentAfterIdle)
    let reportURL = try arguments.value(MockAPNsOptions.reportTokensTo)
    let intakeToken = try arguments.secret(MockAPNsOptions.intakeToken, file: MockAPNsOptions.intakeTokenFile)
    let activityIDAttribute = try arguments.defaultedValue(MockAPNsOptions.activityIDAttribute)
    try arguments.expectNoPositionals()
    if let reportURL, !reportURL.hasPrefix("http://") {
        throw UsageError(.badValue, option: "--report-tokens-to", "--report-tokens-to must be the serve URL, http://HOST:PORT (e.g. http://127.0.0.1:8787)")
    }
    guard (0...65535).contains(port) else { throw UsageError(.badValue, option: "--port", "--port must be 0…65535, got \(port)") }
    // SETTINGS_MAX_CONCURRENT_STREAMS is a 32-bit value (RFC 9113 §6.5.2); times are bounded to a day so that
    // no conversion to milliseconds or an Int can overflow.
    let streamLimit = 1...Int(Int32.max)
    let secondsLimit = 86_400.0
    guard streamLimit.contains(maxStreams) else { throw UsageError(.badValue, option: "--max-concurrent-streams", "--max-concurrent-streams must be 1…\(Int32.max), got \(maxStreams)") }
    guard streamLimit.contains(streamsBefore) else { throw UsageError(.badValue, option: "--streams-before-token", "--streams-before-token must be 1…\(Int32.max), got \(streamsBefore)") }
    guard budget >= 0 else { throw UsageError(.badValue, option: "--push-to-start-budget", "--push-to-start-budget must be 0 or more") }
    guard idleTimeout >= 0, idleTimeout <= secondsLimit else {
        throw UsageError(.badValue, option: "--idle-timeout", "--idle-timeout must be 0 (never) to \(Int(secondsLimit)) seconds, got \(idleTimeout)")
    }
    if let silentAfterIdle, !(silentAfterIdle > 0 && silentAfterIdle <= secondsLimit) {
        throw UsageError(.badValue, option: "--silent-after-idle", "--silent-after-idle must be more than 0 and at most \(Int(secondsLimit)) seconds, got \(silentAfterIdle)")
    }
    if h2c, tlsDirGiven != nil { throw UsageError(.conflictingOptions, option: "--tls-dir", "--tls-dir has no effect with --h2c", fix: "drop one of them") }

    var tokens = MockAPNsConfiguration.ProviderTokenPolicy.acceptAny
    if let authKey {
        guard !acceptAny else { throw UsageError(.conflictingOptions, option: "--auth-key", "--auth-key and --accept-any-token exclude each other") }
        guard let teamID, !teamID.isEmpty else { throw UsageError(.missingOption, option: "--auth-key", "--auth-key needs --team-id TEAM (the iss of your provider tokens)") }
        guard let keyID = keyIDFlag ?? keyIDFromFileName(authKey) else {
            throw UsageError(.missingOption, option: "--key-id", file: authKey, "cannot tell the key ID from '\(authKey)'",
                             fix: "name it AuthKey_<KEYID>.p8 or pass --key-id KEYID")
        }
        tokens = .verify(keyPath: authKey, keyID: keyID, teamID: teamID)
    } else if teamID != nil || keyIDFlag != nil {
        throw UsageError(.conflictingOptions, option: "--team-id", "--team-id and --key-id need --auth-key AuthKey_KEYID.p8")
    }
    var faults = MockFaultPlan()
    if let faultSpec {
        do { faults = try MockFaultPlan(spec: faultSpec) } catch { throw UsageError(.badValue, option: "--faults", "--faults: \(error)") }
    }
    let schema = try Inputs.schema(attributes)

    var onRequest: (@Sendable (MockJournalEntry) -> Void)? = nil
    if !quiet {
        onRequest = { @Sendable entry in FileHandle.standardError.write(Data((describe(entry) + "\n").utf8)) }
    }
    let configuration = MockAPNsConfiguration(host: host, port: port, transport: h2c ? .h2c : .tls(directory: tlsDir),
                                              providerTokens: tokens, schema: schema, journalPath: journal, faults: faults,
                                              maxConcurrentStreams: maxStreams, streamsBeforeProviderToken: streamsBefore,
                                              pushToStartBudget: budget, idleTimeoutSeconds: idleTimeout > 0 ? idleTimeout : nil,
                                              silentAfterIdleSeconds: silentAfterIdle, onRequest: onRequest,
                                              tokenReporter: reportURL.map { url in
                                                  MockTokenReporter(url: url, intakeToken: intakeToken, activityIDAttribute: activityIDAttribute,
                                                                    log: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) })
                                              })
    // SIGINT / SIGTERM are caught since the command started (see StopSignals) and taken below.
    raiseDescriptorLimit()
    let server: MockAPNsServer
    do {
        server = try MockAPNsServer(configuration: configuration)
        try server.start()
    } catch let error as MockAPNsError {
        let line = error.description.replacingOccurrences(of: "\n", with: " ")
        // A port in use is the machine's state (exit 1); a bad --host, --tls-dir, --auth-key or --journal is a
        // usage error (exit 2, one line), as in every command.
        if case .socket = error {
            printError("activity-push mock-apns: \(line)")
            return 1
        }
        throw UsageError(.refused, line)
    }
    // Unbuffered writes: a script reading the first line must not wait for a buffer to fill.
    var banner = "mock-apns listening on \(server.baseURL)\n"
    if let ca = server.caCertificatePath { banner += "mock-apns ca \(URL(fileURLWithPath: ca).standardizedFileURL.path)\n" }
    if let journal { banner += "mock-apns journal \(journal)\n" }
    banner += "mock-apns provider tokens: \(authKey == nil ? "any bearer token accepted" : "ES256 verified")\n"
    FileHandle.standardOutput.write(Data(banner.utf8))
    if attributes.isEmpty {
        // Without the app's types the emulated device cannot see a wrong attributes-type or an unknown attribute
        // key, and would report such a start as `started`.
        printError("mock-apns: no --attributes: the emulated device judges APNs and payload-shape rules only, not the app's ActivityAttributes types (pass the app's .swift file or folder)")
    }

    let received = await StopSignals.next()
    server.stop()
    let count = server.requestCount
    printError("mock-apns: stopped on \(received == SIGINT ? "SIGINT" : "SIGTERM") after \(count) requests; \(server.statistics.summary)")
    return 0
}

/// Raises the soft descriptor limit to the hard one (at most 1 048 576): a soft limit of 1024, common on Linux,
/// would cap a load test at ~1000 connections. Past the limit the server backs off accepting (no spin).
private func raiseDescriptorLimit() {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return }
    let wanted = min(limit.rlim_max, 1 << 20)
    guard limit.rlim_cur < wanted else { return }
    limit.rlim_cur = wanted
    _ = setrlimit(resource, &limit)
}

/// `AuthKey_ABC123DEFG.p8` → `ABC123DEFG`.
private func keyIDFromFileName(_ path: String) -> String? {
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    guard name.hasPrefix("AuthKey_"), name.count > "AuthKey_".count else { return nil }
    return String(name.dropFirst("AuthKey_".count))
}

/// One line per request for the terminal: `POST /3/device/a1b2c3d4… 200 → device: rejected (code @ path) — liveactivitiesd: "…"`.
private func describe(_ entry: MockJournalEntry) -> String {
    var line = entry.method + " " + entry.path + " " + (entry.status == 0 ? "-" : String(entry.status))
    if let reason = entry.reason { line += " " + reason }
    if let fault = entry.fault { line += " [fault " + fault + "]" }
    guard let device = entry.device else { return line }
    line += " → device: " + device.outcome.rawValue
    var causes: [String] = []
    for cause in device.causes { causes.append(cause.path.map { cause.code + " @ " + $0 } ?? cause.code) }
    if !causes.isEmpty { line += " (" + causes.joined(separator: ", ") + ")" }
    if let log = device.logLine { line += " — liveactivitiesd: \"" + log + "\"" }
    if let token = device.activityToken { line += " — activity update token " + token }
    return line
}
