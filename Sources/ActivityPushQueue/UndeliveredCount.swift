/// The pushes a `worker --drain` run could not deliver, each counted once — what its exit status and its last
/// stderr line say. A plain value computed from the run's ``WorkerSummary`` and the number of distinct pushes
/// whose last attempt in the run got no 2xx answer (tallied by `apns-id` around the sender).
///
/// A push dead-lettered on an APNs answer is in both ``WorkerSummary/dead`` and that tally; here it counts once
/// (issue 11, N5). A push for a token APNs had marked inactive (``WorkerSummary/tokenInactive``) is undelivered
/// too, although no request was made for it (issue 11, W7).
public struct UndeliveredCount: Sendable, Hashable {
    /// Dead-lettered after a request (an APNs answer, or the client's failure past the retry table).
    public var deadAfterAttempt: Int
    /// Sent in the run, last answer not 2xx, and queued for a later retry.
    public var waitingForRetry: Int
    /// Dead-lettered by the worker's triage without a request (crash limit, start after an expired lease, invalid bytes).
    public var deadUnsent: Int
    /// Dead-lettered without a request because APNs had marked the token inactive (an earlier 410).
    public var tokenInactive: Int

    /// Splits the run's counts; `notAcceptedAtLastAttempt` is the number of distinct pushes whose last answer in
    /// the run was not 2xx (dead after the attempt, or waiting for a retry).
    public init(summary: WorkerSummary, notAcceptedAtLastAttempt: Int) {
        deadAfterAttempt = max(0, summary.dead - summary.deadUnsent)
        waitingForRetry = max(0, notAcceptedAtLastAttempt - deadAfterAttempt)
        deadUnsent = summary.deadUnsent
        tokenInactive = summary.tokenInactive
    }

    /// Every undelivered push, once.
    public var total: Int { deadAfterAttempt + waitingForRetry + deadUnsent + tokenInactive }

    /// `3 pushes: 1 dead-lettered after its last attempt, 1 waiting for a later retry, 1 dead-lettered unsent for a
    /// token APNs marked inactive (an earlier 410)` — the parts that are not zero.
    public var description: String {
        func pushes(_ count: Int) -> String { "\(count) push\(count == 1 ? "" : "es")" }
        let parts = [(deadAfterAttempt, "dead-lettered after the last attempt"),
                     (waitingForRetry, "whose last attempt APNs did not accept, queued for a later retry"),
                     (deadUnsent, "dead-lettered unsent (attempt limit after crashes, start after an expired lease, invalid bytes)"),
                     (tokenInactive, "dead-lettered unsent for a token APNs had marked inactive (an earlier 410)")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return pushes(total) + ": " + parts.joined(separator: ", ")
    }
}
