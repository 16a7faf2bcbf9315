#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server role's accept loop: takes connections off a listening socket, wraps each in TLS or cleartext,
/// and hands the new ``HTTP2ServerConnection`` to `onAccept` before its first byte is written (the
/// application submits its SETTINGS there). Loop thread only.
///
/// At the descriptor limit (`EMFILE`/`ENFILE`) it stops watching the listening socket for
/// `acceptBackoffMilliseconds` instead of spinning on failed accepts; existing connections keep being served.
package final class HTTP2Listener: EventLoopIOHandler {
    package let descriptor: Int32
    private let tls: TLSContext?
    private let options: HTTP2SessionOptions
    private weak var context: EventLoopContext?
    private var registration: IORegistration?
    private var nextConnectionID = 1
    private var closed = false
    private var backingOff = false

    /// Called for each accepted connection (its SETTINGS preface already queued), before it is attached to the loop.
    package var onAccept: ((HTTP2ServerConnection) -> Void)?
    /// Called after a connection closed (any reason), with its id.
    package var onConnectionClosed: ((Int) -> Void)?
    /// Open connections by id.
    package private(set) var connections: [Int: HTTP2ServerConnection] = [:]
    /// The SETTINGS every new connection opens with (e.g. SETTINGS_MAX_CONCURRENT_STREAMS).
    package var initialSettings: [HTTP2Setting] = []
    /// Called each time accepting pauses at the descriptor limit.
    package var onAcceptPaused: (() -> Void)?
    /// How long accepting pauses after `EMFILE`/`ENFILE`.
    package var acceptBackoffMilliseconds = 100
    /// Times accepting was paused at the descriptor limit.
    package private(set) var descriptorLimitPauses = 0

    /// Takes ownership of the listening socket `descriptor` (non-blocking), registers it with the loop.
    /// - Throws: ``HTTP2TransportError`` `.socket` when the loop cannot watch it.
    package init(descriptor: Int32, tls: TLSContext?, options: HTTP2SessionOptions, context: EventLoopContext) throws {
        self.descriptor = descriptor
        self.tls = tls
        self.options = options
        self.context = context
        registration = try context.register(descriptor: descriptor, interest: .read, handler: self)
    }

    package func handleIO(readable: Bool, writable: Bool, context: EventLoopContext) {
        guard readable, !closed, !backingOff else { return }
        acceptAvailable(context: context)
    }

    package func loopWillClose(context: EventLoopContext) {
        guard !closed else { return }
        closed = true
        registration = nil
        Descriptors.close(descriptor)
        let open = connections.values
        for connection in open { connection.connection.loopWillClose(context: context) }
        connections.removeAll()
    }

    /// Stops accepting and closes every connection at once.
    package func close(context: EventLoopContext) {
        if let registration { context.deregister(registration) }
        loopWillClose(context: context)
    }

    private func acceptAvailable(context: EventLoopContext) {
        while !closed {
            let accepted = accept(descriptor, nil, nil)
            if accepted < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: pauseAccepting(context: context); return
                default: return   // EAGAIN: drained
                }
            }
            Descriptors.setNonBlocking(accepted)
            Descriptors.setNoDelay(accepted)
            let id = nextConnectionID
            nextConnectionID += 1
            do {
                let stream: ByteStream = try tls.map { try TLSByteStream(descriptor: accepted, context: $0) } ?? PlainByteStream(descriptor: accepted)
                let server = try HTTP2ServerConnection(id: id, stream: stream, options: options, initialSettings: initialSettings)
                connections[id] = server
                server.connection.onClose = { [weak self] closed in
                    self?.connections[closed.id] = nil
                    self?.onConnectionClosed?(closed.id)
                }
                onAccept?(server)
                try server.connection.attach(to: context)
            } catch {
                if connections[id] == nil { Descriptors.close(accepted) }
            }
        }
    }

    private func pauseAccepting(context: EventLoopContext) {
        guard let registration else { return }
        descriptorLimitPauses += 1
        onAcceptPaused?()
        backingOff = true
        context.setInterest(.none, for: registration)
        context.schedule(afterMilliseconds: acceptBackoffMilliseconds) { [weak self] context in
            guard let self, !self.closed, let registration = self.registration else { return }
            self.backingOff = false
            context.setInterest(.read, for: registration)
        }
    }
}
