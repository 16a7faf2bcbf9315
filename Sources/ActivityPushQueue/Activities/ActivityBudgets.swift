import Foundation

/// Apple's per-hour budgets, enforced by ``LiveActivityService`` from what the store holds (so every serve,
/// CLI and worker process sharing one database sees the same counts). Plain values and functions: tested
/// without a database.
///
/// - **push-to-start**: at most ``pushToStartPerHour`` starts to one push-to-start token in any hour (default
///   10). The device's own budget is fixed and not raisable; a start over it is dropped with `Push-to-start
///   budget exceeded for <bundle>::pushToStart` (spec §6.2, forum and device logs). A start over the budget is
///   **held**: queued with a not-before time when the oldest start in the window leaves it.
/// - **priority-10**: at most ``priority10UpdatesPerHour`` priority-10 updates per activity in any hour.
///   Apple: priority 10 counts against the per-hour ActivityKit budget, priority 5 does not; mix them
///   (spec §6.2, [A1]). Apple publishes no number; the default (60) is this project's. An update over it is
///   sent at **priority 5** instead of refused.
public struct ActivityBudgets: Sendable, Hashable {
    /// Starts per push-to-start token per ``windowSeconds``. Default 10.
    public var pushToStartPerHour: Int
    /// Priority-10 updates per activity per ``windowSeconds``. Default 60.
    public var priority10UpdatesPerHour: Int
    /// The budget window, seconds. Default 3600.
    public var windowSeconds: Double

    /// Makes budgets; the defaults are documented on each property.
    public init(pushToStartPerHour: Int = 10, priority10UpdatesPerHour: Int = 60, windowSeconds: Double = 3600) {
        self.pushToStartPerHour = pushToStartPerHour
        self.priority10UpdatesPerHour = priority10UpdatesPerHour
        self.windowSeconds = windowSeconds
    }

    /// The earliest time (UNIX seconds, ≥ `now`) a new start to a token may go, given the times its earlier
    /// starts were or will be sent (`scheduled`, UNIX seconds, any order). Starts keep their order: a new start
    /// never goes before one already held.
    public func pushToStartSlot(scheduled: [Double], now: Double) -> Double {
        let limit = max(1, pushToStartPerHour)
        let times = scheduled.sorted()
        var slot = max(now, times.last ?? now)
        // Each turn moves the slot past the oldest start in its window; at most `times.count` turns.
        for _ in 0...times.count {
            let inWindow = times.filter { $0 > slot - windowSeconds && $0 <= slot }
            guard inWindow.count >= limit else { return slot }
            slot = inWindow[inWindow.count - limit] + windowSeconds
        }
        return slot
    }

    /// The priority an update goes at: the one asked for, except 10 becomes 5 when the activity already had
    /// ``priority10UpdatesPerHour`` priority-10 updates within the window before `now` (`previous`: their UNIX
    /// seconds).
    public func updatePriority(requested: Int, previous: [Double], now: Double) -> Int {
        guard requested == 10 else { return requested }
        let recent = previous.filter { $0 > now - windowSeconds && $0 <= now }.count
        return recent >= priority10UpdatesPerHour ? 5 : 10
    }
}

/// Which budget held or lowered a push; named in the queue journal and in `GET /v1/activities/{id}`.
public struct ActivityBudget: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored name.
    public let rawValue: String
    /// Makes a budget name; any string is accepted (an open set).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a budget name from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The ``rawValue``.
    public var description: String { rawValue }

    /// ``ActivityBudgets/pushToStartPerHour``: the start waits.
    public static let pushToStart: ActivityBudget = "push-to-start-per-token-per-hour"
    /// ``ActivityBudgets/priority10UpdatesPerHour``: the update goes at priority 5.
    public static let priority10: ActivityBudget = "priority-10-updates-per-activity-per-hour"
}
