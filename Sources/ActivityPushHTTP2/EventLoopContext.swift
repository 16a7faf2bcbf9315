import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// Which readiness a registered descriptor waits for.
package struct IOInterest: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let read = IOInterest(rawValue: 1)
    package static let write = IOInterest(rawValue: 2)
    package static let none: IOInterest = []
}

/// An object that owns a descriptor registered with the loop (a listener, a connection). Called on the loop
/// thread only.
package protocol EventLoopIOHandler: AnyObject {
    /// The descriptor is readable (or hung up / in error: a read then reports it) and/or writable.
    func handleIO(readable: Bool, writable: Bool, context: EventLoopContext)
    /// The loop is stopping: close the descriptor and release resources. No further calls follow.
    func loopWillClose(context: EventLoopContext)
}

/// Identifies one registration (not the descriptor number: a closed descriptor's number is reused at once,
/// and a stale event must not reach the new owner).
package struct IORegistration: Hashable, Sendable {
    fileprivate let token: UInt64
}

/// Identifies one scheduled timer, for ``EventLoopContext/cancel(_:)``.
package struct TimerHandle: Hashable, Sendable {
    fileprivate let sequence: UInt64
}

/// A `Sendable` reference to an object that lives on the loop thread: hand it to other threads, and resolve it
/// back inside work posted with ``EventLoop/execute(_:)`` (e.g. a connection to answer once a result computed
/// elsewhere is ready). Resolving yields nil once the object was unbound or the loop stopped.
package struct LoopBound<Value: AnyObject>: Sendable, Hashable {
    fileprivate let key: UInt64
}

