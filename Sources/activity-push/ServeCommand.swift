import ActivityPushAPNs
import ActivityPushConsole
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push serve` — the admin test console (page + JSON API) on libmicrohttpd. Runs until SIGINT/SIGTERM.
enum ServeOptions {
    static let host = Option<String>(
        "--host", valueName: "ADDR", help: "numeric address to bind; any non-loopback address needs an API token",
        default: "127.0.0.1")
    static let port = Option<Int>.integer("--port", help: "TCP port (0 picks a free one — the bound URL is printed)", default: 8787)
    static let database = Option<String>(
        "--database", valueName: "D", help: "queue for POST /v1/enqueue: a SQLite path, sqlite:PATH or postgres://… URL")
    static let apiToken = Option<String>(
        "--api-token", valueName: "TOKEN", help: "the API token itself (shows it to every user in `ps`; prefer --api-token-file)",
        environment: "ACTIVITY_PUSH_API_TOKEN")
    static let apiTokenFile = Option<String>(
        "--api-token-file", valueName: "PATH",
        help: "require Authorization: Bearer TOKEN on every request, TOKEN being the file's first line")
    static let strict = Flag("--strict", help: "unknown content-state keys are errors in the page's checks")
    static let intakeToken = Option<String>(
        "--intake-token", valueName: "TOKEN", help: "the intake token itself (shows it in `ps`; prefer --intake-token-file)",
        environment: "ACTIVITY_PUSH_INTAKE_TOKEN")
    static let intakeTokenFile = Option<String>(
        "--intake-token-file", valueName: "PATH",
        help: "the bearer the app sends to POST /v1/tokens (the file's first line); without it a loopback serve\n"
            + "leaves the route open like its others")
}

let serveCommand = Command(
    name: "serve",
    summary: "admin test console and HTTP API: build, check, send and enqueue pushes from a browser",
    groups: [OptionGroup(ServeOptions.host, ServeOptions.port, CommonOptions.attributes,
                         CommonOptions.bundleID(), ServeOptions.database, ServeOptions.apiTokenFile,
                         ServeOptions.apiToken, ServeOptions.strict),
             OptionGroup("Live Activity lifecycle (with --database: /v1/tokens, /v1/activities)",
                         [ServeOptions.intakeTokenFile, ServeOptions.intakeToken, ActivitiesOptions.pushToStartBudget,
                          ActivitiesOptions.priority10Budget]),
             APNsConnectionOptions.group],
    notes: """
    --auth-key enables POST /v1/send (the key is never shown by the API); with --url (e.g. mock-apns) the page
    shows the mock's device outcome for each send.
    prints the bound URL on the first line of standard output; stops cleanly on SIGINT or SIGTERM.
    """,
    stopsOnSignals: true
) { arguments in
    let host = try arguments.defaultedValue(ServeOptions.host)
    let port = try arguments.defaultedValue(ServeOptions.port)
    let schema = try CommonOptions.schema(arguments)
    // Checked now, its warning printed with the banner (a refused command line stays one line).
    let givenBundleID = try CommonOptions.checkedBundleID(arguments)
    let bundleID = givenBundleID ?? CommonOptions.placeholderBundleID
    let connection = try APNsConnectionOptions(arguments)
    let database = try arguments.value(ServeOptions.database)
    let apiToken = try arguments.secret(ServeOptions.apiToken, file: ServeOptions.apiTokenFile)
    let strict = arguments.isSet(ServeOptions.strict)
    let intakeToken = try arguments.secret(ServeOptions.intakeToken, file: ServeOptions.intakeTokenFile)
    let budgets = try ActivitiesCommandSupport.budgets(arguments)
    try arguments.expectNoPositionals()
    let environment = connection.environment
    let envName = connection.namedEnvironment.name
    let url = connection.serverURL

    var client: APNsClient?
    if let token = try connection.optionalProviderToken() {
        if let warning = token.keyFileWarning { printError("activity-push serve: warning: \(warning)") }
        client = try APNsClient(environment: environment, token: token,
                                transport: HTTP2TransportConfiguration(caFile: connection.caFile))
    }
    var outbox: Outbox?
    if let database {
        do { outbox = try Outbox.open(database: database) } catch { throw UsageError(.refused, option: "--database", "--database: \(error)") }
    }

    let configuration = ConsoleConfiguration(
        schema: schema, bundleID: bundleID, environment: environment, queueEnvironment: connection.namedEnvironment,
        apiToken: (apiToken?.isEmpty ?? true) ? nil : apiToken, intakeToken: intakeToken, readMockJournal: url != nil, strict: strict)
    let activities = try outbox.map { outbox in
        try ActivitiesCommandSupport.service(outbox, bundleID: bundleID, environment: connection.namedEnvironment, schema: schema, budgets: budgets)
    }
    let api = ConsoleAPI(configuration: configuration, client: client, outbox: outbox, activities: activities)
    // SIGINT / SIGTERM are caught since the command started (see StopSignals), so a signal sent the moment the
    // URL is printed is kept for the wait below instead of being lost (handlers installed after the banner once
    // let a quick SIGTERM go unanswered, and the server never stopped).
    let server: ConsoleServer
    do { server = try ConsoleServer(host: host, port: port, api: api) } catch { throw UsageError(refused: error, option: (error as? HTTPServerError)?.option) }

    // The URL alone on the first line, written straight to the file descriptor so a pipe sees it at once.
    FileHandle.standardOutput.write(Data((server.url + "\n").utf8))
    printError("activity-push serve: console at \(server.url)/ (types: \(schema?.types.map(\.name).joined(separator: ", ") ?? "none, give --attributes"); "
               + "send: \(client != nil ? environment.name : "off, give --auth-key"); enqueue: \(outbox != nil ? "on" : "off, give --database")"
               + "\(configuration.apiToken != nil ? "; API token required" : ""))")
    if givenBundleID == nil { CommonOptions.warnPlaceholderBundleID(command: "serve") }

    // Wait for SIGINT / SIGTERM, then shut down in order.
    _ = await StopSignals.next()
    await server.shutdown()
    printError("activity-push serve: stopped")
    return 0
}
