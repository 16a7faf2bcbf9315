import ActivityPushAPNs
import ActivityPushCore
import Foundation

/// Settings of one worker.
public struct WorkerOptions: Sendable, Hashable {
    /// Worker name, recorded as the lease owner and in the journal. Default `<host>-<pid>`.
    public var name: String
    /// Claims only pushes enqueued for this environment (`sandbox`, `production`).
    public var environment: String
    /// Claims only pushes enqueued for this credential name.
    public var credential: String
    /// Pushes claimed (and sent concurrently) per round. Default 200.
    public var batchSize: Int
    /// A claimed push returns to the queue this long after the claim if the worker has not answered (crash).
    /// Must exceed the longest send (request timeout). Default 60 s.
    public var leaseSeconds: Double
    /// Sleep when nothing is due. Default 0.2 s.
    public var pollIntervalSeconds: Double
    /// Exit once nothing is due or in flight (instead of waiting for more).
    public var drain: Bool
    /// With `drain`: also wait for retries that fall due within this many seconds (default 0: pushes waiting
    /// for a later retry stay queued for the next worker run).
    public var drainWaitSeconds: Double
    public var policy: QueueRetryPolicy

    public init(name: String = WorkerOptions.defaultName(), environment: String = "sandbox", credential: String = "default",
                batchSize: Int = 200, leaseSeconds: Double = 60, pollIntervalSeconds: Double = 0.2, drain: Bool = false,
                drainWaitSeconds: Double = 0, policy: QueueRetryPolicy = .init()) {
        self.name = name
        self.environment = environment
        self.credential = credential
        self.batchSize = batchSize
        self.leaseSeconds = leaseSeconds
        self.pollIntervalSeconds = pollIntervalSeconds
        self.drain = drain
        self.drainWaitSeconds = drainWaitSeconds
        self.policy = policy
    }

    public static func defaultName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}

/// Counts of one worker run.
public struct WorkerSummary: Sendable, Hashable, Codable {
    public var claimed = 0
    public var sent = 0
    public var retried = 0
    public var dead = 0
    public var notSent = 0
    public var rounds = 0
    public init() {}
}

/// Claims due pushes, sends each with a ``PushSender``, applies the ``QueueRetryPolicy`` and journals every
/// attempt (time, redacted token, status, reason, apns-id, apns-unique-id, latency).
///
/// Before sending, a claimed push is dropped without a request when its token was marked inactive by an
/// earlier 410 (`token-inactive`), when its stored bytes no longer validate (`StoredPushInvalid`), or when
/// crashes have used up its attempts (`MaxAttemptsExceeded`).
public final class QueueWorker: Sendable {
    public let store: any QueueStore
    public let sender: any PushSender
    public let options: WorkerOptions
    private let clock: @Sendable () -> Double
    private let random: @Sendable () -> Double
    private let log: @Sendable (String) -> Void
    private let stopFlag = StopFlag()

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

    /// Asks ``run()`` to return after the current round.
    public func stop() { stopFlag.set() }

    /// Runs rounds until ``stop()``, or with `drain` until nothing is due or in flight (nor due within
    /// `drainWaitSeconds`).
    /// - Throws: ``QueueError`` when the database fails.
    @discardableResult
    public func run() async throws(QueueError) -> WorkerSummary {
        var total = WorkerSummary()
        while !stopFlag.isSet {
            let s = try await runOnce()
            total.claimed += s.claimed; total.sent += s.sent; total.retried += s.retried
            total.dead += s.dead; total.notSent += s.notSent; total.rounds += s.rounds
            if s.claimed == 0 {
                if options.drain,
                   try store.isDrained(environment: options.environment, credential: options.credential,
                                       nowUnixSeconds: clock() + max(0, options.drainWaitSeconds)) {
                    break
                }
                try? await Task.sleep(nanoseconds: UInt64(options.pollIntervalSeconds * 1e9))
            }
        }
        return total
    }

