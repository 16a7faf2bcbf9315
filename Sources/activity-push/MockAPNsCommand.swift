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
                                       [--streams-before-token N] [--push-to-start-budget N] [--quiet]
          --host        address to bind (default 127.0.0.1)
          --port        TCP port; 0 (default) picks a free one, printed on the first line
          --h2c         cleartext HTTP/2 with prior knowledge (curl --http2-prior-knowledge) instead of TLS
          --tls-dir     where ca.pem, server.pem, server-key.pem live; generated when absent (default .mock-apns-tls)
          --attributes  the app's .swift file or folder with its ActivityAttributes types, for device emulation (repeatable)
          --auth-key    verify ES256 provider tokens against this .p8 (kid from the file name AuthKey_KEYID.p8 or --key-id)
          --team-id     the iss every provider token must carry (with --auth-key)
          --accept-any-token  accept any non-empty bearer token (the default without --auth-key)
          --journal     append one NDJSON line per request to FILE
          --faults      inject faults, e.g. '429=30:next=2,503:share=10%,delay=200ms:all,goaway:next=1,drop:next=1'
                        (ACTION[:WHEN]; ACTION 429[=RETRY_AFTER_S]|500|503|delay=MS|goaway|drop; WHEN next=N|share=P|all)
          --max-concurrent-streams  streams per connection after a valid provider token (default 1000)
          --streams-before-token    streams allowed before a valid token (default 1, as APNs; raise for h2load -m N)
          --push-to-start-budget    starts per push-to-start token per hour before the device refuses (default 10)
          --quiet       do not print one line per request on standard error
        first stdout line: "mock-apns listening on <URL>"; with TLS the second: "mock-apns ca <path to ca.pem>".
        control: GET|DELETE /_mock/journal, GET|POST /_mock/faults (body: SPEC), POST /_mock/unregister/<token>
        stops on SIGINT/SIGTERM.
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--h2c", "--accept-any-token", "--quiet"])
    let host = a.value("--host") ?? "127.0.0.1"
    let port = try a.int("--port") ?? 0
    let h2c = a.flag("--h2c")
    let tlsDirGiven = a.value("--tls-dir")
    let tlsDir = tlsDirGiven ?? ".mock-apns-tls"
    let attributes = a.values("--attributes")
    let authKey = a.value("--auth-key")
    let teamID = a.value("--team-id")
    let keyIDFlag = a.value("--key-id")
    let acceptAny = a.flag("--accept-any-token")
    let journal = a.value("--journal")
    let faultSpec = a.value("--faults")
    let maxStreams = try a.int("--max-concurrent-streams") ?? 1000
    let budget = try a.int("--push-to-start-budget") ?? 10
    let streamsBefore = try a.int("--streams-before-token") ?? 1
    let quiet = a.flag("--quiet")
    try a.finish()
    if let extra = a.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
    // Numeric only, as for serve: a name would be resolved (and could bind an unexpected address).
    guard HTTPServer.isNumeric(host) else {
        throw UsageError("--host '\(host)' is not a numeric IP address; use e.g. 127.0.0.1, ::1 or 0.0.0.0")
    }
    guard (0...65535).contains(port) else { throw UsageError("--port must be 0…65535, got \(port)") }
    guard maxStreams >= 1 else { throw UsageError("--max-concurrent-streams must be at least 1") }
    guard streamsBefore >= 1 else { throw UsageError("--streams-before-token must be at least 1") }
    guard budget >= 0 else { throw UsageError("--push-to-start-budget must be 0 or more") }
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
                                              pushToStartBudget: budget, onRequest: onRequest)
    // Block SIGINT/SIGTERM before the server thread starts (it inherits the mask); this thread waits for them.
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)

    let server: MockAPNsServer
    do {
        server = try MockAPNsServer(configuration: configuration)
        try server.start()
    } catch let e as MockAPNsError {
        // A bad --host, --tls-dir, --auth-key or --journal, or a busy port: the operator's to fix, so exit 2
        // with one line like every other usage error.
        throw UsageError("\(e)")
    }
    // Unbuffered writes: a script reading the first line must not wait for a buffer to fill.
    var banner = "mock-apns listening on \(server.baseURL)\n"
    if let ca = server.caCertificatePath { banner += "mock-apns ca \(URL(fileURLWithPath: ca).standardizedFileURL.path)\n" }
    if let journal { banner += "mock-apns journal \(journal)\n" }
    banner += "mock-apns provider tokens: \(authKey == nil ? "any bearer token accepted" : "ES256 verified")\n"
    FileHandle.standardOutput.write(Data(banner.utf8))

    var received: Int32 = 0
    sigwait(&signals, &received)
    server.stop()
    let count = server.requestCount
    printError("mock-apns: stopped on \(received == SIGINT ? "SIGINT" : "SIGTERM") after \(count) requests")
    return 0
}

/// `AuthKey_ABC123DEFG.p8` → `ABC123DEFG`.
private func keyIDFromFileName(_ path: String) -> String? {
    let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    guard name.hasPrefix("AuthKey_"), name.count > "AuthKey_".count else { return nil }
    return String(name.dropFirst("AuthKey_".count))
}

/// One line per request for the terminal: `POST /3/device/a1b2c3d4… 200 → device: rejected (code @ path) — liveactivitiesd: "…"`.
private func describe(_ e: MockJournalEntry) -> String {
    var line = e.method + " " + e.path + " " + (e.status == 0 ? "-" : String(e.status))
    if let r = e.reason { line += " " + r }
    if let f = e.fault { line += " [fault " + f + "]" }
    guard let d = e.device else { return line }
    line += " → device: " + d.outcome.rawValue
    var causes: [String] = []
    for c in d.causes { causes.append(c.path.map { c.code + " @ " + $0 } ?? c.code) }
    if !causes.isEmpty { line += " (" + causes.joined(separator: ", ") + ")" }
    if let log = d.logLine { line += " — liveactivitiesd: \"" + log + "\"" }
    if let t = d.activityToken { line += " — activity update token " + t }
    return line
}
