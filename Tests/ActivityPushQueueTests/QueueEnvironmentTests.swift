import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// The queue's environment is Core's ``APNsEnvironment``: stored as its name (the column existing databases
/// already hold), read back as the same environment, and claimed only by a worker for that environment.
final class QueueEnvironmentTests: XCTestCase {
    private let now = 1_800_000_000.0

    func testEnvironmentIsStoredByNameAndReadBack() throws {
        let path = temporarySQLitePath()
        let store = try SQLiteQueueStore(path: path)
        defer { store.close() }
        let outbox = Outbox(store: store)
        let production = try outbox.enqueue(try Pushes.update(ts: 1), to: [Pushes.token(1)], environment: .production, nowUnixSeconds: now)
        let sandbox = try outbox.enqueue(try Pushes.update(ts: 1), to: [Pushes.token(2)], nowUnixSeconds: now)
        XCTAssertEqual(try store.push(id: production[0])?.environment, .production)
        XCTAssertEqual(try store.push(id: sandbox[0])?.environment, .sandbox, "the default is the sandbox")

        // The column holds the name, as databases written before the type did.
        let connection = try SQLiteConnection(path: path)
        defer { connection.close() }
        let names = try connection.query("SELECT environment FROM ap_pushes ORDER BY id", []).compactMap { $0.first?.text }
        XCTAssertEqual(names, ["production", "sandbox"])

        // A worker for one environment claims only its rows.
        let claimed = try store.claim(worker: "w", limit: 10, leaseSeconds: 30, environment: .production, credential: "default",
                                      nowUnixSeconds: now)
        XCTAssertEqual(claimed.map(\.id), production)
        XCTAssertFalse(try store.isDrained(environment: .sandbox, credential: "default", nowUnixSeconds: now))
    }

    func testAnOlderLabelReadsBackUnderItsName() {
        XCTAssertEqual(APNsEnvironment.stored("production"), .production)
        XCTAssertEqual(APNsEnvironment.stored("sandbox"), .sandbox)
        XCTAssertEqual(APNsEnvironment.stored("staging").name, "staging", "a label given beside --url keeps its name")
    }
}
