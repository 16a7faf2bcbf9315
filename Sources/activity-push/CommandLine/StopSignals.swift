import Foundation

/// SIGINT and SIGTERM for the commands that stop cleanly on them (`serve`, `mock-apns`, `worker`).
///
/// ``block()`` runs on the main thread before the command starts, so every thread started afterwards inherits
/// the mask and a signal stays pending until taken with `sigwait` — never lost in a window before a handler is
/// installed (a SIGTERM sent the moment `serve` printed its URL once went unanswered). ``next()`` waits on a
/// thread of its own, not on one of Swift's few cooperative threads.
enum StopSignals {
    static let numbers: [Int32] = [SIGINT, SIGTERM]

    private static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers { sigaddset(&signals, number) }
        return signals
    }

    /// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts afterwards.
    static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits for SIGINT or SIGTERM (after ``block()``) and returns which arrived.
    static func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let waiter = Thread {
                var signals = set
                var received: Int32 = 0
                sigwait(&signals, &received)
                continuation.resume(returning: received)
            }
            waiter.name = "activity-push signals"
            waiter.start()
        }
    }

    /// Runs `action` on the first SIGINT or SIGTERM, and again on each later one (the worker's `stop`).
    static func onEach(_ action: @escaping @Sendable (Int32) -> Void) {
        let waiter = Thread {
            var signals = set
            while true {
                var received: Int32 = 0
                guard sigwait(&signals, &received) == 0 else { return }
                action(received)
            }
        }
        waiter.name = "activity-push signals"
        waiter.start()
    }
}
