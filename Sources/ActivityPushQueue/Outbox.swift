import ActivityPushCore
import Foundation

/// The front door of the queue: opens a store from a `--database` value and turns built pushes into stored
/// rows, one per token.
///
/// What is stored is exactly the ``PushRequest`` the builder made (headers and body bytes; a body is never
/// re-assembled), plus: an `apns-id` fixed now so every retry carries the same id (APNs echoes it, the mock
/// journals it); for a start, `apns-collapse-id` = that apns-id when none is set, so a duplicate sent after a
/// crash collapses on the device instead of starting a second activity.
public final class Outbox: Sendable {
    /// Where the rows go (SQLite or PostgreSQL); workers read the same store.
    public let store: any QueueStore

    /// An outbox on an already opened store (tests, or a store opened by other means than ``open(database:)``).
    public init(store: any QueueStore) { self.store = store }

    /// Opens the queue named by `database`:
    /// - `postgres://…` or `postgresql://…`: PostgreSQL (``PostgresQueueStore``);
    /// - `sqlite:PATH` or any other value: a SQLite file (``SQLiteQueueStore``);
    /// - nil or empty: ``SQLiteQueueStore/defaultPath``, its directory created when missing.
    /// A libpq keyword/value string (`host=127.0.0.1 port=5432 dbname=q`) is refused with the fix (give a
    /// `postgres://` URL) rather than taken as a SQLite file name.
    /// - Throws: ``QueueError`` when the database cannot be opened, or for a keyword/value string.
    public static func open(database: String?) throws(QueueError) -> Outbox {
        let d = database ?? ""
        if d.hasPrefix("postgres://") || d.hasPrefix("postgresql://") {
            return Outbox(store: try PostgresQueueStore(url: d))
        }
        if let refusal = keywordConnectionStringRefusal(d) { throw refusal }
        var path = d.hasPrefix("sqlite:") ? String(d.dropFirst("sqlite:".count)) : d
        if path.isEmpty {
            path = SQLiteQueueStore.defaultPath
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        }
        return Outbox(store: try SQLiteQueueStore(path: path))
    }

    /// The ``QueueError/Kind/invalidInput`` for a `--database` that reads as a libpq keyword/value string — it has
    /// `=` and a space, or starts with a libpq keyword and `=` — else nil. Its password is masked in the message.
    static func keywordConnectionStringRefusal(_ database: String) -> QueueError? {
        guard !database.hasPrefix("sqlite:"), database.contains("=") else { return nil }
        let keywords = ["host", "hostaddr", "port", "dbname", "user", "password", "service", "sslmode", "connect_timeout"]
        let startsWithKeyword = keywords.contains { database.lowercased().hasPrefix($0 + "=") }
        guard startsWithKeyword || database.contains(" ") else { return nil }
        return QueueError("--database \(database): looks like a libpq keyword/value connection string, not a SQLite path",
                          kind: .invalidInput,
                          fix: "give PostgreSQL as a URL: postgres://USER@HOST:PORT/DB (the password in PGPASSWORD or ~/.pgpass), "
                             + "or a SQLite file as sqlite:PATH")
    }

    /// The rows ``enqueue(_:to:environment:credential:notBeforeUnixSeconds:nowUnixSeconds:)`` would store,
    /// for callers that batch many requests into one ``QueueStore/enqueue(_:nowUnixSeconds:)``.
    /// - Parameters:
    ///   - targets: hex device tokens for a device push (one row each); empty for a broadcast push (its channel
    ///     id is the target).
    /// - Throws: ``QueueError`` for a token that is not hex, a broadcast given tokens, or a device push given none.
    public static func rows(for request: PushRequest, to targets: [String], environment: APNsEnvironment = .sandbox,
                            credential: String = "default", notBeforeUnixSeconds: Double) throws(QueueError) -> [NewPush] {
        let apsTimestamp = NewPush.apsTimestamp(of: request.body)
        let list: [String]
        switch request.destination {
        case .broadcast(let channelID):
            guard targets.isEmpty || targets == [channelID] else {
                throw QueueError("a broadcast push goes to its channel (\(channelID))", kind: .invalidInput,
                                 fix: "do not give device tokens")
            }
            list = [channelID]
        case .device:
            guard !targets.isEmpty else { throw QueueError("a device push needs at least one token", kind: .invalidInput,
                                                             fix: "give --token or --tokens-file") }
            for (i, t) in targets.enumerated() where !DeviceToken.isHex(t) {
                throw QueueError("token \(i + 1) '\(DeviceToken.redacted(t))' is not a hex device token", kind: .invalidInput,
                                 tokenNumber: i + 1, fix: DeviceTokenError.fix)
            }
            list = targets
        }
        return list.map { target in
            let id = (list.count == 1 ? request.apnsID : nil) ?? UUID().uuidString.lowercased()
            let req = request.with(apnsID: id)
            var headers = req.headers
            if request.event == .start && headers.collapseID == nil { headers.collapseID = id }
            // Hex tokens are stored lowercase; a channel id is base64, where case matters.
            let stored: String
            if case .broadcast = request.destination { stored = target } else { stored = target.lowercased() }
            return NewPush(request: req, headers: headers, target: stored, environment: environment,
                           credential: credential, notBeforeUnixSeconds: notBeforeUnixSeconds, apsTimestamp: apsTimestamp)
        }
    }

    /// Stores one push per target in one transaction and returns the new ids.
    /// - Parameter notBeforeUnixSeconds: not sent before this time (UNIX seconds); nil = now.
    /// - Throws: ``QueueError`` for bad targets (nothing stored) or a database failure (nothing stored).
    @discardableResult
    public func enqueue(_ request: PushRequest, to targets: [String], environment: APNsEnvironment = .sandbox,
                        credential: String = "default", notBeforeUnixSeconds: Double? = nil,
                        nowUnixSeconds: Double = Date().timeIntervalSince1970) throws(QueueError) -> [Int64] {
        let rows = try Self.rows(for: request, to: targets, environment: environment, credential: credential,
                                 notBeforeUnixSeconds: notBeforeUnixSeconds ?? nowUnixSeconds)
        return try store.enqueue(rows, nowUnixSeconds: nowUnixSeconds)
    }

}
