import ActivityPushCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local APNs for tests and CI: HTTP/2 (libnghttp2) over TLS (OpenSSL, ALPN `h2`) or cleartext prior
/// knowledge, answering like Apple (status codes and `reason` strings of "Handling notification responses from
/// APNs") and recording what the device's `liveactivitiesd` would do with each accepted push.
///
/// ```swift
/// let mock = try MockAPNsServer(configuration: .init(transport: .h2c))
/// try mock.start()
/// // send to http://127.0.0.1:\(mock.port)/3/device/<token>
/// let entries = mock.journal()
/// mock.stop()
/// ```
///
/// Thread-safety: all methods may be called from any thread. The server runs on one background thread; the
/// mutable lifecycle fields are guarded by `lock`, hence `@unchecked Sendable`.
public final class MockAPNsServer: @unchecked Sendable {
    public let configuration: MockAPNsConfiguration
    private let state: MockAPNsState
    private let lock = NSLock()
    private var loop: EventLoop?
    private var boundPort = 0
    private var tlsFiles: CertificateFactory.Files?

    /// Reads the provider key and opens the journal file.
    /// - Throws: `MockAPNsError.authKey` (unreadable or non-P-256 `.p8`), `.journal` (journal file not writable).
    public init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        state = try MockAPNsState(configuration: configuration)
    }

    /// Binds the port, prepares TLS (generating certificates into the TLS directory when absent) and starts
    /// serving on a background thread. Returns once the socket is listening.
    /// - Throws: `MockAPNsError.socket` (bind/listen), `.tls` (certificate generation or loading).
    public func start() throws {
        lock.lock(); defer { lock.unlock() }
        guard loop == nil else { return }
        // A peer that vanishes mid-write must not kill the process (SIGPIPE); the error is handled per socket.
        signal(SIGPIPE, SIG_IGN)
        var tls: TLSContext?
        if case .tls(let directory) = configuration.transport {
            let files = try CertificateFactory.ensure(directory: directory)
            tls = try TLSContext(certificatePath: files.certificatePath, keyPath: files.keyPath)
            tlsFiles = files
        }
        let (fd, port) = try listenSocket(host: configuration.host, port: configuration.port)
        let state = self.state
        let loop: EventLoop
        do {
            loop = try EventLoop(listenFD: fd, tls: tls, initialMaxConcurrentStreams: max(1, configuration.streamsBeforeProviderToken),
                                 maxConcurrentStreams: max(1, configuration.maxConcurrentStreams),
                                 handler: { state.respond(to: $0) },
                                 onConnectionClosed: { state.connectionClosed($0) })
        } catch {
            closeSocket(fd)
            throw error
        }
        boundPort = port
        self.loop = loop
        loop.start()
    }

    /// Closes every connection and stops the server thread. Safe to call twice; the journal stays readable.
    public func stop() {
        lock.lock()
        let l = loop
        loop = nil
        lock.unlock()
        l?.stop()
    }

    deinit { stop() }

    /// The bound TCP port (the kernel's pick when the configuration says 0); 0 before `start()`.
    public var port: Int {
        lock.lock(); defer { lock.unlock() }
        return boundPort
    }

    /// `https://127.0.0.1:PORT` (TLS) or `http://127.0.0.1:PORT` (h2c), with the configured host.
    public var baseURL: String {
        let scheme = configuration.transport == .h2c ? "http" : "https"
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(scheme)://\(host):\(port)"
    }

    /// Path of the CA certificate clients must trust (`curl --cacert`), nil for h2c or before `start()`.
    public var caCertificatePath: String? {
        lock.lock(); defer { lock.unlock() }
        return tlsFiles?.caPath
    }

    /// Every request answered so far (oldest first, at most `journalMemoryLimit`).
    public func journal() -> [MockJournalEntry] { state.journal() }

    /// APNs requests answered since `start()` (`/_mock` calls not counted; not capped, not reset by `clearJournal()`).
    public var requestCount: Int { state.requestCount }

    /// Forgets the in-memory journal (the NDJSON file is kept).
    public func clearJournal() { state.clearJournal() }

    /// From now on `/3/device/<token>` answers `410 Unregistered` with `timestamp` = `time` in UNIX milliseconds.
    public func unregister(token: String, at time: Date = Date()) {
        state.unregister(token: token, atMilliseconds: Int64((time.timeIntervalSince1970 * 1000).rounded()))
    }

    /// Replaces the fault plan (what `POST /_mock/faults` does).
    public func setFaults(_ plan: MockFaultPlan) { state.setFaults(plan) }

    /// The fault plan now (with `next=N` rules counted down).
    public var faults: MockFaultPlan { state.currentFaults() }
}
