import ActivityPushAPNs
import ActivityPushConsole
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push serve` — the admin test console (page + JSON API) on libmicrohttpd. Runs until SIGINT/SIGTERM.
let serveCommand = Command(
    name: "serve",
    summary: "admin test console and HTTP API: build, check, send and enqueue pushes from a browser"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push serve [--host 127.0.0.1] [--port 8787] [--attributes PATH]... [--bundle-id ID]
                                   [--auth-key AuthKey_KEYID.p8 [--key-id ID] --team-id TEAM]
                                   [--env sandbox|production | --url URL [--ca-file PEM]]
                                   [--database PATH|postgres://…] [--api-token-file PATH] [--strict]
          --host ADDR          numeric address to bind (default 127.0.0.1); any non-loopback address needs an API token
          --port N             TCP port (default 8787; 0 picks a free one — the bound URL is printed)
          --attributes PATH    the app's .swift file or folder declaring its ActivityAttributes types (repeatable)
          --bundle-id ID       app bundle id; apns-topic is ID.push-type.liveactivity (default com.example.app)
          --auth-key PATH      Apple's .p8 key (token auth) — enables POST /v1/send; never shown by the API
                               (or env ACTIVITY_PUSH_AUTH_KEY)
          --key-id ID          Key ID when the file is not named AuthKey_<KeyID>.p8
          --team-id ID         your Team ID
          --env sandbox|production   APNs environment (default sandbox)
          --url URL            send to this server instead (e.g. mock-apns: http://127.0.0.1:PORT with --h2c);
                               the page then shows the mock's device outcome for each send
          --ca-file PEM        trust this CA for --url (mock-apns over TLS)
          --database D         queue for POST /v1/enqueue: a SQLite path, sqlite:PATH or postgres://… URL
          --api-token-file PATH  require Authorization: Bearer TOKEN on every request, TOKEN being the file's
                               first line (or env ACTIVITY_PUSH_API_TOKEN; --api-token TOKEN also works but
                               shows the token to every user in `ps`)
          --strict             unknown content-state keys are errors in the page's checks
          --intake-token-file PATH  the bearer the app sends to POST /v1/tokens (first line; or env
                               ACTIVITY_PUSH_INTAKE_TOKEN; --intake-token TOKEN also works); without it a
                               loopback serve leaves the route open like its others
          --push-to-start-budget N   starts per push-to-start token per hour (default 10); more wait
          --priority-10-budget N     priority-10 updates per activity per hour (default 60); more go at 5
        with --database, /v1/tokens and /v1/activities run the Live Activity lifecycle (see README).
        prints the bound URL on the first line of standard output; stops cleanly on SIGINT or SIGTERM.
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--strict"])
    let host = a.value("--host") ?? "127.0.0.1"
    let port = try a.int("--port") ?? 8787
    let schema = try Inputs.schema(a.values("--attributes"))
    let bundleID = a.value("--bundle-id") ?? "com.example.app"
    let keyPath = a.value("--auth-key", environment: "ACTIVITY_PUSH_AUTH_KEY")
    var keyID = a.value("--key-id")
    let teamID = a.value("--team-id")
    let envName = a.value("--env") ?? "sandbox"
    let url = try a.serverURL()
    let caFile = a.value("--ca-file")
    let database = a.value("--database")
    let apiToken = try a.secret("--api-token", environment: "ACTIVITY_PUSH_API_TOKEN")
    let strict = a.flag("--strict")
    let intakeToken = try a.secret("--intake-token", environment: "ACTIVITY_PUSH_INTAKE_TOKEN")
    let budgets = try ActivitiesCommandSupport.budgets(&a)
    try a.finish()
    if let p = a.positionals.first { throw UsageError("unexpected argument '\(p)'") }
    guard envName == "sandbox" || envName == "production" else { throw UsageError("--env must be sandbox or production") }

    var environment: APNsEnvironment = envName == "production" ? .production : .sandbox
    if let url {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw UsageError("--url must start with https:// or http://") }
        environment = .custom(url)
    }
    if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw UsageError("\(caFile): cannot read the CA file") }

    var client: APNsClient?
    if let keyPath {
        let fileName = (keyPath as NSString).lastPathComponent
        if keyID == nil, fileName.hasPrefix("AuthKey_"), fileName.hasSuffix(".p8") { keyID = String(fileName.dropFirst(8).dropLast(3)) }
        guard let keyID else { throw UsageError("--key-id is required when the key file is not named AuthKey_<KeyID>.p8") }
        guard let teamID else { throw UsageError("--team-id is required with --auth-key") }
        let token: ProviderToken
        do { token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID) } catch { throw UsageError("\(error)") }
        if let w = token.keyFileWarning { printError("activity-push serve: warning: \(w)") }
        client = try APNsClient(environment: environment, token: token, transport: HTTP2TransportConfiguration(caFile: caFile))
    } else if teamID != nil || keyID != nil {
        throw UsageError("--team-id and --key-id need --auth-key")
    }
    var outbox: Outbox?
    if let database {
        do { outbox = try Outbox.open(database: database) } catch { throw UsageError("--database: \(error)") }
    }

    let configuration = ConsoleConfiguration(
        schema: schema, bundleID: bundleID, environmentName: url ?? envName, queueEnvironment: envName,
        apiToken: (apiToken?.isEmpty ?? true) ? nil : apiToken, intakeToken: intakeToken, readMockJournal: url != nil, strict: strict)
    let activities = try outbox.map { try ActivitiesCommandSupport.service($0, bundleID: bundleID, environment: envName, schema: schema, budgets: budgets) }
    let api = ConsoleAPI(configuration: configuration, client: client, outbox: outbox, activities: activities)
    // SIGINT / SIGTERM are blocked before the server's threads start (they inherit the mask) and taken with
    // sigwait below, so a signal sent the moment the URL is printed stays pending instead of being lost (handlers
    // installed after the banner once let a quick SIGTERM go unanswered, and the server never stopped).
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    let server: ConsoleServer
    do { server = try ConsoleServer(host: host, port: port, api: api) } catch { throw UsageError("\(error)") }

    // The URL alone on the first line, written straight to the file descriptor so a pipe sees it at once.
    FileHandle.standardOutput.write(Data((server.url + "\n").utf8))
    printError("activity-push serve: console at \(server.url)/ (types: \(schema?.types.map(\.name).joined(separator: ", ") ?? "none, give --attributes"); "
               + "send: \(client != nil ? environment.name : "off, give --auth-key"); enqueue: \(outbox != nil ? "on" : "off, give --database")"
               + "\(configuration.apiToken != nil ? "; API token required" : ""))")

    // Wait for SIGINT / SIGTERM, then shut down in order.
    var received: Int32 = 0
    sigwait(&signals, &received)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await server.shutdown()
        done.signal()
    }
    done.wait()
    printError("activity-push serve: stopped")
    return 0
}
