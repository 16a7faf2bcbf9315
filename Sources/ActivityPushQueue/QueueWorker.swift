import ActivityPushAPNs
import ActivityPushCore
import Foundation
import Synchronization

/// Settings of one worker.
public struct WorkerOptions: Sendable, Hashable {
    /// Worker name, recorded as the lease owner and in the journal. Default `<host>-<pid>`.
    public var name: String
    /// Claims only pushes enqueued for this environment (`sandbox`, `production`).
    public var environment: String
    /// Claims only pushes enqueued for this credential name.
    public var credential: String
    /// Pushes in flight at once (the window; refilled as answers arrive). Match it to the client's capacity,
    /// connections × streams per connection. Default 500.
    public var window: Int
    /// A claimed push returns to the queue this long after the claim if the worker has not answered (crash).
    /// Must exceed the push deadline several times over. Default 60 s.
    public var leaseSeconds: Double
    /// Each push's own deadline (the client's request timeout): an answer not in by then is a "may have been
    /// processed" timeout, which goes to a delayed retry. Default 10 s; at most a third of the lease.
    public var pushDeadlineSeconds: Double
    /// Answers recorded per database transaction, at most (they are also recorded after `recordDelaySeconds`
    /// or when nothing is in flight). Default 256.
    public var recordBatchSize: Int
    /// Longest an answer waits in memory before it is recorded. Default 0.02 s.
    public var recordDelaySeconds: Double
    /// Longest wait when nothing is due (PostgreSQL wakes the worker earlier on an enqueue). Default 0.2 s.
    public var pollIntervalSeconds: Double
    /// How long the worker rides out a database it cannot reach or write (reconnecting with backoff, keeping
    /// its answers) before it gives up with an error. Default 120 s.
    public var databaseOutageSeconds: Double
    /// Exit once nothing is due or in flight (instead of waiting for more).
    public var drain: Bool
    /// With `drain`: also wait for retries that fall due within this many seconds (default 0: pushes waiting
    /// for a later retry stay queued for the next worker run).
    public var drainWaitSeconds: Double
    /// What to do after each attempt: retry delays, attempt limit, dead-lettering (see ``QueueRetryPolicy``).
    public var policy: QueueRetryPolicy

    /// Makes options; each parameter sets the property of the same name (durations in seconds), defaults as
    /// documented on each property.
    public init(name: String = WorkerOptions.defaultName(), environment: String = "sandbox", credential: String = "default",
                window: Int = 500, leaseSeconds: Double = 60, pushDeadlineSeconds: Double = 10,
                recordBatchSize: Int = 256, recordDelaySeconds: Double = 0.02, pollIntervalSeconds: Double = 0.2,
                databaseOutageSeconds: Double = 120, drain: Bool = false, drainWaitSeconds: Double = 0,
                policy: QueueRetryPolicy = .init()) {
        self.name = name
        self.environment = environment
        self.credential = credential
        self.window = window
        self.leaseSeconds = leaseSeconds
        self.pushDeadlineSeconds = pushDeadlineSeconds
        self.recordBatchSize = recordBatchSize
        self.recordDelaySeconds = recordDelaySeconds
        self.pollIntervalSeconds = pollIntervalSeconds
        self.databaseOutageSeconds = databaseOutageSeconds
        self.drain = drain
        self.drainWaitSeconds = drainWaitSeconds
        self.policy = policy
    }

    /// The push deadline actually used: `pushDeadlineSeconds`, capped at a third of the lease.
    public var effectivePushDeadlineSeconds: Double { min(pushDeadlineSeconds, leaseSeconds / 3) }

    /// `<host name>-<process id>`, unique per running worker process on a machine.
    public static func defaultName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}

