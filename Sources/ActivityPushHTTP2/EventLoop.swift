import CEpoll
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One I/O thread driven by `epoll(7)` (level-triggered): descriptor readiness, timers, and work posted from
/// other threads (woken through an `eventfd`). Both HTTP/2 roles run on it: the mock's listener and server
/// connections, and the APNs client's connections.
///
/// The handle is `Sendable`: any thread may `execute` work or `stop()` the loop. Everything that touches
/// descriptors lives in the loop thread's ``EventLoopContext``, which work items receive as their argument and
/// which never leaves that thread.
///
/// ```swift
/// let loop = try EventLoop(name: "mock-apns")
/// loop.start()
/// loop.execute { context in /* register descriptors, schedule timers */ }
/// loop.stop()   // closes every registered handler, joins the thread
/// ```
package final class EventLoop: Sendable {
    package let name: String
    private let pollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let pending = Mutex<[@Sendable (EventLoopContext) -> Void]>([])
    private let phase = Mutex<Phase>(.created)
    private let finished = DispatchSemaphore(value: 0)
    private let loopThreadID = Mutex<pthread_t?>(nil)

    private enum Phase { case created, running, stopping, stopped }

    /// Creates the epoll instance and the wake-up eventfd; the thread starts with `start()`.
    /// - Throws: ``HTTP2TransportError`` `.socket` when the kernel refuses either descriptor (descriptor limit).
    package init(name: String) throws {
        self.name = name
        let poll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard poll >= 0 else { throw HTTP2TransportError(.socket, "epoll_create1 failed: \(Descriptors.lastErrorText())") }
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else {
            Descriptors.close(poll)
            throw HTTP2TransportError(.socket, "eventfd failed: \(Descriptors.lastErrorText())")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = EventLoopContext.wakeToken
        _ = epoll_ctl(poll, EPOLL_CTL_ADD, wake, &event)
        pollDescriptor = poll
        wakeDescriptor = wake
    }

    deinit {
        Descriptors.close(pollDescriptor)
        Descriptors.close(wakeDescriptor)
    }

    /// Starts the loop thread. Calling it again does nothing.
    package func start() {
        let shouldStart = phase.withLock { current -> Bool in
            guard current == .created else { return false }
            current = .running
            return true
        }
        guard shouldStart else { return }
        let thread = Thread { [self] in
            self.loopThreadID.withLock { $0 = pthread_self() }
            self.run()
            self.finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `work` on the loop thread as soon as it is free (FIFO). Work posted after `stop()` is dropped.
    package func execute(_ work: @escaping @Sendable (EventLoopContext) -> Void) {
        pending.withLock { $0.append(work) }
        wake()
    }

    /// True on the loop's own thread.
    package var inLoopThread: Bool {
        loopThreadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Stops the loop: every registered handler gets ``EventLoopIOHandler/loopWillClose(context:)`` (connections
    /// close, listeners stop accepting), then the thread ends. Waits for it unless called on the loop thread.
    /// Idempotent.
    package func stop() {
        let wasRunning = phase.withLock { current -> Bool in
            switch current {
            case .created: current = .stopped; return false
            case .running: current = .stopping; return true
            case .stopping, .stopped: return false
            }
        }
        guard wasRunning else { return }
        wake()
        if !inLoopThread { finished.wait() }
    }

    private var isStopping: Bool { phase.withLock { $0 != .running } }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        let context = EventLoopContext(pollDescriptor: pollDescriptor, loop: self)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !isStopping {
            let timeout = context.millisecondsUntilNextTimer(now: monotonicMilliseconds())
            let count = epoll_wait(pollDescriptor, &events, Int32(events.count), timeout)
            if count < 0 && errno != EINTR { break }
            if isStopping { break }
            for index in 0..<max(0, Int(count)) {
                let token = events[index].data.u64
                if token == EventLoopContext.wakeToken {
                    var counter: UInt64 = 0
                    _ = read(wakeDescriptor, &counter, MemoryLayout<UInt64>.size)
                    continue
                }
                context.dispatch(token: token, events: events[index].events)
            }
            context.fireDueTimers(now: monotonicMilliseconds())
            let work = pending.withLock { queue -> [@Sendable (EventLoopContext) -> Void] in
                let taken = queue
                queue.removeAll()
                return taken
            }
            for item in work { item(context) }
        }
        context.closeAll()
        pending.withLock { $0.removeAll() }
        phase.withLock { $0 = .stopped }
    }
}
