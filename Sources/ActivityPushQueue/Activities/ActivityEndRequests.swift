/// The end request that ended each activity, by fingerprint (``ActivityChangeRequest/fingerprint``), in
/// `ap_la_end_requests`: a client retrying its end after a timeout gets 200 and the current state (nothing sent);
/// a different end after the end is a 409 naming the state.
extension ActivityStore {
    /// The fingerprint of the end that ended `activityID`; nil when none was recorded (not ended, or ended by Apple's
    /// 8-hour limit).
    static func endFingerprint(_ o: SQLOutbox, activityID: String) throws(QueueError) -> String? {
        try o.db.query("SELECT fingerprint FROM ap_la_end_requests WHERE activity_id = ?", [.text(activityID)]).first?.first?.text
    }

    /// Records the end that ended `activityID`.
    static func recordEnd(_ o: SQLOutbox, activityID: String, fingerprint: String) throws(QueueError) {
        _ = try o.db.query("DELETE FROM ap_la_end_requests WHERE activity_id = ?", [.text(activityID)])
        _ = try o.db.query("INSERT INTO ap_la_end_requests (activity_id, fingerprint) VALUES (?, ?)",
                           [.text(activityID), .text(fingerprint)])
    }
}
