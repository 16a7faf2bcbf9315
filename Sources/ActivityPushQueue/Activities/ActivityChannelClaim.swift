import ActivityPushCore

/// The one `"channel": true` start of an activityID that creates its channel at Apple. Concurrent repeats of the
/// start (a client retrying, a load balancer fanning out) must not each create a channel: the first claims the
/// activityID in `ap_la_channel_claims` (inside a lifecycle transaction, so claims take turns across processes),
/// creates the channel, starts the activity and drops the claim; the others wait for the activity row and answer
/// it as a repeat. A claim older than ``LiveActivityService/channelClaimSeconds`` (its process died) is taken over.
extension LiveActivityService {
    /// What ``claimChannelCreation(activityID:owner:)`` found.
    enum ChannelClaim: Sendable, Hashable {
        /// This caller creates the channel.
        case claimed
        /// The activity is stored: answer the start as a repeat (or a conflict).
        case exists
        /// Another start is creating the channel now: wait and look again.
        case busy
    }

    /// Seconds after which a claim is taken to be abandoned (longer than a channel create at Apple takes).
    static var channelClaimSeconds: Double { 60 }

    /// Claims the channel creation for `activityID` for `owner` (a fresh id per start call).
    /// - Throws: ``ActivityError`` 503 when the store fails.
    func claimChannelCreation(activityID: String, owner: String) throws(ActivityError) -> ChannelClaim {
        let now = clock()
        return try store.transaction { (o: SQLOutbox) throws(ActivityError) -> ChannelClaim in
            do throws(QueueError) {
                if try ActivityStore.activity(o, id: activityID) != nil { return .exists }
                let rows = try o.db.query("SELECT owner, claimed_unix FROM ap_la_channel_claims WHERE activity_id = ?",
                                          [.text(activityID)])
                if let row = rows.first, (row[1].double ?? 0) > now - Self.channelClaimSeconds {
                    return row[0].text == owner ? .claimed : .busy
                }
                _ = try o.db.query("DELETE FROM ap_la_channel_claims WHERE activity_id = ?", [.text(activityID)])
                _ = try o.db.query("INSERT INTO ap_la_channel_claims (activity_id, owner, claimed_unix) VALUES (?, ?, ?)",
                                   [.text(activityID), .text(owner), .double(now)])
                return .claimed
            } catch { throw .store(error) }
        }
    }

    /// Drops `owner`'s claim (the activity is stored, or its start failed and the channel was deleted again).
    func releaseChannelClaim(activityID: String, owner: String) {
        _ = try? store.transaction { (o: SQLOutbox) throws(ActivityError) -> Bool in
            do throws(QueueError) {
                _ = try o.db.query("DELETE FROM ap_la_channel_claims WHERE activity_id = ? AND owner = ?",
                                   [.text(activityID), .text(owner)])
            } catch { throw .store(error) }
            return true
        }
    }
}
