import ActivityPushCore

/// The first step of a worker's turn, with no I/O: what to do with each claimed push before anything is sent.
/// A plain function of its inputs, tested without a database or a socket.
///
/// Each push, first match wins:
/// 1. claimed more than `maxAttempts` times without an answer (worker crashes) → **dead** `MaxAttemptsExceeded`;
/// 2. a start claimed again after an expired lease (its worker crashed holding it, so APNs may have processed
///    it) → **dead** `MayHaveBeenProcessed`, not resent (see ``QueueRetryPolicy``: a second start is a second
///    activity);
/// 3. its token was marked inactive by an earlier 410 → **token-inactive**, not sent;
/// 4. a newer update or end for its token exists (found at claim time) → **superseded**, not sent;
/// 5. another push to the same token is in flight at this worker, or comes earlier in this batch →
///    **released** back to the queue unsent (at most one push in flight per token);
/// 6. its stored bytes no longer validate → **dead** `StoredPushInvalid`;
/// 7. otherwise → **send**.
struct WorkerTriage: Sendable {
    /// Pushes to send now, with their restored requests.
    var send: [(push: StoredPush, request: PushRequest)] = []
    /// Decisions made without a request (journaled, except `released`).
    var settled: [AttemptResult] = []

    /// - Parameters:
    ///   - claimed: the batch the store returned, in claim order.
    ///   - inactiveTokens: token → reason, for tokens marked inactive by a 410.
    ///   - targetsInFlight: tokens (or channel ids) with a push in flight at this worker.
    ///   - nowUnixSeconds: the decision time, UNIX seconds.
    static func plan(claimed: [StoredPush], inactiveTokens: [String: String], targetsInFlight: Set<String>,
                     maxAttempts: Int, worker: String, nowUnixSeconds: Double) -> WorkerTriage {
        var triage = WorkerTriage()
        var taken = targetsInFlight
        func settle(_ push: StoredPush, _ outcome: AttemptOutcome, reason: String?, note: String) {
            triage.settled.append(AttemptResult(pushID: push.id, atUnixSeconds: nowUnixSeconds, target: push.target,
                                                outcome: outcome, reason: reason, apnsID: push.apnsID, note: note,
                                                worker: worker))
        }
        for push in claimed {
            if push.attempts > maxAttempts {
                settle(push, .dead, reason: QueueRetryPolicy.maxAttemptsReason,
                       note: "claimed \(push.attempts) times without an answer (worker crashes); not sent again")
            } else if push.reclaimedAfterExpiredLease && push.event == .start {
                settle(push, .dead, reason: QueueRetryPolicy.mayHaveBeenProcessedReason,
                       note: "start claimed again after a lease expired: APNs may have processed the earlier attempt; "
                           + "not resent (a second start makes a second activity); `queue dead --retry --id \(push.id)` if it did not start")
            } else if let reason = push.isBroadcast ? nil : inactiveTokens[push.target] {
                settle(push, .tokenInactive, reason: reason, note: "token marked inactive by an earlier 410 (\(reason)); not sent")
            } else if let newer = push.supersededBy {
                settle(push, .superseded, reason: nil,
                       note: "superseded by push \(newer) (newer update or end for the same token, found at claim); not sent")
            } else if taken.contains(push.target) {
                settle(push, .released, reason: nil, note: "another push to this token is in flight; back to the queue")
            } else {
                do {
                    triage.send.append((push, try push.restore()))
                    taken.insert(push.target)
                } catch {
                    settle(push, .dead, reason: "StoredPushInvalid",
                           note: "stored push no longer validates: \(error.description.prefix(200))")
                }
            }
        }
        return triage
    }
}
