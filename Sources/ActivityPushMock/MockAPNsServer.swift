import ActivityPushCore
import ActivityPushHTTP2
import Foundation
import Synchronization
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
/// Thread-safety: all methods may be called from any thread. The server runs on one background thread (an
/// `ActivityPushHTTP2` event loop); the lifecycle fields are behind a `Mutex`.
public final class MockAPNsServer: Sendable {
    public let configuration: MockAPNsConfiguration
    /// Internal (not private) so tests can fill the journal without the network.
    let state: MockAPNsState
    private let lifecycle = Mutex(Lifecycle())

    private struct Lifecycle {
        var loop: EventLoop?
        var port = 0
        var caPath: String?
    }

    /// Reads the provider key and opens the journal file.
    /// - Throws: `MockAPNsError.authKey` (unreadable or non-P-256 `.p8`), `.journal` (journal file not writable).
    public init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        state = try MockAPNsState(configuration: configuration)
    }

    /// Binds the port, prepares TLS (generating certificates into the TLS directory when absent) and starts
    /// serving on a background thread. Returns once the socket is listening.
    /// - Throws: `MockAPNsError.host` (not a numeric address), `.socket` (bind/listen), `.tls` (certificate
    ///   generation or loading).
    public func start() throws {
        try lifecycle.withLock { current in
            guard current.loop == nil else { return }
            current = try startLoop()
        }
    }

    private func startLoop() throws -> Lifecycle {
        // A peer that vanishes mid-write must not kill the process (SIGPIPE); the error is handled per socket.
        signal(SIGPIPE, SIG_IGN)
        var tls: TLSContext?
        var caPath: String?
        if case .tls(let directory) = configuration.transport {
            let files = try CertificateFactory.ensure(directory: directory)
            do {
                tls = try TLSContext.server(certificatePath: files.certificatePath, keyPath: files.keyPath)
            } catch let error as HTTP2TransportError {
                throw MockAPNsError.tls(error.message)
            }
            caPath = files.caPath
        }
        let listening: (descriptor: Int32, port: Int)
        let loop: EventLoop
        do {
            listening = try ServerSocket.listen(host: configuration.host, port: configuration.port)
            do {
                loop = try EventLoop(name: "mock-apns")
            } catch {
                Descriptors.close(listening.descriptor)
                throw error
            }
        } catch let error as HTTP2TransportError {
            throw error.kind == .address ? MockAPNsError.host(error.message) : MockAPNsError.socket(error.message)
        }
        let serverTLS = tls
        let state = self.state
        func milliseconds(_ seconds: Double?) -> Int? { seconds.map { Int(($0 * 1000).rounded()) }.flatMap { $0 > 0 ? $0 : nil } }
        let settings = MockServerLoop.Settings(
            initialMaxConcurrentStreams: max(1, configuration.streamsBeforeProviderToken),
            maxConcurrentStreams: max(1, configuration.maxConcurrentStreams),
            idleTimeoutMilliseconds: milliseconds(configuration.idleTimeoutSeconds),
            handshakeTimeoutMilliseconds: milliseconds(configuration.handshakeTimeoutSeconds) ?? 10_000,
            silentAfterIdleMilliseconds: milliseconds(configuration.silentAfterIdleSeconds))
        let ready = DispatchSemaphore(value: 0)
        let failure = Mutex<HTTP2TransportError?>(nil)
        loop.start()
        loop.execute { context in
            defer { ready.signal() }
            let driver = MockServerLoop(context: context, settings: settings, state: state)
            // libcurl 7.x sends RST_STREAM after every finished stream; nghttp2's rapid-reset guard (burst 1000,
            // 33/s) would then GOAWAY a client after ~1000 pushes on one connection. A test server must let one
            // connection carry a whole run (the client issue's 10 000-push test), so the guard is widened.
            let options = HTTP2SessionOptions(streamResetRateLimit: (burst: 1_000_000, perSecond: 1_000_000))
            do {
                let listener = try HTTP2Listener(descriptor: listening.descriptor, tls: serverTLS, options: options, context: context)
                listener.initialSettings = driver.initialSettings
                listener.onAccept = { driver.accept($0) }
                listener.onAcceptPaused = { driver.acceptPaused() }
                listener.onConnectionClosed = { id in
                    driver.connectionClosed(id)
                    state.connectionClosed(id)
                }
            } catch let error as HTTP2TransportError {
                Descriptors.close(listening.descriptor)
                failure.withLock { $0 = error }
            } catch {
                Descriptors.close(listening.descriptor)
                failure.withLock { $0 = HTTP2TransportError(.socket, "\(error)") }
            }
        }
        ready.wait()
        if let error = failure.withLock({ $0 }) {
            loop.stop()
            throw MockAPNsError.socket(error.message)
        }
        return Lifecycle(loop: loop, port: listening.port, caPath: caPath)
    }

    /// Closes every connection and stops the server thread. Safe to call twice; the journal stays readable.
    public func stop() {
        let running = lifecycle.withLock { current -> EventLoop? in
            let loop = current.loop
            current.loop = nil
            return loop
        }
        running?.stop()
    }

    deinit { stop() }

    /// The bound TCP port (the kernel's pick when the configuration says 0); 0 before `start()`.
    public var port: Int {
        lifecycle.withLock { $0.port }
    }

    /// `https://127.0.0.1:PORT` (TLS) or `http://127.0.0.1:PORT` (h2c), with the configured host.
    public var baseURL: String {
        let scheme = configuration.transport == .h2c ? "http" : "https"
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(scheme)://\(host):\(port)"
    }

    /// Path of the CA certificate clients must trust (`curl --cacert`), nil for h2c or before `start()`.
    public var caCertificatePath: String? {
        lifecycle.withLock { $0.caPath }
    }

    /// Every request answered so far (oldest first, at most `journalMemoryLimit`).
    public func journal() -> [MockJournalEntry] { state.journal() }

    /// APNs requests answered since `start()` (`/_mock` calls not counted; not capped, not reset by `clearJournal()`).
    public var requestCount: Int { state.requestCount }

    /// HTTP/2-level counters since `start()`: RST_STREAM received, GOAWAYs sent, refused streams, drops by kind,
    /// idle closes (also `GET /_mock/stats`).
    public var statistics: MockAPNsStatistics { state.currentStatistics() }

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