    /// One round: claim up to `batchSize` due pushes, send them concurrently, record the results.
    public func runOnce() async throws(QueueError) -> WorkerSummary {
        var summary = WorkerSummary()
        let batch = try store.claim(worker: options.name, limit: options.batchSize, leaseSeconds: options.leaseSeconds,
                                    environment: options.environment, credential: options.credential,
                                    nowUnixSeconds: clock())
        guard !batch.isEmpty else { return summary }
        summary.rounds = 1
        summary.claimed = batch.count
        let inactive = try store.inactiveTokens(among: batch.filter { !$0.isBroadcast }.map(\.target))

        var results: [AttemptResult] = []
        var toSend: [(StoredPush, PushRequest)] = []
        for p in batch {
            if p.attempts > options.policy.maxAttempts {
                results.append(notSent(p, outcome: .dead, reason: QueueRetryPolicy.maxAttemptsReason,
                                       note: "claimed \(p.attempts) times without an answer (worker crashes); not sent again"))
            } else if let reason = inactive[p.target] {
                results.append(notSent(p, outcome: .tokenInactive, reason: reason,
                                       note: "token marked inactive by an earlier 410 (\(reason)); not sent"))
            } else {
                do {
                    toSend.append((p, try p.restore()))
                } catch {
                    results.append(notSent(p, outcome: .dead, reason: "StoredPushInvalid",
                                           note: "stored push no longer validates: \(error.description.prefix(200))"))
                }
            }
        }

        let sender = self.sender
        let answers = await withTaskGroup(of: (Int, APNsResult, Double).self) { group in
            for (i, item) in toSend.enumerated() {
                group.addTask {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    let r = await sender.send(item.1, to: item.0.target)
                    return (i, r, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                }
            }
            var out = [(APNsResult, Double)?](repeating: nil, count: toSend.count)
            for await (i, r, ms) in group { out[i] = (r, ms) }
            return out
        }

        var refresh = false
        for (i, (p, _)) in toSend.enumerated() {
            guard let (result, ms) = answers[i] else { continue }
            let decision = options.policy.decide(result, attempts: p.attempts, unitRandom: random())
            let now = clock()
            let resp = result.response
            var r = AttemptResult(pushID: p.id, atUnixSeconds: now, target: p.target, outcome: .sent,
                                  status: resp?.status, reason: resp?.reason?.rawValue, apnsID: p.apnsID,
                                  apnsUniqueID: resp?.uniqueID, latencyMilliseconds: ms, worker: options.name)
            if case .failure(let e) = result { r.note = e.description }
            switch decision {
            case .sent:
                summary.sent += 1
            case .retry(let after, let fresh, let rule):
                refresh = refresh || fresh
                r.outcome = .retry
                r.retryAtUnixSeconds = now + after
                r.note = (r.note.map { $0 + "; " } ?? "") + "retry rule \(rule): in \(Int(after.rounded(.up))) s"
                summary.retried += 1
            case .dead(let reason, let inactive, let rule):
                r.outcome = .dead
                r.reason = reason
                r.marksTokenInactive = inactive
                r.tokenInvalidSinceUnixMilliseconds = resp?.timestampMilliseconds
                let last = resp.map { "\($0.status) \($0.reason?.rawValue ?? "")" } ?? "no response"
                r.note = (r.note.map { $0 + "; " } ?? "") + "dead-letter rule \(rule) (last: \(last))"
                summary.dead += 1
            }
            results.append(r)
        }
        summary.notSent = batch.count - toSend.count
        summary.dead += results.filter { $0.outcome == .dead && $0.latencyMilliseconds == nil }.count
        try store.complete(results)
        if refresh {
            log("ExpiredProviderToken: signing a new provider token")
            await sender.refreshCredentials()
        }
        return summary
    }

    private func notSent(_ p: StoredPush, outcome: AttemptOutcome, reason: String, note: String) -> AttemptResult {
        AttemptResult(pushID: p.id, atUnixSeconds: clock(), target: p.target, outcome: outcome, reason: reason,
                      apnsID: p.apnsID, note: note, worker: options.name)
    }
}

/// A flag set from any thread (signal handler queue, another task).
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