/// Counts of one worker run.
public struct WorkerSummary: Sendable, Hashable, Codable {
    /// Pushes claimed (a push claimed twice counts twice).
    public var claimed = 0
    /// Pushes APNs accepted (2xx).
    public var sent = 0
    /// Answers that put the push back for a later retry (429, 5xx, credentials, not sent, may have been processed).
    public var retried = 0
    /// Streams refused by the server (not processed), resent later; not failures.
    public var refused = 0
    /// Requests written and never answered (drop, reset, deadline): APNs may have processed them.
    public var mayHaveBeenProcessed = 0
    /// Pushes dead-lettered, by an APNs answer or by triage (crash limit, start after an expired lease, invalid bytes).
    public var dead = 0
    /// Claimed pushes decided without a request (inactive token, superseded at claim, crashes, invalid bytes).
    public var notSent = 0
    /// Claimed pushes dead-lettered unsent because APNs had marked their token inactive (an earlier 410); also in
    /// ``notSent``, not in ``dead``.
    public var tokenInactive = 0
    /// Claimed pushes dead-lettered by triage without a request (crash limit, start after an expired lease,
    /// invalid bytes); also in ``dead`` and ``notSent``.
    public var deadUnsent = 0
    /// Claimed and handed back unsent because another push to the token was in flight.
    public var released = 0
    /// Claim transactions.
    public var rounds = 0
    /// Record transactions.
    public var recordBatches = 0
    /// Database calls that failed and were retried (outage, full disk).
    public var databaseRetries = 0
    /// Seconds the worker waited for claims (with their triage lookups).
    public var claimSeconds = 0.0
    /// Seconds the worker waited for record transactions.
    public var recordSeconds = 0.0
    /// All counts zero.
    public init() {}
}

/// Claims due pushes, sends each with a ``PushSender``, applies the ``QueueRetryPolicy`` and journals every
/// attempt (time, redacted token, status, reason, apns-id, apns-unique-id, latency).
///
/// Pipelined: a steady window of `window` pushes is in flight, refilled by new claims as answers arrive;
/// answers are recorded in small transactions as they come. Each turn is three steps: **triage** (the pure
/// ``WorkerTriage``: inactive tokens, superseded updates, one push in flight per token, crash-loop limits),
/// **send**, and **record** (the retry table). Timeouts are never resent in line: they go back to the queue
/// with a backoff.
///
/// The database may fail under it: when an answer cannot be recorded (server gone, disk full) the worker stops
/// claiming (fails closed), keeps the answers it holds and retries recording with backoff — reconnecting to
/// PostgreSQL — for up to `databaseOutageSeconds`, then throws a ``QueueError`` that says how many answers were
/// not recorded. It never sends again a push whose answer it holds.
public final class QueueWorker: Sendable {
    /// Where pushes are claimed from and answers recorded.
    public let store: any QueueStore
    /// What sends each claimed push (``APNsPushSender`` in production).
    public let sender: any PushSender
    /// Name, environment, credential, window, lease, deadlines and retry policy of this worker.
    public let options: WorkerOptions
    private let clock: @Sendable () -> Double
    private let random: @Sendable () -> Double
    private let log: @Sendable (String) -> Void
    private let stopRequested = Atomic<Bool>(false)
    /// Database calls block (libpq, SQLite): they run here, never on the cooperative pool, so answers keep
    /// being taken while a claim or a record waits for the database.
    private let databaseQueue = DispatchQueue(label: "activity-push.worker.database")

    /// Makes a worker; nothing is claimed until ``run()``.
    /// - Parameters:
    ///   - clock: current time, UNIX seconds.
    ///   - random: uniform in [0, 1) for retry jitter.
    ///   - log: one line per notable event (stderr in the CLI).
    public init(store: any QueueStore, sender: any PushSender, options: WorkerOptions = .init(),
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.sender = sender
        self.options = options
        self.clock = clock
        self.random = random
        self.log = log
    }

    /// Asks ``run()`` to stop claiming, finish the pushes in flight, record them and return.
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    private enum Event: Sendable {
        case answer(push: StoredPush, result: APNsResult, milliseconds: Double)
        case tick
    }

