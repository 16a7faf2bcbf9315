import ActivityPushConsole
import ActivityPushCore
import ActivityPushMock
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `activity-push mock-apns …` — a local APNs that answers like Apple and journals what the device would do.
let mockAPNsCommand = Command(
    name: "mock-apns",
    summary: "run a local APNs (HTTP/2) that answers like Apple and says what the device would do",
    run: { argv in try runMockAPNs(argv) }
)

private func runMockAPNs(_ argv: [String]) throws -> Int32 {
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push mock-apns [--host 127.0.0.1] [--port N] [--h2c] [--tls-dir DIR] [--attributes PATH]...
                                       [--auth-key AuthKey_KEYID.p8 --team-id TEAM [--key-id KEYID] | --accept-any-token]
                                       [--journal FILE.ndjson] [--faults SPEC] [--max-concurrent-streams N]
                                       [--streams-before-token N] [--push-to-start-budget N]
                                       [--idle-timeout SECONDS] [--silent-after-idle SECONDS] [--quiet]
          --host        numeric address to bind (default 127.0.0.1; localhost means 127.0.0.1; no name lookup, as serve)
          --port        TCP port; 0 (default) picks a free one, printed on the first line
          --h2c         cleartext HTTP/2 with prior knowledge (curl --http2-prior-knowledge) instead of TLS
          --tls-dir     where ca.pem, server.pem, server-key.pem live; generated when absent (default .mock-apns-tls)
          --attributes  the app's .swift file or folder with its ActivityAttributes types, for device emulation (repeatable)
          --auth-key    verify ES256 provider tokens against this .p8 (kid from the file name AuthKey_KEYID.p8 or --key-id)
          --team-id     the iss every provider token must carry (with --auth-key)
          --accept-any-token  accept any non-empty bearer token (the default without --auth-key)
          --journal     append one NDJSON line per request to FILE
          --faults      inject faults: comma-separated ACTION[:WHEN], e.g. '429=30:next=2,503:share=10%,delay=200ms:all'
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
          --max-concurrent-streams  streams per connection after a valid provider token (default 1000)
          --streams-before-token    streams allowed before a valid token (default 1, as APNs; raise for h2load -m N)
          --push-to-start-budget    starts per push-to-start token per hour before the device refuses (default 10)
          --idle-timeout    close connections that sent nothing for SECONDS (GOAWAY IdleTimeout; default 300, 0: never)
          --silent-after-idle  never answer again on a connection whose request comes after SECONDS without any
                        frame (PING included), as APNs does to long-idle connections without PING (default: off)
          --quiet       do not print one line per request on standard error
          --report-tokens-to URL  play the app against `serve` at URL (http://127.0.0.1:8787): POST /_mock/devices/<id>
                        {"attributesType": "T"} makes a device's push-to-start token and posts it to URL/v1/tokens;
                        each start the device applies that asked input-push-token: 1 posts the activity's update token
          --intake-token-file PATH  the bearer for URL/v1/tokens (serve --intake-token; or env ACTIVITY_PUSH_INTAKE_TOKEN)
          --activity-id-attribute KEY  the aps.attributes key holding the activity id (default activityID)
        first stdout line: "mock-apns listening on <URL>"; with TLS the second: "mock-apns ca <path to ca.pem>".
        control: GET|DELETE /_mock/journal, GET /_mock/stats, GET|POST /_mock/faults (body: SPEC),
                 POST /_mock/unregister/<token>
        stops on SIGINT/SIGTERM and prints the request count and HTTP/2 counters (RST_STREAM received, GOAWAY sent,
        refused, drops before/after processing) on standard error.
        """)
        return 0
    }
    var arguments = try Arguments(argv, booleanFlags: ["--h2c", "--accept-any-token", "--quiet"])
    let host = arguments.value("--host") ?? "127.0.0.1"
    let port = try arguments.int("--port") ?? 0
    let h2c = arguments.flag("--h2c")
    let tlsDirGiven = arguments.value("--tls-dir")
    let tlsDir = tlsDirGiven ?? ".mock-apns-tls"
    let attributes = arguments.values("--attributes")
    let authKey = arguments.value("--auth-key")
    let teamID = arguments.value("--team-id")
    let keyIDFlag = arguments.value("--key-id")
    let acceptAny = arguments.flag("--accept-any-token")
    let journal = arguments.value("--journal")
    let faultSpec = arguments.value("--faults")
    let maxStreams = try arguments.int("--max-concurrent-streams") ?? 1000
    let budget = try arguments.int("--push-to-start-budget") ?? 10
    let streamsBefore = try arguments.int("--streams-before-token") ?? 1
    let quiet = arguments.flag("--quiet")
    let idleTimeout = try arguments.double("--idle-timeout") ?? 300
    let silentAfterIdle = try arguments.double("--silent-after-idle")
    let reportURL = arguments.value("--report-tokens-to")
    let intakeToken = try arguments.secret("--intake-token", environment: "ACTIVITY_PUSH_INTAKE_TOKEN")
    let activityIDAttribute = arguments.value("--activity-id-attribute") ?? "activityID"
    try arguments.finish()
    if let reportURL, !reportURL.hasPrefix("http://") {
        throw UsageError("--report-tokens-to must be the serve URL, http://HOST:PORT (e.g. http://127.0.0.1:8787)")
    }
    if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
    guard (0...65535).contains(port) else { throw UsageError("--port must be 0…65535, got \(port)") }
    // SETTINGS_MAX_CONCURRENT_STREAMS is a 32-bit value (RFC 9113 §6.5.2); times are bounded to a day so that
    // no conversion to milliseconds or an Int can overflow.
    let streamLimit = 1...Int(Int32.max)
    let secondsLimit = 86_400.0
    guard streamLimit.contains(maxStreams) else { throw UsageError("--max-concurrent-streams must be 1…\(Int32.max), got \(maxStreams)") }
    guard streamLimit.contains(streamsBefore) else { throw UsageError("--streams-before-token must be 1…\(Int32.max), got \(streamsBefore)") }
    guard budget >= 0 else { throw UsageError("--push-to-start-budget must be 0 or more") }
    guard idleTimeout >= 0, idleTimeout <= secondsLimit else {
        throw UsageError("--idle-timeout must be 0 (never) to \(Int(secondsLimit)) seconds, got \(idleTimeout)")
    }
    if let silentAfterIdle, !(silentAfterIdle > 0 && silentAfterIdle <= secondsLimit) {
        throw UsageError("--silent-after-idle must be more than 0 and at most \(Int(secondsLimit)) seconds, got \(silentAfterIdle)")
    }
    if h2c, tlsDirGiven != nil { throw UsageError("--tls-dir has no effect with --h2c; drop one of them") }

    var tokens = MockAPNsConfiguration.ProviderTokenPolicy.acceptAny
    if let authKey {
        guard !acceptAny else { throw UsageError("--auth-key and --accept-any-token exclude each other") }
        guard let teamID, !teamID.isEmpty else { throw UsageError("--auth-key needs --team-id TEAM (the iss of your provider tokens)") }
        guard let keyID = keyIDFlag ?? keyIDFromFileName(authKey) else {
            throw UsageError("cannot tell the key ID from '\(authKey)': name it AuthKey_<KEYID>.p8 or pass --key-id KEYID")
        }
        tokens = .verify(keyPath: authKey, keyID: keyID, teamID: teamID)
    } else if teamID != nil || keyIDFlag != nil {
        throw UsageError("--team-id and --key-id need --auth-key AuthKey_KEYID.p8")
    }
    var faults = MockFaultPlan()
    if let faultSpec {
        do { faults = try MockFaultPlan(spec: faultSpec) } catch { throw UsageError("--faults: \(error)") }
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
    // Block SIGINT/SIGTERM before the server thread starts (it inherits the mask); this thread waits for them.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)

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
        throw UsageError(line)
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

    var received: Int32 = 0
    sigwait(&signals, &received)
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
