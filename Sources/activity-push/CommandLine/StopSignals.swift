import Foundation
import Synchronization

/// The pipe the signal handler writes to: its write end (read by the handler, which must not allocate or lock).
private let stopSignalPipeWriteEnd = Atomic<Int32>(-1)
/// Its read end, read by the waiting threads.
private let stopSignalPipeReadEnd = Atomic<Int32>(-1)

/// SIGINT and SIGTERM for the commands that stop cleanly on them (`serve`, `mock-apns`, `worker`).
///
/// ``install()`` runs first thing in `main` for those commands: from then on a signal is caught by a handler
/// (whichever thread it lands on) that writes its number to a pipe, so a signal is never lost in a window
/// before anyone waits for it (a SIGTERM sent the moment `serve` printed its URL once went unanswered).
/// ``next()`` and ``onEach(_:)`` read the pipe on a thread of their own, not on one of Swift's few cooperative
/// threads. A thread-mask-and-`sigwait` scheme does not fit an `async` main: the runtime's threads exist before
/// `main` runs and would take the signal with its default action.
enum StopSignals {
    static let numbers: [Int32] = [SIGINT, SIGTERM]

    /// Installs the handler for SIGINT and SIGTERM (once).
    static func install() {
        guard stopSignalPipeWriteEnd.load(ordering: .acquiring) < 0 else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        stopSignalPipeReadEnd.store(ends[0], ordering: .releasing)
        stopSignalPipeWriteEnd.store(ends[1], ordering: .releasing)
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { signalNumber in
            var byte = UInt8(truncatingIfNeeded: signalNumber)
            _ = write(stopSignalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
        }
        #else
        action.__sigaction_u.__sa_handler = { signalNumber in
            var byte = UInt8(truncatingIfNeeded: signalNumber)
            _ = write(stopSignalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
        }
        #endif
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in numbers { sigaction(number, &action, nil) }
    }

    /// The next signal's number, read from the pipe (blocking the calling thread); nil if the pipe failed.
    private static func read() -> Int32? {
        let readEnd = stopSignalPipeReadEnd.load(ordering: .acquiring)
        guard readEnd >= 0 else { return nil }
        var byte: UInt8 = 0
        while true {
            let count = Foundation.read(readEnd, &byte, 1)
            if count == 1 { return Int32(byte) }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }

    /// Waits for SIGINT or SIGTERM (after ``install()``) and returns which arrived.
    static func next() async -> Int32 {
        install()
        return await withCheckedContinuation { continuation in
            let waiter = Thread {
                continuation.resume(returning: read() ?? SIGTERM)
            }
            waiter.name = "activity-push signals"
            waiter.start()
        }
    }

    /// Runs `action` on each SIGINT or SIGTERM from now on (the worker's `stop`), on a thread of its own.
    static func onEach(_ action: @escaping @Sendable (Int32) -> Void) {
        install()
        let waiter = Thread {
            while let number = read() { action(number) }
        }
        waiter.name = "activity-push signals"
        waiter.start()
    }
}
