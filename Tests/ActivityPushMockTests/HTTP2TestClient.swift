import Foundation
import Synchronization
import XCTest
@testable import ActivityPushHTTP2
#if canImport(Glibc)
import Glibc
#endif

/// What a test client saw on its one h2c connection.
struct HTTP2ClientLog: Sendable {
    /// Stream id → `:status` of its answer.
    var statuses: [Int32: Int] = [:]
    /// Stream id → RST_STREAM error code received.
    var resets: [Int32: HTTP2ErrorCode] = [:]
    /// Stream ids in the order they were opened.
    var opened: [Int32] = []
    /// GOAWAY frames received (last-stream-id, debug data not kept).
    var goawayLastStreamIDs: [Int32] = []
    /// SETTINGS_MAX_CONCURRENT_STREAMS values received, in order.
    var maxConcurrentStreams: [UInt32] = []
    var pingAcknowledgements = 0
    /// ALPN result after a TLS handshake (nil for h2c).
    var negotiatedProtocol: String?
    var closed = false
}

/// The log, shared between the loop thread (writes) and the test (reads).
final class SharedLog: Sendable {
    private let log = Mutex(HTTP2ClientLog())
    func update(_ change: (inout HTTP2ClientLog) -> Void) { log.withLock { change(&$0) } }
    var snapshot: HTTP2ClientLog { log.withLock { $0 } }
}

/// A value set on one thread and read on another.
final class Slot<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    func set(_ value: Value) { storage.withLock { $0 = value } }
    var value: Value? { storage.withLock { $0 } }
}

/// A minimal HTTP/2 client on the shared stack (client session + cleartext stream) for testing the mock at
/// the frame level: several streams on one connection, resets, PINGs, and what came back.
final class HTTP2TestClient: Sendable {
    private let loop: EventLoop
    private let shared = SharedLog()
    private let handle = Slot<LoopBound<Recorder>>()

    private final class Recorder: HTTP2SessionDelegate {
        let log: SharedLog
        var connection: HTTP2Connection?
        init(log: SharedLog) { self.log = log }
        func session(_ session: HTTP2Session, beginsHeadersOn streamID: Int32, isRequest: Bool) {}
        func session(_ session: HTTP2Session, receivedHeader header: HTTP2Header, on streamID: Int32) {
            if header.name == ":status", let status = Int(header.value) { log.update { $0.statuses[streamID] = status } }
        }
        func session(_ session: HTTP2Session, receivedData bytes: UnsafeBufferPointer<UInt8>, on streamID: Int32) {}
        func session(_ session: HTTP2Session, received frame: HTTP2FrameSummary) {
            log.update { entry in
                switch frame.type {
                case .rstStream: entry.resets[frame.streamID] = frame.errorCode
                case .goaway: entry.goawayLastStreamIDs.append(frame.lastStreamID)
                case .settings: entry.maxConcurrentStreams += frame.settings.filter { $0.id == .maxConcurrentStreams }.map(\.value)
                case .ping where frame.isAcknowledgement: entry.pingAcknowledgements += 1
                default: break
                }
            }
        }
        func session(_ session: HTTP2Session, sent frame: HTTP2FrameSummary) {}
        func session(_ session: HTTP2Session, closed streamID: Int32, errorCode: HTTP2ErrorCode) {}
    }

    /// Connects to 127.0.0.1:`port`, cleartext (h2c prior knowledge) or, with `tls`, TLS with ALPN h2.
    init(port: Int, tls: TLSContext? = nil) throws {
        loop = try EventLoop(name: "test-h2-client")
        loop.start()
        let descriptor = try Self.connect(port: port)
        let shared = self.shared
        let ready = DispatchSemaphore(value: 0)
        let failure = Slot<String>()
        let handle = self.handle
        loop.execute { context in
            defer { ready.signal() }
            do {
                let session = try HTTP2Session(role: .client)
                let recorder = Recorder(log: shared)
                session.delegate = recorder
                session.submitSettings([HTTP2Setting(.enablePush, 0)])
                let stream: ByteStream = try tls.map { try TLSByteStream(descriptor: descriptor, context: $0, serverName: "127.0.0.1") }
                    ?? PlainByteStream(descriptor: descriptor)
                let connection = HTTP2Connection(id: 1, stream: stream, session: session)
                connection.onHandshakeComplete = { connection in
                    shared.update { $0.negotiatedProtocol = connection.stream.negotiatedProtocol }
                }
                connection.onClose = { _ in shared.update { $0.closed = true } }
                recorder.connection = connection
                handle.set(context.bind(recorder))
                try connection.attach(to: context)
            } catch {
                failure.set("\(error)")
            }
        }
        ready.wait()
        if let message = failure.value { throw HTTP2TransportError(.socket, message) }
    }

    deinit { loop.stop() }

    /// Opens a stream with a POST (or `method`) to `path`.
    func send(path: String, method: String = "POST", headers: [String: String], body: [UInt8]?) {
        var fields = [HTTP2Header(":method", method), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "127.0.0.1"),
                      HTTP2Header(":path", path)]
        fields += headers.sorted(by: { $0.key < $1.key }).map { HTTP2Header($0.key, $0.value) }
        let requestFields = fields
        let shared = self.shared
        run { recorder in
            guard let connection = recorder.connection, let streamID = connection.session.submitRequest(headers: requestFields, body: body) else { return }
            shared.update { $0.opened.append(streamID) }
            connection.flushSubmitted()
        }
    }

    /// Resets `streamID` (CANCEL), as libcurl does after every stream.
    func reset(streamID: Int32) {
        run { recorder in
            recorder.connection?.session.submitReset(streamID: streamID, errorCode: .cancel)
            recorder.connection?.flushSubmitted()
        }
    }

    func ping() {
        run { recorder in
            recorder.connection?.session.submitPing()
            recorder.connection?.flushSubmitted()
        }
    }

    var snapshot: HTTP2ClientLog { shared.snapshot }

    /// Waits (bounded) until `condition` holds; returns whether it did.
    @discardableResult
    func wait(seconds: Double = 10, until condition: (HTTP2ClientLog) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(snapshot) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition(snapshot)
    }

    private func run(_ work: @escaping @Sendable (Recorder) -> Void) {
        guard let bound = handle.value else { return }
        loop.execute { context in
            if let recorder = context.resolve(bound) { work(recorder) }
        }
    }

    static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTP2TransportError(.socket, "socket: \(Descriptors.lastErrorText())") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Descriptors.close(descriptor)
            throw HTTP2TransportError(.socket, "connect: \(Descriptors.lastErrorText())")
        }
        Descriptors.setNonBlocking(descriptor)
        Descriptors.setNoDelay(descriptor)
        return descriptor
    }
}
