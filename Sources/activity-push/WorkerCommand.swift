import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation
import Synchronization

/// `activity-push worker` — sends queued pushes with Apple's retry rules until stopped (SIGINT/SIGTERM finish
/// the current round), or with `--drain` until nothing is due or in flight. Exit 0; 1 when a `--drain` run
/// stops with pushes it could not deliver (dead-lettered — also unsent for a token APNs had marked inactive — or
/// whose last attempt APNs did not accept; each counted once, ``UndeliveredCount``); 2 on bad flags or a database /
/// key that cannot be opened. A `--drain` run that claims nothing while pushes are due for another `--env` /
/// `--credential` says so on stderr.
enum WorkerFlags {
    /// The worker's own defaults, shown in help.
    private static let defaults = WorkerOptions(environment: .sandbox, credential: "default",
                                                drain: false, policy: QueueRetryPolicy())
    static let drain = Flag("--drain", help: "exit once nothing is due or in flight (pushes waiting for a later retry stay queued)")
    static let drainWait = Option<Double>.decimal(
        "--drain-wait", help: "with --drain, also wait for retries due within this many seconds, and this long after\na Live Activity start for the update token that releases its held update or end",
        default: defaults.drainWaitSeconds)
    static let window = Option<Int>.integer("--window", help: "pushes in flight at once, refilled as answers arrive",
                                            default: defaults.window)
    /// The old name of `--window`.
    static let batch = Option<Int>.integer("--batch", help: "the old name of --window", hidden: true)
    static let connections = Option<Int>.integer("--connections", help: "HTTP/2 connections to APNs", default: 1)
    static let lease = Option<Double>.decimal(
        "--lease", help: "a claimed push returns to the queue this long after a crash", default: defaults.leaseSeconds)
    static let pushDeadline = Option<Double>.decimal(
        "--push-deadline", help: "each push's own deadline; no answer by then → delayed retry (≤ lease/3)",
        default: defaults.pushDeadlineSeconds)
    static let maxAttempts = Option<Int>.integer(
        "--max-attempts", help: "attempts before a retryable push is dead-lettered", default: defaults.policy.maxAttempts)
    static let serverErrorDelay = Option<Double>.decimal(
        "--server-error-delay", help: "500/503: retry no sooner than this (900 = Apple's 15 minutes)",
        default: defaults.policy.serverErrorDelaySeconds)
    static let databaseOutage = Option<Double>.decimal(
        "--database-outage", help: "ride out an unreachable or full database this long before giving up",
        default: defaults.databaseOutageSeconds)
    static let name = Option<String>("--name", valueName: "NAME", help: "worker name in the journal and leases",
                                     defaultText: "host-pid")
    static let format = Option<OutputFormat>.format([.text, .json], default: .text)
}

