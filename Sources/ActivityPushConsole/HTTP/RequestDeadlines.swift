/// When each open connection must have delivered its request: the whole request head within
/// ``headSeconds`` of the connection opening (or of the previous answer, on a kept-alive connection), and the
/// whole request, body included, within ``requestSeconds``. Bytes that trickle in do not move a deadline, so a
/// slowloris client that sends one header line every few seconds is cut off like one that sends nothing.
///
/// A plain value: the server feeds it connection events and asks which connections are overdue; times are
/// seconds on any monotonic clock.
struct RequestDeadlines: Sendable {
    /// Seconds from a connection's start (or the previous answer) to the end of the request head.
    var headSeconds: Double
    /// Seconds from the same start to the end of the request body.
    var requestSeconds: Double

    private enum Phase: Sendable { case head, body, answering, cutOff }

    private struct Entry: Sendable {
        var socket: Int32
        var start: Double
        var phase: Phase
    }

    private var entries: [UInt: Entry] = [:]

    init(headSeconds: Double = 10, requestSeconds: Double = 30) {
        self.headSeconds = headSeconds
        self.requestSeconds = requestSeconds
    }

    /// Connections being watched.
    var count: Int { entries.count }

    mutating func opened(_ connection: UInt, socket: Int32, at now: Double) {
        entries[connection] = Entry(socket: socket, start: now, phase: .head)
    }

    /// The request head is complete; the body (if any) follows.
    mutating func headReceived(_ connection: UInt) {
        entries[connection]?.phase = .body
    }

    /// The whole request is in; the handler runs and no deadline applies until it has answered.
    mutating func requestReceived(_ connection: UInt) {
        entries[connection]?.phase = .answering
    }

    /// The answer went out (or the request ended); a kept-alive connection's next head starts its clock now.
    mutating func answered(_ connection: UInt, at now: Double) {
        guard entries[connection]?.phase != .cutOff else { return }
        entries[connection]?.start = now
        entries[connection]?.phase = .head
    }

    mutating func closed(_ connection: UInt) {
        entries[connection] = nil
    }

    /// The sockets of connections past their deadline, each reported once (then marked cut off).
    mutating func overdue(at now: Double) -> [Int32] {
        var sockets: [Int32] = []
        for (connection, entry) in entries {
            let limit: Double
            switch entry.phase {
            case .head: limit = headSeconds
            case .body: limit = requestSeconds
            case .answering, .cutOff: continue
            }
            if now - entry.start > limit {
                sockets.append(entry.socket)
                entries[connection]?.phase = .cutOff
            }
        }
        return sockets
    }
}