    /// Runs until ``stop()``, or with `drain` until nothing is due or in flight (nor due within
    /// `drainWaitSeconds`).
    /// - Throws: ``QueueError`` when the database fails for good or stays unreachable past `databaseOutageSeconds`.
    @discardableResult
    public func run() async throws(QueueError) -> WorkerSummary {
        var loop = WorkerLoopState()
        let sender = self.sender
        let window = max(1, options.window)
        let refillStep = max(1, window / 8)
        let fatal: QueueError? = await withTaskGroup(of: Event.self) { group -> QueueError? in
            while true {
                let now = clock()
                let stopping = stopRequested.load(ordering: .relaxed)
                // Record.
                if !loop.unrecorded.isEmpty, now >= loop.nextRecordAt,
                   loop.unrecorded.count >= options.recordBatchSize || loop.inFlight == 0 || stopping
                    || now - loop.firstUnrecordedAt >= options.recordDelaySeconds {
                    if let error = await record(&loop, now: now) { return error }
                }
                // Claim (only while every answer so far is recorded: fail closed).
                var claimedNow = 0
                let free = window - loop.inFlight
                if !stopping, loop.recordFailingSince == nil, now >= loop.nextClaimAt, free > 0,
                   loop.inFlight == 0 || free >= refillStep {
                    switch await claim(&loop, limit: free, now: now) {
                    case .failure(let error): return error
                    case .success(let triage):
                        claimedNow = triage.send.count + triage.settled.count
                        for (push, request) in triage.send {
                            loop.inFlight += 1
                            loop.targetsInFlight.insert(push.target)
                            group.addTask {
                                let started = DispatchTime.now().uptimeNanoseconds
                                let result = await sender.send(request, to: push.target)
                                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                                return .answer(push: push, result: result, milliseconds: elapsed)
                            }
                        }
                    }
                }
                if loop.inFlight == 0 {
                    if !loop.unrecorded.isEmpty {
                        // Only a failing record leaves answers here with nothing in flight: wait, then retry.
                        if let since = loop.recordFailingSince, now - since > options.databaseOutageSeconds {
                            return QueueError("gave up after \(Int(now - since)) s: \(loop.unrecorded.count) answers could not be "
                                              + "recorded (\(loop.lastError?.description ?? "?")); claiming stopped, nothing resent",
                                              kind: loop.lastError?.kind ?? .failed)
                        }
                        await sleep(seconds: max(0, loop.nextRecordAt - now))
                        continue
                    }
                    if stopping { return nil }
                    if claimedNow > 0 { continue }
                    if loop.claimFailingSince != nil {
                        await sleep(seconds: max(0.05, loop.nextClaimAt - now))
                        continue
                    }
                    if options.drain {
                        do throws(QueueError) {
                            let store = self.store, options = self.options
                            if try await database({ () throws(QueueError) -> Bool in
                                try store.isDrained(environment: options.environment, credential: options.credential,
                                                    nowUnixSeconds: now + max(0, options.drainWaitSeconds))
                            }) { return nil }
                        } catch {
                            if let giveUp = databaseFailed(&loop, error, now: now, during: "drain check") { return giveUp }
                            continue
                        }
                    }
                    await store.waitForWork(timeoutSeconds: options.pollIntervalSeconds)
                    continue
                }
                // Wait for an answer (a tick makes sure batched answers are recorded without waiting for the next).
                if !loop.unrecorded.isEmpty, !loop.tickPending {
                    loop.tickPending = true
                    let delay = max(options.recordDelaySeconds, loop.nextRecordAt - now)
                    group.addTask {
                        try? await Task.sleep(nanoseconds: UInt64(max(0.001, delay) * 1e9))
                        return .tick
                    }
                }
                guard let event = await group.next() else { continue }
                switch event {
                case .tick:
                    loop.tickPending = false
                case .answer(let push, let result, let milliseconds):
                    loop.inFlight -= 1
                    loop.targetsInFlight.remove(push.target)
                    if decide(&loop, push: push, result: result, milliseconds: milliseconds) {
                        log("ExpiredProviderToken: signing a new provider token")
                        await sender.refreshCredentials()
                    }
                }
            }
        }
        if let fatal { throw fatal }
        return loop.summary
    }

