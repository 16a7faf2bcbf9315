import Foundation
import Synchronization
import XCTest
@testable import ActivityPushHTTP2

/// The epoll loop: work posted from other threads, timers in deadline order, cancellation, stop.
final class EventLoopTests: XCTestCase {
    func testExecuteRunsOnTheLoopThreadInOrder() throws {
        let loop = try EventLoop(name: "test-loop")
        loop.start()
        defer { loop.stop() }
        let seen = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<100 {
            loop.execute { _ in
                XCTAssertTrue(loop.inLoopThread)
                seen.withLock { $0.append(index) }
                if index == 99 { done.signal() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen.withLock { $0 }, Array(0..<100))
        XCTAssertFalse(loop.inLoopThread)
    }

    func testTimersFireByDeadlineAndCancelledOnesDoNot() throws {
        let loop = try EventLoop(name: "test-timers")
        loop.start()
        defer { loop.stop() }
        let fired = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        loop.execute { context in
            context.schedule(afterMilliseconds: 60) { _ in fired.withLock { $0.append("60") }; done.signal() }
            context.schedule(afterMilliseconds: 20) { _ in fired.withLock { $0.append("20") } }
            let cancelled = context.schedule(afterMilliseconds: 30) { _ in fired.withLock { $0.append("30") } }
            context.schedule(afterMilliseconds: 0) { _ in fired.withLock { $0.append("0") } }
            context.schedule(afterMilliseconds: 20) { _ in fired.withLock { $0.append("20b") } }
            context.cancel(cancelled)
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(fired.withLock { $0 }, ["0", "20", "20b", "60"])
    }

    func testTimerHeapOrdersManyEntries() {
        var heap = TimerHeap()
        let dues = (0..<500).map { _ in UInt64.random(in: 0..<50) }
        for (sequence, due) in dues.enumerated() { heap.insert(.init(due: due, sequence: UInt64(sequence), action: { _ in })) }
        var order: [(UInt64, UInt64)] = []
        while let entry = heap.removeEarliest() { order.append((entry.due, entry.sequence)) }
        XCTAssertEqual(order.count, 500)
        for (earlier, later) in zip(order, order.dropFirst()) {
            XCTAssertTrue(earlier.0 < later.0 || (earlier.0 == later.0 && earlier.1 < later.1))
        }
    }

    func testStopIsIdempotentAndDropsLaterWork() throws {
        let loop = try EventLoop(name: "test-stop")
        loop.start()
        loop.stop()
        loop.stop()
        loop.execute { _ in XCTFail("work after stop must not run") }
        Thread.sleep(forTimeInterval: 0.05)
    }
}
