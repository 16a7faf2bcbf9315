import ActivityPushAPNs
import ActivityPushCore
import Foundation
import Synchronization

/// Settings of one worker.
public struct WorkerOptions: Sendable, Hashable {
    /// Worker name, recorded as the lease owner and in the journal. Default `<host>-<pid>`.
    public var name: String
    /// Claims only pushes enqueued for this environment (by its stored name, `sandbox` or `production`); where
    /// the worker sends is its client's environment, which may be a `--url` instead.
    public var environment: APNsEnvironment
    /// Claims only pushes enqueued for this credential name.
    public var credential: String
    /// Pushes in flight at once (the window; refilled as answers arrive). Match it to the client's capacity,
    /// connections × streams per connection. The worker also holds up to as many again claimed ahead, ready
    /// to send as streams free up (leased like the ones in flight). Default 500.
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
    /// for a later retry stay queued for the next worker run), and, for this long after a Live Activity start
    /// went out, for the device's update token that releases its held update or end.
    public var drainWaitSeconds: Double
    /// What to do after each attempt: retry delays, attempt limit, dead-lettering (see ``QueueRetryPolicy``).
    public var policy: QueueRetryPolicy

    /// Makes options; each parameter sets the property of the same name (durations in seconds), defaults as
    /// documented on each property.
    public init(name: String = WorkerOptions.defaultName(), environment: APNsEnvironment = .sandbox, credential: String = "default",
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
    /// Seconds the claims took (with their triage lookups; they run while answers keep coming in).
    public var claimSeconds = 0.0
    /// Seconds the record transactions took (they run while answers keep coming in).
    public var recordSeconds = 0.0
    /// With `drain`: pushes of this environment and credential still queued when the drain ended (pending
    /// with a later retry, or in flight at another worker) — not delivered by this run. Nil without `drain`,
    /// or when the drain was stopped or failed before it could count.
    public var leftQueued: Int?
    /// All counts zero.
    public init() {}
}

/// Claims due pushes, sends each with a ``PushSender``, applies the ``QueueRetryPolicy`` and journals every
/// attempt (time, redacted token, status, reason, apns-id, apns-unique-id, latency).
///
/// Pipelined: a steady window of `window` pushes is in flight, refilled from pushes claimed ahead as answers
/// arrive; claims and record transactions (small, as answers come) run beside the sends, on a second
/// connection for PostgreSQL. Each turn is three steps: **triage** (the pure
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
    /// Set by a failed record, cleared by one that commits; a claim that finds it set does not claim.
    private let recordFailing = Atomic<Bool>(false)
    /// Database calls block (libpq, SQLite): they run on these queues, never on the cooperative pool, so
    /// answers keep being taken while a claim or a record waits for the database. A store that records on
    /// its own connection (PostgreSQL) gets two queues, so recording never stalls claiming; the others share
    /// one connection, and one queue keeps a claim from starting before a failed record is known.
    private let claimQueue: DispatchQueue
    private let recordQueue: DispatchQueue

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
        claimQueue = DispatchQueue(label: "activity-push.worker.claim")
        recordQueue = store is any RecordsOnItsOwnConnection ? DispatchQueue(label: "activity-push.worker.record") : claimQueue
        self.options = options
        self.clock = clock
        self.random = random
        self.log = log
    }

    /// Asks ``run()`` to stop claiming, finish the pushes in flight, record them and return.
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    private enum Event: Sendable {
        case answer(push: StoredPush, sequence: Int, result: APNsResult, milliseconds: Double)
        case claimed(Result<ClaimedBatch, QueueError>, seconds: Double)
        case recorded(count: Int, error: QueueError?, seconds: Double)
        case tick
    }

    private struct ClaimedBatch: Sendable {
        var pushes: [StoredPush] = []
        var inactive: [String: String] = [:]
    }

    /// Runs until ``stop()``, or with `drain` until nothing is due or in flight (nor due within
    /// `drainWaitSeconds`).
    ///
    /// Claims, records and answers overlap: a claim or a record runs while answers keep coming in, and the
    /// worker keeps up to a window of claimed pushes ready ahead of the window, so an answer is followed
    /// by the next request at once, not after a claim's round trip to the database. A ready push that has
    /// waited so long that its lease could end before its answer (lease − 2 × push deadline: the window shrank
    /// after connection faults and answers are slow) goes back to the queue unsent.
    /// - Throws: ``QueueError`` when the database fails for good or stays unreachable past `databaseOutageSeconds`.
    @discardableResult
    public func run() async throws(QueueError) -> WorkerSummary {
        let window = max(1, options.window)
        var loop = WorkerLoopState(sendWindow: SendWindow(limit: window))
        let sender = self.sender
        let ahead = window
        // A claim is a transaction (a commit, an fsync): claim when a quarter window is free, not for every few
        // answers; the pushes claimed ahead cover the wait.
        let refillStep = max(1, window / 4)
        let emptyClaimPause = min(options.pollIntervalSeconds, 0.05)
        let fatal: QueueError? = await withTaskGroup(of: Event.self) { group -> QueueError? in
            while true {
                let now = clock()
                let stopping = stopRequested.load(ordering: .relaxed)
                if stopping, !loop.ready.isEmpty {
                    // Claimed, never sent: back to the queue as they were.
                    for (push, _) in loop.ready {
                        loop.targetsInFlight.remove(push.target)
                        loop.summary.released += 1
                        loop.append(AttemptResult(pushID: push.id, atUnixSeconds: now, target: push.target, outcome: .released,
                                                  apnsID: push.apnsID, note: "worker stopping; back to the queue", worker: options.name),
                                    now: now)
                    }
                    loop.ready.removeAll()
                }
                // A push that waited so long that its lease could end before its answer comes (the window
                // shrank after faults and answers are slow) goes back to the queue unsent: sent that late, it
                // could be claimed again by another worker — or this one — while in flight.
                while let oldest = loop.ready.oldestClaimedAt,
                      now - oldest > options.leaseSeconds - 2 * options.effectivePushDeadlineSeconds,
                      let (push, _) = loop.ready.popFirst() {
                    loop.targetsInFlight.remove(push.target)
                    loop.summary.released += 1
                    loop.append(AttemptResult(pushID: push.id, atUnixSeconds: now, target: push.target, outcome: .released,
                                              apnsID: push.apnsID, note: "waited too long for a stream; back to the queue",
                                              worker: options.name), now: now)
                }
                // Send: fill the window from the pushes claimed ahead.
                while loop.inFlight < loop.sendWindow.current, let (push, request) = loop.ready.popFirst() {
                    loop.inFlight += 1
                    let sequence = loop.sendWindow.sent()
                    group.addTask {
                        let started = DispatchTime.now().uptimeNanoseconds
                        let result = await sender.send(request, to: push.target)
                        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                        return .answer(push: push, sequence: sequence, result: result, milliseconds: elapsed)
                    }
                }
                // Record.
                if loop.recording == 0, !loop.unrecorded.isEmpty, now >= loop.nextRecordAt,
                   loop.unrecorded.count >= options.recordBatchSize || loop.inFlight == 0 || stopping
                    || now - loop.firstUnrecordedAt >= options.recordDelaySeconds {
                    // Everything held, up to 16 batches: when commits are slow (a busy disk) a record takes what
                    // came in meanwhile, so recording keeps up however long an fsync takes.
                    let batch = Array(loop.unrecorded.prefix(max(options.recordBatchSize, 1) * 16))
                    loop.recording = batch.count
                    let store = self.store
                    group.addTask { [self] in
                        let started = DispatchTime.now().uptimeNanoseconds
                        var failure: QueueError?
                        do throws(QueueError) {
                            try await database(on: recordQueue) { () throws(QueueError) in
                                do throws(QueueError) {
                                    try store.complete(batch)
                                    self.recordFailing.store(false, ordering: .relaxed)
                                } catch {
                                    // Set before the next claim can start on a shared queue: fail closed.
                                    self.recordFailing.store(true, ordering: .relaxed)
                                    throw error
                                }
                            }
                        } catch {
                            failure = error
                        }
                        return .recorded(count: batch.count, error: failure,
                                         seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
                    }
                }
                // Claim ahead (only while every answer so far is recorded: fail closed).
                let held = loop.inFlight + loop.ready.count
                // Claim ahead as much as the window allows now (less after connection faults).
                let free = loop.sendWindow.current + min(ahead, loop.sendWindow.current) - held
                if !loop.claiming, !stopping, loop.recordFailingSince == nil, now >= loop.nextClaimAt, free > 0,
                   (held == 0 && loop.lastClaimCount != 0) || (held > 0 && free >= refillStep && now >= loop.claimAgainAt) {
                    loop.claiming = true
                    // The first claim is small, so sending starts after a short transaction.
                    let limit = loop.summary.rounds == 0 ? min(free, refillStep) : free
                    let store = self.store, options = self.options
                    group.addTask { [self] in
                        let started = DispatchTime.now().uptimeNanoseconds
                        let result: Result<ClaimedBatch, QueueError>
                        do throws(QueueError) {
                            result = .success(try await database(on: claimQueue) { () throws(QueueError) -> ClaimedBatch in
                                // A record failed after this claim was asked for: do not claim.
                                if self.recordFailing.load(ordering: .relaxed) { return ClaimedBatch() }
                                let batch = try store.claim(worker: options.name, limit: limit, leaseSeconds: options.leaseSeconds,
                                                            environment: options.environment, credential: options.credential,
                                                            nowUnixSeconds: now)
                                guard !batch.isEmpty else { return ClaimedBatch() }
                                return ClaimedBatch(pushes: batch,
                                                    inactive: try store.inactiveTokens(among: batch.filter { !$0.isBroadcast }.map(\.target)))
                            })
                        } catch {
                            result = .failure(error)
                        }
                        return .claimed(result, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
                    }
                }
                if loop.inFlight == 0, loop.ready.isEmpty, !loop.claiming, loop.recording == 0 {
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
                    if loop.lastClaimCount > 0 { continue }
                    if loop.claimFailingSince != nil {
                        // A claim or drain check failed: claim again after the backoff (a claim that works ends it).
                        loop.lastClaimCount = -1
                        await sleep(seconds: max(0.05, loop.nextClaimAt - now))
                        continue
                    }
                    if options.drain {
                        do throws(QueueError) {
                            let store = self.store, options = self.options
                            let wait = max(0, options.drainWaitSeconds)
                            if try await database(on: claimQueue, { () throws(QueueError) -> Bool in
                                // Also not drained while a device it started may still post the update token that
                                // releases a held update or end (for up to --drain-wait after that start went out).
                                guard try store.isDrained(environment: options.environment, credential: options.credential,
                                                          nowUnixSeconds: now + wait) else { return false }
                                guard wait > 0 else { return true }
                                return try !store.awaitsUpdateTokens(environment: options.environment,
                                                                     startsSentSinceUnixSeconds: now - wait)
                            }) {
                                loop.summary.leftQueued = try? await database(on: claimQueue, { () throws(QueueError) -> Int in
                                    try store.queuedCount(environment: options.environment, credential: options.credential)
                                })
                                return nil
                            }
                        } catch {
                            if let giveUp = databaseFailed(&loop, error, now: now, during: "drain check") { return giveUp }
                            continue
                        }
                    }
                    await store.waitForWork(timeoutSeconds: options.pollIntervalSeconds)
                    loop.lastClaimCount = -1
                    continue
                }
                // Wait for the next event; a tick makes sure batched answers are recorded, and a paused claim
                // made, without waiting for the next answer.
                if !loop.tickPending {
                    var wakeAt = Double.infinity
                    if !loop.unrecorded.isEmpty, loop.recording == 0 {
                        wakeAt = max(loop.firstUnrecordedAt + options.recordDelaySeconds, loop.nextRecordAt)
                    }
                    if !loop.claiming, !stopping, loop.recordFailingSince == nil, held > 0, free >= refillStep {
                        wakeAt = min(wakeAt, max(loop.claimAgainAt, loop.nextClaimAt))
                    }
                    if wakeAt.isFinite {
                        loop.tickPending = true
                        let delay = max(0.001, wakeAt - now)
                        group.addTask {
                            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                            return .tick
                        }
                    }
                }
                guard let event = await group.next() else { continue }
                switch event {
                case .tick:
                    loop.tickPending = false
                case .answer(let push, let sequence, let result, let milliseconds):
                    loop.inFlight -= 1
                    var connectionFault = false
                    if case .failure(let failure) = result, failure.kind == .mayHaveBeenProcessed { connectionFault = true }
                    loop.sendWindow.answered(sequence: sequence, connectionFault: connectionFault)
                    loop.targetsInFlight.remove(push.target)
                    if decide(&loop, push: push, result: result, milliseconds: milliseconds) {
                        log("ExpiredProviderToken: signing a new provider token")
                        await sender.refreshCredentials()
                    }
                case .claimed(let result, let seconds):
                    loop.claiming = false
                    loop.summary.claimSeconds += seconds
                    switch result {
                    case .failure(let error):
                        loop.lastClaimCount = -1  // claim again once the backoff has passed
                        if let giveUp = databaseFailed(&loop, error, now: clock(), during: "claim") { return giveUp }
                    case .success(let batch):
                        if loop.claimFailingSince != nil { log("database back: claiming again") }
                        loop.claimFailingSince = nil
                        loop.lastClaimCount = batch.pushes.count
                        if batch.pushes.isEmpty {
                            loop.claimAgainAt = clock() + emptyClaimPause
                        } else {
                            accept(&loop, batch, now: clock())
                        }
                    }
                case .recorded(let count, let error, let seconds):
                    loop.recording = 0
                    loop.summary.recordSeconds += seconds
                    if let error {
                        if let fatal = recordFailed(&loop, error, now: clock()) { return fatal }
                    } else {
                        await recorded(&loop, count: count, now: clock())
                    }
                }
            }
        }
        if let fatal { throw fatal }
        return loop.summary
    }

    /// Triage of a claimed batch; the pushes to send join the ready list, decisions without a request join the
    /// answers to record.
    private func accept(_ loop: inout WorkerLoopState, _ batch: ClaimedBatch, now: Double) {
        loop.summary.rounds += 1
        loop.summary.claimed += batch.pushes.count
        let triage = WorkerTriage.plan(claimed: batch.pushes, inactiveTokens: batch.inactive, targetsInFlight: loop.targetsInFlight,
                                       maxAttempts: options.policy.maxAttempts, worker: options.name, nowUnixSeconds: now)
        for settled in triage.settled {
            switch settled.outcome {
            case .released: loop.summary.released += 1
            case .dead: loop.summary.dead += 1; loop.summary.deadUnsent += 1; loop.summary.notSent += 1
            case .tokenInactive: loop.summary.tokenInactive += 1; loop.summary.notSent += 1
            default: loop.summary.notSent += 1
            }
            loop.append(settled, now: now)
        }
        for (push, request) in triage.send {
            loop.targetsInFlight.insert(push.target)
            loop.ready.append((push, request), claimedAt: now)
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

    /// A record transaction committed: its answers leave memory.
    private func recorded(_ loop: inout WorkerLoopState, count: Int, now: Double) async {
        loop.unrecorded.removeFirst(count)
        loop.firstUnrecordedAt = loop.unrecorded.isEmpty ? .infinity : now
        loop.summary.recordBatches += 1
        if loop.recordFailingSince != nil {
            log("recorded \(count) held answers; the database is back, claiming again")
            loop.recordFailingSince = nil
            loop.recordBackoff = 0
        }
        if loop.summary.recordBatches % 256 == 0 {
            let store = self.store
            await database(on: recordQueue) { store.checkpoint() }
        }
    }

    /// A record transaction failed: the answers stay held, claiming stops, the record is retried with backoff;
    /// a failure that is not transient ends the run.
    private func recordFailed(_ loop: inout WorkerLoopState, _ error: QueueError, now: Double) -> QueueError? {
        guard error.isTransient else { return error }
        loop.summary.databaseRetries += 1
        loop.lastError = error
        if loop.recordFailingSince == nil {
            loop.recordFailingSince = now
            log("cannot record \(loop.unrecorded.count) answers (\(error.description)); stopped claiming, "
                + "holding the answers, retrying with backoff — nothing is resent")
        }
        if error.kind == .diskFull { store.checkpoint() }
        loop.recordBackoff = min(5, max(0.1, loop.recordBackoff * 2))
        loop.nextRecordAt = now + loop.recordBackoff
        return nil
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

    /// Runs one blocking database call on `queue` and waits for it without holding a pool thread.
    private func database<T: Sendable>(on queue: DispatchQueue,
                                       _ body: @escaping @Sendable () throws(QueueError) -> T) async throws(QueueError) -> T {
        let result: Result<T, QueueError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(QueueError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private func database(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
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
    init(sendWindow: SendWindow) { self.sendWindow = sendWindow }
    var summary = WorkerSummary()
    /// Answers and decisions not yet recorded, oldest first.
    var unrecorded: [AttemptResult] = []
    var firstUnrecordedAt = Double.infinity
    var inFlight = 0
    /// How many may be in flight now (the window, halved after a connection fault, grown back per answer).
    var sendWindow: SendWindow
    /// Claimed and triaged, waiting for a free stream in the window (claimed ahead), oldest first.
    var ready = ReadyPushes()
    /// Tokens (or channel ids) with a push ready or in flight at this worker.
    var targetsInFlight: Set<String> = []
    var claiming = false
    /// Answers in the record transaction under way (the first ones of `unrecorded`).
    var recording = 0
    /// Pushes the last claim returned (-1: none yet since the last wait for work).
    var lastClaimCount = -1
    /// After a claim found nothing, the next one waits until then while pushes are in flight.
    var claimAgainAt = -Double.infinity
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

/// A first-in-first-out list of claimed pushes with their requests and claim times (UNIX seconds), amortised
/// O(1) at both ends.
struct ReadyPushes: Sequence {
    private var items: [(push: StoredPush, request: PushRequest)] = []
    private var claimedAt: [Double] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    /// When the oldest was claimed; nil when empty.
    var oldestClaimedAt: Double? { head < claimedAt.count ? claimedAt[head] : nil }

    mutating func append(_ item: (push: StoredPush, request: PushRequest), claimedAt time: Double) {
        items.append(item)
        claimedAt.append(time)
    }

    mutating func popFirst() -> (push: StoredPush, request: PushRequest)? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            claimedAt.removeFirst(head)
            head = 0
        }
        return item
    }

    mutating func removeAll() {
        items.removeAll()
        claimedAt.removeAll()
        head = 0
    }

    func makeIterator() -> ArraySlice<(push: StoredPush, request: PushRequest)>.Iterator { items[head...].makeIterator() }
}
