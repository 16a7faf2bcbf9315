import ActivityPushCore
import Foundation

/// The broadcast channels this service created, in the queue's own store (SQLite or PostgreSQL, table
/// `ap_channels`): channel id, environment, bundle id, storage policy, created-at, the activity it serves and
/// deleted-at. Every method is one transaction; times are **UNIX seconds**.
///
/// The registry is what ActivityPush knows; Apple's `GET /1/apps/<bundle id>/all-channels` is what Apple has.
/// ``BroadcastChannels/list(bundleID:environment:askApple:)`` puts the two side by side.
///
/// Apple's limit of ``APNsLimits/channelsPerAppPerEnvironment`` channels per app per environment is enforced
/// here, before Apple is called: ``reserve(bundleID:environment:storagePolicy:activityID:nowUnixSeconds:)``
/// counts the live channels and a slot being created in one transaction (PostgreSQL: under an advisory lock,
/// so two services creating at once cannot both take the last slot).
public final class ChannelRegistry: Sendable {
    let outbox: LockedOutbox

    /// A registry on the queue's store (``Outbox/store``); its table is created with the queue's.
    /// - Throws: ``QueueError`` when the store is not one of the SQL stores (``SQLiteQueueStore``,
    ///   ``PostgresQueueStore``).
    public init(store: any QueueStore) throws(QueueError) {
        guard let sql = store as? any SQLQueueStore else {
            throw QueueError("the channel registry lives in the queue's SQLite or PostgreSQL store; \(store.location) is neither")
        }
        outbox = sql.outbox
    }

    /// A slot for a channel about to be created at Apple; pass it to ``confirm(_:channelID:)`` with the id Apple
    /// answered, or to ``release(_:)`` when Apple refused.
    public struct Reservation: Sendable, Hashable {
        /// The placeholder row's id (`reserved:<uuid>`), never a channel id.
        public let placeholder: String
    }

    /// How long a reservation whose process died before confirming it still counts against the limit, seconds.
    static let reservationLifetimeSeconds = 300.0

    /// Takes one of the app's channel slots in `environment`, or refuses when ``APNsLimits/channelsPerAppPerEnvironment``
    /// live channels (and slots being created) exist.
    /// - Throws: ``ChannelError`` with ``ChannelError/Kind/limitReached`` naming the count and the fix (delete channels
    ///   with `activity-push channels delete`); ``QueueError`` when the database fails.
    public func reserve(bundleID: String, environment: APNsEnvironment, storagePolicy: MessageStoragePolicy, activityID: String?,
                        nowUnixSeconds: Double) throws(ChannelError) -> Reservation {
        let placeholder = "reserved:" + UUID().uuidString.lowercased()
        let limit = APNsLimits.channelsPerAppPerEnvironment
        let result: Result<Reservation, ChannelError>
        do {
            result = try outbox.run { sql throws(QueueError) -> Result<Reservation, ChannelError> in
                try sql.db.transaction(immediate: true) { () throws(QueueError) -> Result<Reservation, ChannelError> in
                    if sql.dialect == .postgres { _ = try sql.db.query("SELECT pg_advisory_xact_lock(7244)", []) }
                    let live = try sql.db.query("""
                        SELECT COUNT(*) FROM ap_channels WHERE bundle_id = ? AND environment = ? AND deleted_unix IS NULL
                          AND (reserved = 0 OR created_unix > ?)
                        """, [.text(bundleID), .text(environment.name), .double(nowUnixSeconds - Self.reservationLifetimeSeconds)])
                        .first?.first?.int ?? 0
                    guard live < limit else {
                        return .failure(ChannelError(.limitReached,
                            "\(bundleID) already has \(live) broadcast channels in \(environment); Apple allows \(limit) per app per environment "
                            + "(a create over it is answered 400 CannotCreateChannelConfig); nothing was sent to Apple",
                            fix: "delete channels that no activity uses (activity-push channels list, then channels delete CHANNEL_ID)"))
                    }
                    _ = try sql.db.query("""
                        INSERT INTO ap_channels (channel_id, environment, bundle_id, storage_policy, created_unix, activity_id, reserved)
                        VALUES (?, ?, ?, ?, ?, ?, 1)
                        """, [.text(placeholder), .text(environment.name), .text(bundleID), .int(Int64(storagePolicy.rawValue)),
                              .double(nowUnixSeconds), activityID.sql])
                    return .success(Reservation(placeholder: placeholder))
                }
            }
        } catch {
            throw ChannelError(.store, "channel registry: \(error.description)")
        }
        return try result.get()
    }

