/// One HTTP/2 connection on the loop, for either role: a ``ByteStream`` (TCP or TLS) carrying an
/// ``HTTP2Session``. It moves bytes only — the role (server or client) is the session's delegate and decides.
///
/// Readiness is asked for only when there is something to do: read always (while open); write only while
/// output is queued, the session has frames to send after the handshake, or TLS needs the socket writable. A
/// peer that connects and never speaks costs no CPU (no wake-ups before or after the handshake).
///
/// Loop thread only. `close()` is safe anywhere, including inside a session callback (it then takes effect
/// when nghttp2 returns).
package final class HTTP2Connection: EventLoopIOHandler {
    /// Unique per listener (server) or per client; for logs, per-connection state and stats.
    package let id: Int
    package let stream: ByteStream
    package let session: HTTP2Session
    /// Called once, on the loop thread, after the descriptor is closed.
    package var onClose: ((HTTP2Connection) -> Void)?
    /// Called once when the TLS handshake completes (at once for cleartext), before any HTTP/2 byte is read.
    package var onHandshakeComplete: ((HTTP2Connection) -> Void)?

    package private(set) var isClosed = false
    package private(set) var handshakeComplete = false
    /// Monotonic milliseconds of the last bytes read (or of the connection's start): for idle timeouts.
    package private(set) var lastReadMilliseconds: UInt64 = monotonicMilliseconds()
    package private(set) var bytesRead = 0
    package private(set) var bytesWritten = 0

    private weak var context: EventLoopContext?
    private var registration: IORegistration?
    private var handshakeWaitsFor: IOInterest = .read
    private var readWaitsForWritable = false
    private var writeWaitsForReadable = false
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var inputBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    private var insideTurn = false
    private var pendingClose: CloseMode?

    /// How `close` ends the connection.
    package enum CloseMode: Sendable {
        /// Drop at once: queued output is discarded (an abrupt close, as a crashed peer would).
        case immediately
        /// Send what the session has queued (e.g. a GOAWAY), then close.
        case afterFlush
    }

    package init(id: Int, stream: ByteStream, session: HTTP2Session) {
        self.id = id
        self.stream = stream
        self.session = session
    }

    /// Registers with the loop and writes whatever the session already queued (the server's SETTINGS; the
    /// client's preface) once the handshake allows.
    /// - Throws: ``HTTP2TransportError`` `.socket` when the loop cannot watch the descriptor (the stream is closed).
    package func attach(to context: EventLoopContext) throws {
        self.context = context
        do {
            registration = try context.register(descriptor: stream.descriptor, interest: .read, handler: self)
        } catch {
            finishClose()
            throw error
        }
        runTurn { advanceHandshake() }
    }

    /// Closes the connection now or after the queued output is written. Idempotent.
    package func close(_ mode: CloseMode = .immediately) {
        guard !isClosed else { return }
        if mode == .immediately || pendingClose == nil { pendingClose = mode }
        if !insideTurn { runTurn {} }
    }

    /// Writes what the role just submitted (call after submitting outside an I/O callback; inside one it is
    /// written at the end of the turn anyway).
    package func flushSubmitted() {
        guard !isClosed, !insideTurn else { return }
        runTurn {}
    }

    /// Output bytes queued but not yet accepted by the socket.
    package var queuedOutputBytes: Int { output.count - outputOffset }

    // MARK: EventLoopIOHandler

    package func handleIO(readable: Bool, writable: Bool, context: EventLoopContext) {
        runTurn {
            if !handshakeComplete {
                advanceHandshake()
                guard handshakeComplete else { return }
            }
            if readable || (writable && readWaitsForWritable) { readAvailable() }
            if writable { writeWaitsForReadable = false }
        }
    }

    package func loopWillClose(context: EventLoopContext) {
        pendingClose = .immediately
        finishClose()
    }

    // MARK: turn

    /// Runs `body`, then flushes, closes when asked or when the session is finished, and updates interest.
    /// Callbacks that fire meanwhile (nghttp2's frame-sent and stream-close callbacks run inside `flush`) only
    /// note a close or a submit; both are acted on here, once, when the turn ends.
    private func runTurn(_ body: () -> Void) {
        guard !isClosed else { return }
        if insideTurn {
            body()
            return
        }
        insideTurn = true
        body()
        let flushed = isClosed || pendingClose == .immediately ? false : flush()
        insideTurn = false
        guard !isClosed else { return }
        guard flushed, pendingClose != .immediately else { finishClose(); return }
        let drained = queuedOutputBytes == 0 && !session.wantsWrite
        let finished = handshakeComplete ? drained && (pendingClose == .afterFlush || !session.wantsRead) : pendingClose == .afterFlush
        if finished {
            finishClose()
            return
        }
        updateInterest()
    }

    private func advanceHandshake() {
        switch stream.handshake() {
        case .complete:
            handshakeComplete = true
            handshakeWaitsFor = []
            onHandshakeComplete?(self)
        case .wouldBlock(let interest):
            handshakeWaitsFor = interest
        case .failed:
            pendingClose = .immediately
        }
    }

    private func readAvailable() {
        while !isClosed, pendingClose != .immediately {
            let result = inputBuffer.withUnsafeMutableBytes { stream.read(into: $0) }
            switch result {
            case .transferred(let count):
                readWaitsForWritable = false
                bytesRead += count
                lastReadMilliseconds = monotonicMilliseconds()
                let accepted = inputBuffer.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                if !accepted {
                    // Malformed HTTP/2 or a bad preface: nghttp2 queued a GOAWAY where it could; send it, then close.
                    if pendingClose == nil { pendingClose = .afterFlush }
                    return
                }
            case .wouldBlock(let interest):
                readWaitsForWritable = interest == .write
                return
            case .closed, .failed:
                pendingClose = .immediately
                return
            }
        }
    }

    /// Moves the session's output to the socket until it would block. False on a fatal error.
    private func flush() -> Bool {
        guard handshakeComplete else { return true }
        while true {
            if outputOffset < output.count {
                let result = output.withUnsafeBytes { stream.write(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
                switch result {
                case .transferred(let count):
                    outputOffset += count
                    bytesWritten += count
                    continue
                case .wouldBlock(let interest):
                    writeWaitsForReadable = interest == .read
                    return true
                case .closed, .failed:
                    return false
                }
            }
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            // Gather up to ~64 KiB of frames before one write.
            guard session.collectOutput(into: &output, limit: 64 * 1024) else { return false }
            if output.isEmpty { return true }
        }
    }

    private func updateInterest() {
        guard let context, let registration else { return }
        var interest: IOInterest = .read
        if !handshakeComplete {
            if handshakeWaitsFor.contains(.write) { interest.insert(.write) }
        } else if readWaitsForWritable || (queuedOutputBytes > 0 && !writeWaitsForReadable) || session.wantsWrite {
            interest.insert(.write)
        }
        context.setInterest(interest, for: registration)
    }

    private func finishClose() {
        guard !isClosed else { return }
        isClosed = true
        if let registration { context?.deregister(registration) }
        registration = nil
        stream.close()
        output = []
        let callback = onClose
        onClose = nil
        onHandshakeComplete = nil
        callback?(self)
    }
}
