import ActivityPushCore
import Foundation
import Synchronization

/// One push the console sent or enqueued, as `GET /v1/journal` shows it. Tokens appear only redacted
/// (first and last 4 hex digits).
struct ConsoleJournalEntry: Sendable {
    var time: Double
    /// `send` or `enqueue`.
    var action: String
    var event: String
    /// Redacted device token, or `channel:<id>` for a broadcast.
    var target: String
    var status: Int?
    var reason: String?
    var apnsID: String?
    var latencyMilliseconds: Double?
    /// The transport error when no APNs answer came.
    var error: String?
    /// What the (mock) device did with it, when known: `started`, `updated`, `ended`, `ignored`, `rejected`.
    var device: DeviceOutcome?
    /// Queue row ids (enqueue).
    var queueIDs: [Int64] = []

    var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("time", .string(Self.iso8601(time))), ("action", .string(action)), ("event", .string(event)),
            ("target", .string(target)),
        ]
        members.append(("status", status.map { .int($0) } ?? .null))
        members.append(("reason", reason.map { .string($0) } ?? .null))
        members.append(("apnsID", apnsID.map { .string($0) } ?? .null))
        members.append(("latencyMs", latencyMilliseconds.map { .double(($0 * 10).rounded() / 10) } ?? .null))
        if let error { members.append(("error", .string(error))) }
        members.append(("device", device?.json ?? .null))
        if !queueIDs.isEmpty { members.append(("queueIDs", .arr(queueIDs.map { .number(JSONNumber(lexeme: String($0))) }))) }
        return .obj(members)
    }

    static func iso8601(_ unixSeconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: unixSeconds))
    }
}

/// The last sends and enqueues of this console process (newest first), bounded.
final class ConsoleJournal: Sendable {
    private let entries = Mutex<[ConsoleJournalEntry]>([])
    let capacity: Int

    init(capacity: Int = 200) { self.capacity = capacity }

    func append(_ entry: ConsoleJournalEntry) {
        entries.withLock { entries in
            entries.insert(entry, at: 0)
            if entries.count > capacity { entries.removeLast(entries.count - capacity) }
        }
    }

    func recent(_ limit: Int) -> [ConsoleJournalEntry] { entries.withLock { Array($0.prefix(limit)) } }
}
