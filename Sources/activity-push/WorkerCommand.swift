import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// `activity-push worker` — sends queued pushes with Apple's retry rules until stopped (SIGINT/SIGTERM finish
/// the current round), or with `--drain` until nothing is due or in flight. Exit 0, or 2 on bad flags or a
/// database / key that cannot be opened.
let workerCommand = Command(
    name: "worker",
    summary: "send queued pushes to APNs (or mock-apns) with Apple's retry rules; several may share PostgreSQL"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        let helpPolicy = QueueRetryPolicy()
        print("""
        usage: activity-push worker [--database DB] [--env sandbox|production] [--url URL] [--ca-file PEM]
                                    --auth-key AuthKey_KEYID.p8 [--key-id ID] --team-id TEAMID [--drain [--drain-wait S]]
                                    [--credential NAME] [--name NAME] [--window N] [--lease SECONDS] [--push-deadline S]
                                    [--max-attempts N] [--server-error-delay SECONDS] [--connections N]
                                    [--format text|json]
          --database DB          as for `queue` (postgres://… or a SQLite file; default ./activity-push-queue.sqlite)
          --env NAME             which queued pushes to send (their --env at enqueue) and which APNs host (default sandbox)
          --url URL              send to this server instead (https://…, or http://… for cleartext HTTP/2, e.g. mock-apns)
          --ca-file PEM          trust this CA (the one mock-apns prints)
          --auth-key PATH        Apple's .p8 key; Key ID from the file name AuthKey_<KeyID>.p8 or --key-id (or env ACTIVITY_PUSH_AUTH_KEY)
          --team-id ID           your 10-character Team ID
          --credential NAME      send only pushes queued with this --credential (default "default")
          --drain                exit once nothing is due or in flight (pushes waiting for a later retry stay queued)
          --drain-wait SECONDS   with --drain, also wait for retries due within this many seconds (default 0)
          --window N             pushes in flight at once, refilled as answers arrive (default 500; --batch is the old name)
          --connections N        HTTP/2 connections to APNs (default 1)
          --lease SECONDS        a claimed push returns to the queue this long after a crash (default 60)
          --push-deadline S      each push's own deadline; no answer by then → delayed retry (default 10, ≤ lease/3)
          --max-attempts N       attempts before a retryable push is dead-lettered (default 8)
          --server-error-delay S 500/503: retry no sooner than this (default 900 = Apple's 15 minutes)
          --database-outage S    ride out an unreachable or full database this long before giving up (default 120)
          --name NAME            worker name in the journal and leases (default host-pid)
        Retry rules (Apple's table, first match wins → what the queue does):
        \(helpPolicy.tableLines().joined(separator: "\n"))
        """)
        return 0
    }
    var a = try Arguments(argv, booleanFlags: ["--drain"])
    let database = a.value("--database")
    let envName = a.value("--env") ?? "sandbox"
    var env: APNsEnvironment
    switch envName {
    case "sandbox": env = .sandbox
    case "production": env = .production
    default:
        guard a.value("--url") != nil else { throw UsageError("--env must be sandbox or production (or give --url with any --env label)") }
        env = .sandbox
    }
    if let url = try a.serverURL() { env = .custom(url) }
    let caFile = a.value("--ca-file")
    if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw UsageError("\(caFile): cannot read the CA file") }
    guard let keyPath = a.value("--auth-key", environment: "ACTIVITY_PUSH_AUTH_KEY") else { throw UsageError("--auth-key AuthKey_KEYID.p8 (or env ACTIVITY_PUSH_AUTH_KEY) is required (token auth)") }
    let fileName = (keyPath as NSString).lastPathComponent
    var keyID = a.value("--key-id")
    if keyID == nil, fileName.hasPrefix("AuthKey_"), fileName.hasSuffix(".p8") { keyID = String(fileName.dropFirst(8).dropLast(3)) }
    guard let keyID else { throw UsageError("--key-id is required when the key file is not named AuthKey_<KeyID>.p8") }
    guard let teamID = a.value("--team-id") else { throw UsageError("--team-id is required (10 characters, Membership details)") }
    var policy = QueueRetryPolicy()
    if let n = try a.int("--max-attempts") {
        guard n >= 1 else { throw UsageError("--max-attempts must be at least 1") }
        policy.maxAttempts = n
    }
    if let d = try a.double("--server-error-delay") {
        guard d >= 0 else { throw UsageError("--server-error-delay must not be negative") }
        policy.serverErrorDelaySeconds = d
    }
    var options = WorkerOptions(environment: envName, credential: a.value("--credential") ?? "default",
                                drain: a.flag("--drain"), policy: policy)
    if let n = a.value("--name") { options.name = n }
    for flag in ["--batch", "--window"] {
        if let window = try a.int(flag) {
            guard (1...100_000).contains(window) else { throw UsageError("\(flag) must be between 1 and 100000") }
            options.window = window
        }
    }
    if let l = try a.double("--lease") {
        guard l > 0 else { throw UsageError("--lease must be positive seconds") }
        options.leaseSeconds = l
    }
    if let deadline = try a.double("--push-deadline") {
        guard deadline > 0 else { throw UsageError("--push-deadline must be positive seconds") }
        options.pushDeadlineSeconds = deadline
    }
    if let outage = try a.double("--database-outage") {
        guard outage >= 0 else { throw UsageError("--database-outage must not be negative") }
        options.databaseOutageSeconds = outage
    }
    if let w = try a.double("--drain-wait") {
        guard w >= 0 else { throw UsageError("--drain-wait must not be negative") }
        options.drainWaitSeconds = w
    }
    let connections = try a.int("--connections") ?? 1
    let format = a.value("--format") ?? "text"
    guard format == "text" || format == "json" else { throw UsageError("--format must be text or json") }
    try a.finish()

    let token: ProviderToken
    do { token = try ProviderToken(keyFile: keyPath, keyID: keyID, teamID: teamID) } catch { throw UsageError("\(error)") }
    let outbox: Outbox
    do { outbox = try Outbox.open(database: database) } catch { throw UsageError("\(error)") }
    let client = try APNsClient(environment: env, token: token,
                                transport: HTTP2TransportConfiguration(caFile: caFile, connections: max(1, connections),
                                                                       requestTimeoutSeconds: options.effectivePushDeadlineSeconds))
    let worker = QueueWorker(store: outbox.store, sender: APNsPushSender(client: client), options: options,
                             log: { printError("worker: " + $0) })

    // A peer that closes its socket (APNs after an abrupt GOAWAY, PostgreSQL shutting down) must turn into an
    // error on that write, not kill the worker with SIGPIPE and lose the answers it holds.
    signal(SIGPIPE, SIG_IGN)
    // SIGINT / SIGTERM: stop claiming, finish the pushes in flight, record them, exit.
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
        let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        s.setEventHandler { worker.stop() }
        s.resume()
        return s
    }
    if format == "text" {
        printError("worker \(options.name): \(outbox.store.location), env \(envName) → \(env.deviceURL), credential \(options.credential)"
                   + (options.drain ? ", draining" : ""))
    }
    let result: Result<WorkerSummary, QueueError> = workerAwait {
        do { return .success(try await worker.run()) } catch { return .failure(error as? QueueError ?? QueueError("\(error)")) }
    }
    workerAwait { await client.shutdown() }
    sources.forEach { $0.cancel() }
    outbox.store.close()
    switch result {
    case .failure(let e):
        printError("activity-push worker: \(e.description)")
        return 2
    case .success(let s):
        if options.drain, let queued = s.leftQueued {
            printError("worker: drained; \(queued + s.dead) pushes left undelivered (\(queued) still queued for a later retry "
                       + "or in flight at another worker, \(s.dead) dead-lettered by this run)")
        }
        if format == "json" {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: (try? e.encode(s)) ?? Data(), as: UTF8.self))
        } else {
            print("worker \(options.name): claimed \(s.claimed), sent \(s.sent), retry later \(s.retried), refused \(s.refused), "
                  + "may have been processed \(s.mayHaveBeenProcessed), dead \(s.dead) (not sent \(s.notSent)), "
                  + "released \(s.released); \(s.rounds) claims, \(s.recordBatches) record batches")
        }
        return 0
    }
}

/// Runs async work from the synchronous command and waits for it (the command runs outside any task).
private final class WorkerAwaitBox<T>: @unchecked Sendable { var value: T? }  // written once, read after the semaphore

private func workerAwait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = WorkerAwaitBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}