/// The loop thread's state: registrations, interest, timers. Handed to work items and handlers; never
/// escapes the loop thread (not `Sendable`).
package final class EventLoopContext {
    static let wakeToken: UInt64 = 0
    private let pollDescriptor: Int32
    /// The loop this context runs; use it to hand work to the loop from other threads.
    package unowned let loop: EventLoop
    private var registrations: [UInt64: Registration] = [:]
    private var nextToken: UInt64 = 1
    private var timers = TimerHeap()
    private var cancelledTimers = Set<UInt64>()
    private var nextTimerSequence: UInt64 = 1
    private var boundObjects: [UInt64: AnyObject] = [:]
    private var nextBoundKey: UInt64 = 1

    private struct Registration {
        var descriptor: Int32
        var interest: IOInterest
        var handler: EventLoopIOHandler
    }

    init(pollDescriptor: Int32, loop: EventLoop) {
        self.pollDescriptor = pollDescriptor
        self.loop = loop
    }

    // MARK: descriptors

    /// Starts watching `descriptor` for `interest`; the context keeps `handler` alive until `deregister`.
    /// - Throws: ``HTTP2TransportError`` `.socket` when `epoll_ctl` refuses the descriptor.
    @discardableResult
    package func register(descriptor: Int32, interest: IOInterest, handler: EventLoopIOHandler) throws -> IORegistration {
        let token = nextToken
        nextToken += 1
        var event = epoll_event()
        event.events = Self.epollEvents(interest)
        event.data.u64 = token
        guard epoll_ctl(pollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            throw HTTP2TransportError(.socket, "epoll_ctl(ADD) failed: \(Descriptors.lastErrorText())")
        }
        registrations[token] = Registration(descriptor: descriptor, interest: interest, handler: handler)
        return IORegistration(token: token)
    }

    /// Changes what the descriptor waits for (a system call only when it differs).
    package func setInterest(_ interest: IOInterest, for registration: IORegistration) {
        guard var entry = registrations[registration.token], entry.interest != interest else { return }
        entry.interest = interest
        registrations[registration.token] = entry
        var event = epoll_event()
        event.events = Self.epollEvents(interest)
        event.data.u64 = registration.token
        _ = epoll_ctl(pollDescriptor, EPOLL_CTL_MOD, entry.descriptor, &event)
    }

    /// Stops watching (call before closing the descriptor). Unknown registrations are ignored.
    package func deregister(_ registration: IORegistration) {
        guard let entry = registrations.removeValue(forKey: registration.token) else { return }
        var event = epoll_event()
        _ = epoll_ctl(pollDescriptor, EPOLL_CTL_DEL, entry.descriptor, &event)
    }

    /// Registered descriptors now (listeners included).
    package var registrationCount: Int { registrations.count }

    private static func epollEvents(_ interest: IOInterest) -> UInt32 {
        var events: UInt32 = 0
        if interest.contains(.read) { events |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.write) { events |= EPOLLOUT.rawValue }
        return events
    }

    func dispatch(token: UInt64, events: UInt32) {
        guard let entry = registrations[token] else { return }
        let failed = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0
        let readable = events & EPOLLIN.rawValue != 0 || failed
        let writable = events & EPOLLOUT.rawValue != 0
        entry.handler.handleIO(readable: readable, writable: writable, context: self)
    }

    // MARK: timers

    /// Runs `action` on the loop thread after `milliseconds` (0: at the end of this loop turn).
    @discardableResult
    package func schedule(afterMilliseconds milliseconds: Int, _ action: @escaping (EventLoopContext) -> Void) -> TimerHandle {
        let sequence = nextTimerSequence
        nextTimerSequence += 1
        timers.insert(TimerHeap.Entry(due: monotonicMilliseconds() + UInt64(max(0, milliseconds)), sequence: sequence, action: action))
        return TimerHandle(sequence: sequence)
    }

    /// Cancels a timer that has not fired (a fired or unknown one is ignored).
    package func cancel(_ timer: TimerHandle) {
        if timer.sequence < nextTimerSequence { cancelledTimers.insert(timer.sequence) }
    }

    func millisecondsUntilNextTimer(now: UInt64) -> Int32 {
        guard let due = timers.earliestDue else { return -1 }
        return due <= now ? 0 : Int32(min(due - now, 60_000))
    }

    func fireDueTimers(now: UInt64) {
        while let due = timers.earliestDue, due <= now, let entry = timers.removeEarliest() {
            if cancelledTimers.remove(entry.sequence) != nil { continue }
            entry.action(self)
        }
        if timers.isEmpty { cancelledTimers.removeAll() }
    }

    // MARK: loop-bound objects

    /// Keeps `value` reachable through the returned handle until `unbind` (or the loop stops).
    package func bind<Value: AnyObject>(_ value: Value) -> LoopBound<Value> {
        let key = nextBoundKey
        nextBoundKey += 1
        boundObjects[key] = value
        return LoopBound(key: key)
    }

    /// The object behind `handle`, nil after `unbind`.
    package func resolve<Value: AnyObject>(_ handle: LoopBound<Value>) -> Value? { boundObjects[handle.key] as? Value }

    /// Releases the object behind `handle`.
    package func unbind<Value: AnyObject>(_ handle: LoopBound<Value>) { boundObjects[handle.key] = nil }

    // MARK: shutdown

    func closeAll() {
        let handlers = registrations.values.map(\.handler)
        for handler in handlers { handler.loopWillClose(context: self) }
        registrations.removeAll()
        timers = TimerHeap()
        boundObjects.removeAll()
    }
}

/// A binary min-heap of timers by due time, then scheduling order (equal deadlines fire in order).
struct TimerHeap {
    struct Entry {
        var due: UInt64
        var sequence: UInt64
        var action: (EventLoopContext) -> Void
        func precedes(_ other: Entry) -> Bool { due != other.due ? due < other.due : sequence < other.sequence }
    }

    private var entries: [Entry] = []
    var isEmpty: Bool { entries.isEmpty }
    var earliestDue: UInt64? { entries.first?.due }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeEarliest() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let earliest = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return earliest
    }
}