    /// Turns a reservation into the channel Apple created; returns the record.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    @discardableResult
    public func confirm(_ reservation: Reservation, channelID: String) throws(ChannelError) -> BroadcastChannel {
        try run { sql throws(QueueError) -> BroadcastChannel in
            let rows = try sql.db.query("""
                UPDATE ap_channels SET channel_id = ?, reserved = 0 WHERE channel_id = ? RETURNING \(Self.columns)
                """, [.text(channelID), .text(reservation.placeholder)])
            guard let row = rows.first else { throw QueueError("channel registry: the reservation for \(channelID) is gone") }
            return Self.channel(row)
        }
    }

    /// Gives a reservation back (Apple refused the create, or it could not be reached).
    public func release(_ reservation: Reservation) {
        _ = try? run { sql throws(QueueError) in
            _ = try sql.db.query("DELETE FROM ap_channels WHERE channel_id = ? AND reserved = 1", [.text(reservation.placeholder)])
        }
    }

    /// Records a channel created elsewhere (another tool, or found in Apple's list) as it is now.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func adopt(_ channel: BroadcastChannel) throws(ChannelError) {
        try run { sql throws(QueueError) in
            _ = try sql.db.query("""
                INSERT INTO ap_channels (channel_id, environment, bundle_id, storage_policy, created_unix, activity_id, deleted_unix, reserved)
                VALUES (?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (environment, channel_id) DO NOTHING
                """, [.text(channel.channelID), .text(channel.environment.name), .text(channel.bundleID),
                      .int(Int64(channel.storagePolicy.rawValue)), .double(channel.createdUnixSeconds), channel.activityID.sql,
                      channel.deletedUnixSeconds.sql])
        }
    }

    /// The channel with this id in `environment` (live or deleted), nil when the registry has none.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func channel(id channelID: String, environment: APNsEnvironment) throws(ChannelError) -> BroadcastChannel? {
        try run { sql throws(QueueError) -> BroadcastChannel? in
            try sql.db.query("SELECT \(Self.columns) FROM ap_channels WHERE channel_id = ? AND environment = ? AND reserved = 0",
                           [.text(channelID), .text(environment.name)]).first.map(Self.channel)
        }
    }

    /// The live channel serving `activityID` in `environment`, nil when none.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func channel(forActivity activityID: String, environment: APNsEnvironment) throws(ChannelError) -> BroadcastChannel? {
        try run { sql throws(QueueError) -> BroadcastChannel? in
            try sql.db.query("""
                SELECT \(Self.columns) FROM ap_channels WHERE activity_id = ? AND environment = ? AND reserved = 0
                  AND deleted_unix IS NULL ORDER BY created_unix DESC LIMIT 1
                """, [.text(activityID), .text(environment.name)]).first.map(Self.channel)
        }
    }

    /// The app's channels in `environment`, oldest first; deleted ones only with `includeDeleted`.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func channels(bundleID: String, environment: APNsEnvironment, includeDeleted: Bool = false) throws(ChannelError) -> [BroadcastChannel] {
        try run { sql throws(QueueError) -> [BroadcastChannel] in
            try sql.db.query("""
                SELECT \(Self.columns) FROM ap_channels WHERE bundle_id = ? AND environment = ? AND reserved = 0
                  \(includeDeleted ? "" : "AND deleted_unix IS NULL") ORDER BY created_unix, channel_id
                """, [.text(bundleID), .text(environment.name)]).map(Self.channel)
        }
    }

    /// Links a registered channel to the activity it serves (nil unlinks it). Returns false when the registry has
    /// no such channel.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    @discardableResult
    public func link(channelID: String, environment: APNsEnvironment, activityID: String?) throws(ChannelError) -> Bool {
        try run { sql throws(QueueError) -> Bool in
            !(try sql.db.query("UPDATE ap_channels SET activity_id = ? WHERE channel_id = ? AND environment = ? AND reserved = 0 RETURNING channel_id",
                             [activityID.sql, .text(channelID), .text(environment.name)])).isEmpty
        }
    }

    /// Links a live registered channel to `activityID` only if it still serves `expected` (nil: no activity) — a
    /// compare-and-swap, so of two activities starting on one free channel at once only the first gets it (the
    /// second finds the first's id and is refused). Returns false when the channel serves something else by now,
    /// or is not a live registered channel.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func link(channelID: String, environment: APNsEnvironment, activityID: String?, ifServing expected: String?) throws(ChannelError) -> Bool {
        try run { sql throws(QueueError) -> Bool in
            let same = sql.dialect == .postgres ? "activity_id IS NOT DISTINCT FROM ?" : "activity_id IS ?"
            return !(try sql.db.query("""
                UPDATE ap_channels SET activity_id = ? WHERE channel_id = ? AND environment = ? AND reserved = 0
                  AND deleted_unix IS NULL AND \(same) RETURNING channel_id
                """, [activityID.sql, .text(channelID), .text(environment.name), expected.sql])).isEmpty
        }
    }

    /// Marks a channel deleted at `nowUnixSeconds` (UNIX seconds); false when the registry has no live channel
    /// with this id.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    @discardableResult
    public func markDeleted(channelID: String, environment: APNsEnvironment, nowUnixSeconds: Double) throws(ChannelError) -> Bool {
        try run { sql throws(QueueError) -> Bool in
            !(try sql.db.query("""
                UPDATE ap_channels SET deleted_unix = ? WHERE channel_id = ? AND environment = ? AND deleted_unix IS NULL
                  AND reserved = 0 RETURNING channel_id
                """, [.double(nowUnixSeconds), .text(channelID), .text(environment.name)])).isEmpty
        }
    }

    /// Asks for the channel to be deleted at Apple once its activity's end broadcast is sent (`"deleteChannelOnEnd"`).
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func deleteOnEnd(channelID: String, environment: APNsEnvironment) throws(ChannelError) {
        try run { sql throws(QueueError) in
            _ = try sql.db.query("UPDATE ap_channels SET delete_on_end = 1 WHERE channel_id = ? AND environment = ?",
                               [.text(channelID), .text(environment.name)])
        }
    }

    /// Live channels marked ``deleteOnEnd(channelID:environment:)`` whose activity's end broadcast is finished
    /// (sent, or dead-lettered): what ``BroadcastChannels/deleteChannelsOfEndedActivities(nowUnixSeconds:)`` deletes.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/store``) when the database fails.
    public func dueForDeletion(environment: APNsEnvironment) throws(ChannelError) -> [BroadcastChannel] {
        try run { sql throws(QueueError) -> [BroadcastChannel] in
            try sql.db.query("""
                SELECT \(Self.columns) FROM ap_channels c WHERE c.environment = ? AND c.delete_on_end = 1
                  AND c.deleted_unix IS NULL AND c.reserved = 0 AND c.activity_id IS NOT NULL
                  AND EXISTS (SELECT 1 FROM ap_la_sends s WHERE s.activity_id = c.activity_id AND s.event = 'end'
                    AND s.target = c.channel_id
                    AND (EXISTS (SELECT 1 FROM ap_pushes_done d WHERE d.id = s.push_id AND d.state = 'sent')
                         OR EXISTS (SELECT 1 FROM ap_pushes p WHERE p.id = s.push_id AND p.state IN ('sent', 'dead'))))
                """, [.text(environment.name)]).map(Self.channel)
        }
    }

    // MARK: Internals

    private func run<T: Sendable>(_ body: (SQLOutbox) throws(QueueError) -> T) throws(ChannelError) -> T {
        do { return try outbox.run(body) } catch { throw ChannelError(.store, "channel registry: \(error.description)") }
    }

    static let columns = "channel_id, environment, bundle_id, storage_policy, created_unix, activity_id, deleted_unix"

    static func channel(_ row: [SQLValue]) -> BroadcastChannel {
        BroadcastChannel(channelID: row[0].text ?? "", environment: .stored(row[1].text ?? ""), bundleID: row[2].text ?? "",
                         storagePolicy: MessageStoragePolicy(rawValue: Int(row[3].int ?? 0)),
                         createdUnixSeconds: row[4].double ?? 0, activityID: row[5].text, deletedUnixSeconds: row[6].double)
    }
}

extension SQLOutbox {
    /// The registry's table and the broadcast budget's, created with the queue's tables (``SQLOutbox``'s schema).
    static func channelTables(_ dialect: SQLDialect) -> String {
        let real = dialect == .sqlite ? "REAL" : "DOUBLE PRECISION"
        return """
        CREATE TABLE IF NOT EXISTS ap_channels (
          channel_id TEXT NOT NULL,
          environment TEXT NOT NULL,
          bundle_id TEXT NOT NULL,
          storage_policy INTEGER NOT NULL,
          created_unix \(real) NOT NULL,
          activity_id TEXT,
          deleted_unix \(real),
          reserved INTEGER NOT NULL DEFAULT 0,
          delete_on_end INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (environment, channel_id)
        );
        CREATE INDEX IF NOT EXISTS ap_channels_app ON ap_channels (bundle_id, environment);
        CREATE INDEX IF NOT EXISTS ap_channels_activity ON ap_channels (activity_id);
        \(BroadcastBudget.tableDDL(dialect))
        """
    }
}