let workerCommand = Command(
    name: "worker",
    summary: "send queued pushes to APNs (or mock-apns) with Apple's retry rules; several may share PostgreSQL",
    synopsis: ["--auth-key AuthKey_KEYID.p8 [--key-id ID] --team-id TEAMID [--drain [--drain-wait S]] [options]"],
    groups: [OptionGroup(CommonOptions.database, CommonOptions.credential, WorkerFlags.drain, WorkerFlags.drainWait,
                         WorkerFlags.window, WorkerFlags.batch, WorkerFlags.connections, WorkerFlags.lease,
                         WorkerFlags.pushDeadline, WorkerFlags.maxAttempts, WorkerFlags.serverErrorDelay,
                         WorkerFlags.databaseOutage, WorkerFlags.name, WorkerFlags.format),
             APNsConnectionOptions.group],
    notes: """
    --env picks which queued pushes to send (their --env at enqueue) and the APNs host; SIGINT / SIGTERM stop
    claiming, finish the pushes in flight, record them and exit.
    exit: 0; 1 when a --drain run stops with pushes it could not deliver (dead-lettered, also unsent for a token
    APNs had marked inactive, or whose last attempt APNs did not accept; each push counted once); 2 bad flags, or
    a database / key that cannot be opened. A --drain run that claims nothing while pushes are due for another
    --env / --credential names them on stderr.
    Retry rules (Apple's table, first match wins → what the queue does):
    \(QueueRetryPolicy().tableLines().joined(separator: "\n"))
    """,
    stopsOnSignals: true
) { arguments in
    let database = try arguments.value(CommonOptions.database)
    let connection = try APNsConnectionOptions(arguments)
    let env = connection.environment
    let envName = connection.namedEnvironment.name
    try connection.requireCredentials()
    var policy = QueueRetryPolicy()
    if let maxAttempts = try arguments.value(WorkerFlags.maxAttempts) {
        guard maxAttempts >= 1 else { throw UsageError(.badValue, option: "--max-attempts", "--max-attempts must be at least 1") }
        policy.maxAttempts = maxAttempts
    }
    if let delay = try arguments.value(WorkerFlags.serverErrorDelay) {
        guard delay >= 0 else { throw UsageError(.badValue, option: "--server-error-delay", "--server-error-delay must not be negative") }
        policy.serverErrorDelaySeconds = delay
    }
    var options = WorkerOptions(environment: connection.namedEnvironment, credential: try arguments.defaultedValue(CommonOptions.credential),
                                drain: arguments.isSet(WorkerFlags.drain), policy: policy)
    if let name = try arguments.value(WorkerFlags.name) { options.name = name }
    for flag in [WorkerFlags.batch, WorkerFlags.window] where arguments.isGiven(flag) {
        if let window = try arguments.value(flag) {
            guard (1...100_000).contains(window) else { throw UsageError(.badValue, option: flag.spec.name, "\(flag.spec.name) must be between 1 and 100000") }
            options.window = window
        }
    }
    if let lease = try arguments.value(WorkerFlags.lease) {
        guard lease > 0 else { throw UsageError(.badValue, option: "--lease", "--lease must be positive seconds") }
        options.leaseSeconds = lease
    }
    if let deadline = try arguments.value(WorkerFlags.pushDeadline) {
        guard deadline > 0 else { throw UsageError(.badValue, option: "--push-deadline", "--push-deadline must be positive seconds") }
        options.pushDeadlineSeconds = deadline
    }
    if let outage = try arguments.value(WorkerFlags.databaseOutage) {
        guard outage >= 0 else { throw UsageError(.badValue, option: "--database-outage", "--database-outage must not be negative") }
        options.databaseOutageSeconds = outage
    }
    if let drainWait = try arguments.value(WorkerFlags.drainWait) {
        guard drainWait >= 0 else { throw UsageError(.badValue, option: "--drain-wait", "--drain-wait must not be negative") }
        options.drainWaitSeconds = drainWait
    }
    let connections = try arguments.defaultedValue(WorkerFlags.connections)
    let format = try arguments.defaultedValue(WorkerFlags.format)

    let token = try connection.providerToken()
    let outbox: Outbox
    do { outbox = try Outbox.open(database: database) } catch { throw UsageError(refused: error, option: "--database") }
    let client = try APNsClient(environment: env, token: token,
                                transport: HTTP2TransportConfiguration(caFile: connection.caFile, connections: max(1, connections),
                                                                       requestTimeoutSeconds: options.effectivePushDeadlineSeconds))
    // With --drain, every answer is tallied by apns-id, so the exit status can say whether anything stayed undelivered.
    let tally = options.drain ? DeliveryTally(sender: APNsPushSender(client: client)) : nil
    let worker = QueueWorker(store: outbox.store, sender: tally.map { $0 as any PushSender } ?? APNsPushSender(client: client),
                             options: options, log: { printError("worker: " + $0) })

    // SIGINT / SIGTERM (caught since the start, see StopSignals): stop claiming, finish the pushes in flight,
    // record them, exit.
    StopSignals.onEach { _ in worker.stop() }
    if format == .text {
        printError("worker \(options.name): \(outbox.store.location), env \(envName) → \(env.deviceURL), credential \(options.credential)"
                   + (options.drain ? ", draining" : ""))
    }
    let result: Result<WorkerSummary, QueueError>
    do { result = .success(try await worker.run()) } catch { result = .failure(error as? QueueError ?? QueueError("\(error)")) }
    await client.shutdown()
    // Claimed nothing: say when the due pushes belong to another --env / --credential (read before closing).
    var idleHint: String?
    if options.drain, case .success(let summary) = result, summary.claimed == 0,
       let status = try? outbox.store.status(nowUnixSeconds: Date().timeIntervalSince1970) {
        idleHint = status.hintForIdleWorker(environment: options.environment.name, credential: options.credential)
    }
    outbox.store.close()
    switch result {
    case .failure(let error):
        printError("activity-push worker: \(error.description)")
        return 2
    case .success(let summary):
        if options.drain, let queued = summary.leftQueued {
            printError("worker: drained; \(queued + summary.dead) pushes left undelivered (\(queued) still queued for a later retry "
                       + "or in flight at another worker, \(summary.dead) dead-lettered by this run)")
        }
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: (try? encoder.encode(summary)) ?? Data(), as: UTF8.self))
        } else {
            print("worker \(options.name): claimed \(summary.claimed), sent \(summary.sent), retry later \(summary.retried), "
                  + "refused \(summary.refused), may have been processed \(summary.mayHaveBeenProcessed), dead \(summary.dead) "
                  + "(not sent \(summary.notSent)), token inactive \(summary.tokenInactive), released \(summary.released); \(summary.rounds) claims, "
                  + "\(summary.recordBatches) record batches")
        }
        if options.drain, summary.claimed == 0, let hint = idleHint {
            printError("activity-push worker: claimed nothing: \(hint)")
        }
        // A push this worker could not deliver may have been delivered by another worker since (its retry was
        // claimed there): it counts only while pushes are still queued when this run ends.
        let notAccepted = (summary.leftQueued ?? 1) > 0 ? tally?.notAcceptedAtLastAttempt ?? 0 : 0
        let undelivered = UndeliveredCount(summary: summary, notAcceptedAtLastAttempt: notAccepted)
        guard undelivered.total > 0 else { return 0 }
        printError("activity-push worker: --drain stopped with pushes it could not deliver: \(undelivered.description); "
                   + "see `queue status` and `queue dead`")
        return 1
    }
}

/// A ``PushSender`` that passes every push on and keeps, per `apns-id` (one per push, the same on each retry),
/// whether its last answer was a 2xx — so that `worker --drain` can tell a push retried and then delivered from
/// one left undelivered.
final class DeliveryTally: PushSender {
    private let sender: any PushSender
    private let acceptedByPush = Mutex<[String: Bool]>([:])

    init(sender: any PushSender) { self.sender = sender }

    func send(_ request: PushRequest, to target: String) async -> APNsResult {
        let result = await sender.send(request, to: target)
        var accepted = false
        if case .response(let response) = result { accepted = response.isSuccess }
        let key = (request.headers.apnsID ?? "") + " " + target
        acceptedByPush.withLock { $0[key] = accepted }
        return result
    }

    func refreshCredentials() async { await sender.refreshCredentials() }

    /// Pushes whose last attempt got no 2xx answer.
    var notAcceptedAtLastAttempt: Int {
        acceptedByPush.withLock { tally in tally.values.filter { !$0 }.count }
    }
}