    /// Triage then hand the pushes to send back to the loop; decisions without a request join the answers.
    private func claim(_ loop: inout WorkerLoopState, limit: Int, now: Double) async -> Result<WorkerTriage, QueueError> {
        do throws(QueueError) {
            let store = self.store, options = self.options
            let started = DispatchTime.now().uptimeNanoseconds
            defer { loop.summary.claimSeconds += Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
            let (batch, inactive) = try await database { () throws(QueueError) -> ([StoredPush], [String: String]) in
                let batch = try store.claim(worker: options.name, limit: limit, leaseSeconds: options.leaseSeconds,
                                            environment: options.environment, credential: options.credential,
                                            nowUnixSeconds: now)
                guard !batch.isEmpty else { return (batch, [:]) }
                return (batch, try store.inactiveTokens(among: batch.filter { !$0.isBroadcast }.map(\.target)))
            }
            if loop.claimFailingSince != nil { log("database back: claiming again") }
            loop.claimFailingSince = nil
            guard !batch.isEmpty else { return .success(WorkerTriage()) }
            loop.summary.rounds += 1
            loop.summary.claimed += batch.count
            let triage = WorkerTriage.plan(claimed: batch, inactiveTokens: inactive, targetsInFlight: loop.targetsInFlight,
                                           maxAttempts: options.policy.maxAttempts, worker: options.name,
                                           nowUnixSeconds: now)
            for settled in triage.settled {
                switch settled.outcome {
                case .released: loop.summary.released += 1
                case .dead: loop.summary.dead += 1; loop.summary.deadUnsent += 1; loop.summary.notSent += 1
                case .tokenInactive: loop.summary.tokenInactive += 1; loop.summary.notSent += 1
                default: loop.summary.notSent += 1
                }
                loop.append(settled, now: now)
            }
            return .success(triage)
        } catch {
            if let giveUp = databaseFailed(&loop, error, now: now, during: "claim") { return .failure(giveUp) }
            return .success(WorkerTriage())
        }
    }

    /// A failed claim or drain check: transient failures back off (the loop retries), others end the run.
    private func databaseFailed(_ loop: inout WorkerLoopState, _ error: QueueError, now: Double, during what: String) -> QueueError? {
        guard error.isTransient else { return error }
        let since = loop.claimFailingSince ?? now
        if loop.claimFailingSince == nil { log("\(what) failed (\(error.description)); retrying with backoff") }
        loop.claimFailingSince = since
        loop.summary.databaseRetries += 1
        if now - since > options.databaseOutageSeconds {
            return QueueError("gave up after \(Int(now - since)) s: \(error.description)", kind: error.kind)
        }
        loop.claimBackoff = min(5, max(0.1, loop.claimBackoff * 2))
        loop.nextClaimAt = now + loop.claimBackoff
        return nil
    }

    /// Records the held answers in one transaction. On failure keeps them, stops claiming and backs off.
    private func record(_ loop: inout WorkerLoopState, now: Double) async -> QueueError? {
        let batch = Array(loop.unrecorded.prefix(max(options.recordBatchSize, 1) * 4))
        let store = self.store
        let started = DispatchTime.now().uptimeNanoseconds
        defer { loop.summary.recordSeconds += Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
        do throws(QueueError) {
            try await database { () throws(QueueError) in try store.complete(batch) }
            loop.unrecorded.removeFirst(batch.count)
            loop.firstUnrecordedAt = loop.unrecorded.isEmpty ? .infinity : now
            loop.summary.recordBatches += 1
            if loop.recordFailingSince != nil {
                log("recorded \(batch.count) held answers; the database is back, claiming again")
                loop.recordFailingSince = nil
                loop.recordBackoff = 0
            }
            if loop.summary.recordBatches % 256 == 0 { await database { store.checkpoint() } }
            return nil
        } catch {
            guard error.isTransient else { return error }
            loop.summary.databaseRetries += 1
            loop.lastError = error
            if loop.recordFailingSince == nil {
                loop.recordFailingSince = now
                log("cannot record \(loop.unrecorded.count) answers (\(error.description)); stopped claiming, "
                    + "holding the answers, retrying with backoff — nothing is resent")
            }
            if error.kind == .diskFull { await database { store.checkpoint() } }
            loop.recordBackoff = min(5, max(0.1, loop.recordBackoff * 2))
            loop.nextRecordAt = now + loop.recordBackoff
            return nil
        }
    }

    /// Applies the retry table to one answer; returns true when the provider token must be signed anew.
    private func decide(_ loop: inout WorkerLoopState, push: StoredPush, result: APNsResult, milliseconds: Double) -> Bool {
        let decision = options.policy.decide(result, attempts: push.attempts, event: push.event, unitRandom: random())
        let now = clock()
        let response = result.response
        var attempt = AttemptResult(pushID: push.id, atUnixSeconds: now, target: push.target, outcome: .sent,
                                    status: response?.status, reason: response?.reason?.rawValue, apnsID: push.apnsID,
                                    apnsUniqueID: response?.uniqueID, latencyMilliseconds: milliseconds, worker: options.name)
        attempt.isBroadcast = push.isBroadcast
        if case .failure(let failure) = result {
            attempt.note = failure.description + (failure.attempts > 1 ? " (\(failure.attempts) tries by the client)" : "")
            if failure.kind == .mayHaveBeenProcessed { loop.summary.mayHaveBeenProcessed += 1 }
        }
        var refresh = false
        switch decision {
        case .sent:
            loop.summary.sent += 1
        case .retry(let after, let fresh, let rule):
            refresh = fresh
            attempt.outcome = rule == QueueRetryPolicy.QueueRow.refused ? .refused : .retry
            attempt.retryAtUnixSeconds = now + after
            attempt.note = (attempt.note.map { $0 + "; " } ?? "") + "retry rule \(rule): in \(Int(after.rounded(.up))) s"
            if attempt.outcome == .refused { loop.summary.refused += 1 } else { loop.summary.retried += 1 }
        case .dead(let reason, let inactive, let rule):
            attempt.outcome = .dead
            attempt.reason = reason
            attempt.marksTokenInactive = inactive
            attempt.tokenInvalidSinceUnixMilliseconds = response?.timestampMilliseconds
            let last = response.map { "\($0.status) \($0.reason?.rawValue ?? "")" } ?? "no response"
            attempt.note = (attempt.note.map { $0 + "; " } ?? "") + "dead-letter rule \(rule) (last: \(last))"
            loop.summary.dead += 1
        }
        loop.append(attempt, now: now)
        return refresh
    }

    /// Runs one blocking database call on ``databaseQueue`` and waits for it without holding a pool thread.
    private func database<T: Sendable>(_ body: @escaping @Sendable () throws(QueueError) -> T) async throws(QueueError) -> T {
        let result: Result<T, QueueError> = await withCheckedContinuation { continuation in
            databaseQueue.async {
                do throws(QueueError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private func database(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            databaseQueue.async {
                body()
                continuation.resume()
            }
        }
    }

    private func sleep(seconds: Double) async {
        try? await Task.sleep(nanoseconds: UInt64(min(max(seconds, 0.001), 5) * 1e9))
    }
}

/// What one ``QueueWorker/run()`` keeps between steps.
struct WorkerLoopState {
    var summary = WorkerSummary()
    /// Answers and decisions not yet recorded, oldest first.
    var unrecorded: [AttemptResult] = []
    var firstUnrecordedAt = Double.infinity
    var inFlight = 0
    var targetsInFlight: Set<String> = []
    var tickPending = false
    var recordFailingSince: Double?
    var recordBackoff = 0.0
    var nextRecordAt = -Double.infinity
    var claimFailingSince: Double?
    var claimBackoff = 0.0
    var nextClaimAt = -Double.infinity
    var lastError: QueueError?

    mutating func append(_ result: AttemptResult, now: Double) {
        if unrecorded.isEmpty { firstUnrecordedAt = now }
        unrecorded.append(result)
    }
}
