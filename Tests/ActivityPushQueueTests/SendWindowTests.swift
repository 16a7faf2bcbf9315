import XCTest
@testable import ActivityPushQueue

/// The in-flight window's rules, without sockets: full until a connection fault, halved once per burst of
/// failures, grown back by one per answer, bounded by the floor and the limit.
final class SendWindowTests: XCTestCase {
    func testFaultBurstHalvesOnceThenAnswersGrowItBack() {
        var window = SendWindow(limit: 100)
        XCTAssertEqual(window.current, 100)
        let inFlight = (0..<100).map { _ in window.sent() }
        // A drop fails all 100 in flight: one halving for the burst.
        for sequence in inFlight { window.answered(sequence: sequence, connectionFault: true) }
        XCTAssertEqual(window.current, 50)
        // Sent after the halving: a new fault halves again.
        let later = (0..<10).map { _ in window.sent() }
        window.answered(sequence: later[0], connectionFault: true)
        XCTAssertEqual(window.current, 25)
        window.answered(sequence: later[1], connectionFault: true)
        XCTAssertEqual(window.current, 25, "same burst")
        // Answers grow it by one each, up to the limit.
        for _ in 0..<30 { window.answered(sequence: window.sent(), connectionFault: false) }
        XCTAssertEqual(window.current, 55)
        for _ in 0..<100 { window.answered(sequence: window.sent(), connectionFault: false) }
        XCTAssertEqual(window.current, 100)
    }

    func testFloorAndSmallLimits() {
        var window = SendWindow(limit: 20)
        for _ in 0..<10 { window.answered(sequence: window.sent(), connectionFault: true) }
        XCTAssertEqual(window.current, 8, "never below the floor")
        var one = SendWindow(limit: 1)
        one.answered(sequence: one.sent(), connectionFault: true)
        XCTAssertEqual(one.current, 1)
        XCTAssertEqual(SendWindow(limit: 0).current, 1)
    }
}
