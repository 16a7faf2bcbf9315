/// How many pushes a worker keeps in flight, decided without I/O (a plain value, tested without sockets).
///
/// The configured window while answers come back. A connection fault fails every request in flight on that
/// connection at once ("may have been processed": a drop, an abrupt close, a deadline), and each of those is
/// sent again later — so a full window turns every fault into a window of resends. On the first such failure
/// of a burst the window halves (once: the other failures of the same burst were in flight already); every
/// other answer grows it back by one, so it doubles per round trip and one fault costs about one round
/// trip of reduced flight. It never drops below `floor` nor exceeds `limit`.
struct SendWindow: Sendable, Hashable {
    /// The configured window (`WorkerOptions.window`).
    let limit: Int
    /// The least it shrinks to: 8, or the limit when smaller.
    let floor: Int
    /// Pushes that may be in flight now.
    private(set) var current: Int
    /// The number the next send gets.
    private(set) var nextSequence = 0
    /// Sends numbered below this were in flight at the last halving: their failures belong to that burst.
    private var fence = 0

    init(limit: Int) {
        self.limit = max(1, limit)
        floor = min(self.limit, 8)
        current = self.limit
    }

    /// Numbers one send; give the number back to ``answered(sequence:connectionFault:)``.
    mutating func sent() -> Int {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// - Parameter connectionFault: the request was written and never answered (may have been processed).
    mutating func answered(sequence: Int, connectionFault: Bool) {
        if connectionFault {
            guard sequence >= fence else { return }
            current = max(floor, current / 2)
            fence = nextSequence
        } else {
            current = min(limit, current + 1)
        }
    }
}
