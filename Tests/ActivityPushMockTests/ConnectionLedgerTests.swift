import XCTest
@testable import ActivityPushMock

/// The honest-GOAWAY decisions as a plain value, without sockets.
final class ConnectionLedgerTests: XCTestCase {
    func testGoawayNamesTheHighestProcessedStreamAndCutsLaterOnes() {
        var ledger = MockConnectionLedger()
        XCTAssertEqual(ledger.admit(streamID: 1), .process(faultsApply: true))
        ledger.processed(streamID: 1)
        ledger.processed(streamID: 5)   // out of order: stream 3's body is still arriving
        XCTAssertEqual(ledger.announceGoaway(graceful: true), 5)
        XCTAssertEqual(ledger.admit(streamID: 3), .process(faultsApply: false), "below the last-stream-id: must be answered, no fault")
        XCTAssertEqual(ledger.admit(streamID: 7), .cutByGoaway)
        XCTAssertFalse(ledger.mayClose(unansweredStreamIDs: [3, 7]), "stream 3 still owes an answer")
        XCTAssertTrue(ledger.mayClose(unansweredStreamIDs: [7]), "only streams above the id are left")
        XCTAssertTrue(ledger.mayClose(unansweredStreamIDs: []))
    }

    func testNothingProcessedMeansLastStreamIDZeroAndASecondGoawayNeverRaisesIt() {
        var ledger = MockConnectionLedger()
        XCTAssertEqual(ledger.announceGoaway(graceful: false), 0)
        XCTAssertFalse(ledger.mayClose(unansweredStreamIDs: []), "an abrupt GOAWAY closes by itself, not by this rule")
        ledger.processed(streamID: 9)   // cannot happen through admit, but the id must still not grow
        XCTAssertEqual(ledger.announceGoaway(graceful: true), 0)
        XCTAssertEqual(ledger.admit(streamID: 1), .cutByGoaway)
    }
}
