import Foundation
import XCTest
@testable import ActivityPushQueue

final class SQLiteQueueStoreTests: XCTestCase {
    private var contract: StoreContract {
        StoreContract(make: {
            let path = temporarySQLitePath()
            return (try SQLiteQueueStore(path: path), { try SQLiteQueueStore(path: path) })
        })
    }

    func testEnqueueStoresBuiltBytesAndFixesAPNsID() throws { try contract.enqueueStoresBuiltBytesAndFixesAPNsID() }
    func testEnqueueIsAllOrNothing() throws { try contract.enqueueIsAllOrNothing() }
    func testClaimLeasesAndExpiredLeasesReturn() throws { try contract.claimLeasesAndExpiredLeasesReturn() }
    func testCompleteMovesStatesAndStatusCounts() throws { try contract.completeMovesStatesAndStatusCounts() }
    func testNewerUpdateOrEndSupersedesOlderUnsentUpdates() throws { try contract.newerUpdateOrEndSupersedesOlderUnsentUpdates() }
    func testTwoConnectionsClaimDisjointSets() throws { try contract.twoConnectionsClaimDisjointSets() }
    func testJournalLimitGivesTheLatestAttempts() throws { try contract.journalLimitGivesTheLatestAttempts() }

    func testFileIsWALAndNotAQueueFileIsAClearError() throws {
        let path = temporarySQLitePath()
        let store = try SQLiteQueueStore(path: path)
        store.close()
        let conn = try SQLiteConnection(path: path)
        XCTAssertEqual(try conn.query("PRAGMA journal_mode", []).first?.first?.text, "wal")
        conn.close()

        let junk = temporarySQLitePath()
        try Data("this is not a database, just text that is long enough to have a header".utf8).write(to: URL(fileURLWithPath: junk))
        XCTAssertThrowsError(try SQLiteQueueStore(path: junk)) { e in
            XCTAssertTrue("\(e)".contains(junk), "error names the file: \(e)")
        }
        XCTAssertThrowsError(try SQLiteQueueStore(path: "/nonexistent-dir/q.sqlite")) { e in
            XCTAssertTrue("\(e)".contains("/nonexistent-dir/q.sqlite"))
        }
    }

    func testOutboxOpenPicksBackEnd() throws {
        let path = temporarySQLitePath()
        XCTAssertTrue(try Outbox.open(database: path).store is SQLiteQueueStore)
        XCTAssertEqual(try Outbox.open(database: "sqlite:" + path).store.location, "sqlite:" + path)
        XCTAssertThrowsError(try Outbox.open(database: "postgres://nobody:secret@127.0.0.1:1/none")) { e in
            XCTAssertFalse("\(e)".contains("secret"), "password must not appear in errors: \(e)")
            XCTAssertEqual((e as? QueueError)?.kind, .unavailable, "\(e)")
            XCTAssertEqual((e as? QueueError)?.location?.contains("127.0.0.1"), true, "\(e)")
            XCTAssertEqual((e as? QueueError)?.location?.contains("secret"), false, "\(e)")
        }
    }
}

final class PostgresQueueStoreTests: XCTestCase {
    private var contract: StoreContract {
        StoreContract(make: {
            let url = try PostgresTestServer.freshDatabase()
            return (try PostgresQueueStore(url: url), { try PostgresQueueStore(url: url) })
        })
    }

    func testEnqueueStoresBuiltBytesAndFixesAPNsID() throws { try contract.enqueueStoresBuiltBytesAndFixesAPNsID() }
    func testEnqueueIsAllOrNothing() throws { try contract.enqueueIsAllOrNothing() }
    func testClaimLeasesAndExpiredLeasesReturn() throws { try contract.claimLeasesAndExpiredLeasesReturn() }
    func testCompleteMovesStatesAndStatusCounts() throws { try contract.completeMovesStatesAndStatusCounts() }
    func testNewerUpdateOrEndSupersedesOlderUnsentUpdates() throws { try contract.newerUpdateOrEndSupersedesOlderUnsentUpdates() }
    func testTwoConnectionsClaimDisjointSets() throws { try contract.twoConnectionsClaimDisjointSets() }
    func testJournalLimitGivesTheLatestAttempts() throws { try contract.journalLimitGivesTheLatestAttempts() }

    func testPasswordIsMaskedInLocation() {
        XCTAssertEqual(PostgresConnection.redact("postgres://u:hunter2@db:5432/q"), "postgres://u:***@db:5432/q")
        XCTAssertEqual(PostgresConnection.redact("postgres://u@db/q"), "postgres://u@db/q")
        XCTAssertEqual(PostgresConnection.numbered("a = ? AND b = '?' AND c = ?"), "a = $1 AND b = '?' AND c = $2")
    }
}
