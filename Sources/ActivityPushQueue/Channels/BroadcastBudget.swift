import ActivityPushCore
import Foundation

/// At most one broadcast per second per channel, across every worker sharing the store.
///
/// Source: Apple's reply in the developer forums (thread 827808, spec §6.2): channels are throttled per channel
/// with unpublished limits; send no more than one update per second per channel (and spread many channels over
/// more connections). Apple's documentation publishes no number.
///
/// The state is in the store (table `ap_broadcast_budget`: channel id → the last time a broadcast to it was
/// claimed or answered, UNIX seconds), so it holds across worker processes: PostgreSQL claims take turns under
/// the claim's advisory lock and see each other's claims. At claim time a broadcast whose channel had a
/// broadcast claimed or answered less than ``spacingSeconds`` ago is **held**: put back to pending with
/// not-before = that time + 1 s, the claim not counted as an attempt, and the journal says so (outcome
/// `held`, reason ``reason``). The spacing is measured from the previous broadcast's *answer* as well as its
/// claim, so two sends to a channel are at least 1 s apart at APNs whatever the network delay.
///
/// The decision is ``plan(claimed:lastUnixSeconds:nowUnixSeconds:)``, a plain function tested without a database.
public enum BroadcastBudget {
    /// The least time between two broadcasts to one channel, seconds.
    public static let spacingSeconds = 1.0
    /// `worker --drain` also waits for broadcasts due within this many seconds (UNIX seconds ahead), so a
    /// broadcast held by this budget is sent in the same run rather than left for the next.
    static let drainWaitSeconds = 5.0
    /// The journal's `reason` for a push held by this budget: ``ActivityBudget/broadcastPerChannel``'s name.
    public static let reason = ActivityBudget.broadcastPerChannel.rawValue
    /// The journal's note for a push held until `notBefore` (UNIX seconds).
    static func note(until notBefore: Double) -> String {
        "held by the broadcast budget: at most 1 broadcast per second per channel (Apple, developer forums thread 827808); "
            + "not before \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: notBefore.rounded(.up))))"
    }

    /// What to do with the broadcasts of one claim.
    struct Plan: Equatable {
        /// Push ids to send now.
        var send: [Int64] = []
        /// Push id → not-before (UNIX seconds) for pushes held back.
        var hold: [Int64: Double] = [:]
        /// Channel id → the time to record as its last broadcast (the claim time of the one sent now).
        var claimed: [String: Double] = [:]
    }

    /// Decides, in claim order, which claimed broadcasts go now: the first to a channel whose last broadcast is
    /// at least ``spacingSeconds`` old; every other one is held, each one second after the one before it.
    /// - Parameters:
    ///   - claimed: (push id, channel id) of the claimed broadcasts, in claim order.
    ///   - lastUnixSeconds: channel id → its last broadcast claimed or answered (UNIX seconds); absent: never.
    static func plan(claimed: [(id: Int64, channel: String)], lastUnixSeconds: [String: Double],
                     nowUnixSeconds now: Double) -> Plan {
        var plan = Plan()
        var nextFree: [String: Double] = lastUnixSeconds.mapValues { $0 + spacingSeconds }
        for push in claimed {
            let free = nextFree[push.channel] ?? -Double.infinity
            if now >= free {
                plan.send.append(push.id)
                plan.claimed[push.channel] = now
                nextFree[push.channel] = now + spacingSeconds
            } else {
                plan.hold[push.id] = free
                nextFree[push.channel] = free + spacingSeconds
            }
        }
        return plan
    }

    static func tableDDL(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS ap_broadcast_budget (
          channel_id TEXT PRIMARY KEY,
          last_unix \(dialect == .sqlite ? "REAL" : "DOUBLE PRECISION") NOT NULL
        );
        """
    }
}

extension ActivityBudget {
    /// At most one broadcast per second per channel (``BroadcastBudget``; Apple, developer forums thread 827808).
    public static let broadcastPerChannel: ActivityBudget = "broadcast-per-channel-per-second"
}

extension SQLOutbox {
    /// Inside the claim's transaction: holds the claimed broadcasts the budget does not allow yet (back to
    /// pending, not-before moved, attempt not counted, journaled) and records the claim time of the others.
    func applyBroadcastBudget(_ pushes: inout [StoredPush], now: Double) throws(QueueError) {
        let broadcasts = pushes.filter(\.isBroadcast).sorted { ($0.notBeforeUnixSeconds, $0.id) < ($1.notBeforeUnixSeconds, $1.id) }
        guard !broadcasts.isEmpty else { return }
        let channels = Array(Set(broadcasts.map(\.target)))
        var last: [String: Double] = [:]
        let list = Array(repeating: "?", count: channels.count).joined(separator: ",")
        for row in try db.query("SELECT channel_id, last_unix FROM ap_broadcast_budget WHERE channel_id IN (\(list))",
                                channels.map { SQLValue.text($0) }) {
            if let channel = row[0].text, let at = row[1].double { last[channel] = at }
        }
        let plan = BroadcastBudget.plan(claimed: broadcasts.map { ($0.id, $0.target) }, lastUnixSeconds: last, nowUnixSeconds: now)
        for (channel, at) in plan.claimed {
            _ = try db.query("""
                INSERT INTO ap_broadcast_budget (channel_id, last_unix) VALUES (?, ?) ON CONFLICT (channel_id) DO UPDATE
                  SET last_unix = CASE WHEN excluded.last_unix > ap_broadcast_budget.last_unix THEN excluded.last_unix
                                       ELSE ap_broadcast_budget.last_unix END
                """, [.text(channel), .double(at)])
        }
        guard !plan.hold.isEmpty else { return }
        for push in broadcasts {
            guard let notBefore = plan.hold[push.id] else { continue }
            _ = try db.query("""
                UPDATE ap_pushes SET state = 'pending', attempts = attempts - 1, lease_owner = NULL, lease_until_unix = NULL,
                  not_before_unix = ? WHERE id = ?
                """, [.double(notBefore), .int(push.id)])
            _ = try db.query("""
                INSERT INTO ap_attempts (push_id, at_unix, token_redacted, outcome, reason, apns_id, note)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.int(push.id), .double(now), .text(push.redactedTarget), .text(AttemptOutcome.held.rawValue),
                      .text(BroadcastBudget.reason), .text(push.apnsID), .text(BroadcastBudget.note(until: notBefore))])
        }
        pushes.removeAll { plan.hold[$0.id] != nil }
    }

    /// Inside the record transaction: a broadcast's answer time becomes its channel's last broadcast, so the next
    /// one to the channel is claimed no sooner than 1 s after APNs answered this one.
    func recordBroadcastAnswers(_ results: [AttemptResult]) throws(QueueError) {
        for result in results where result.isBroadcast {
            _ = try db.query("""
                UPDATE ap_broadcast_budget SET last_unix = ? WHERE channel_id = ? AND last_unix < ?
                """, [.double(result.atUnixSeconds), .text(result.target), .double(result.atUnixSeconds)])
        }
    }
}
