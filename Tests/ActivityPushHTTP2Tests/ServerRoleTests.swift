import Foundation
import Synchronization
import XCTest
@testable import ActivityPushHTTP2
#if canImport(Glibc)
import Glibc
#endif

/// The server role and the client session over loopback (h2c): one stack, two roles.
final class ServerRoleTests: XCTestCase {
    func testListenAcceptsNumericAddressesOnly() throws {
        for host in ["127.0.0.1", "localhost", "::1"] {
            let (descriptor, port) = try ServerSocket.listen(host: host, port: 0)
            XCTAssertGreaterThan(port, 0, host)
            Descriptors.close(descriptor)
        }
        XCTAssertThrowsError(try ServerSocket.listen(host: "apns.example.invalid", port: 0)) { error in
            XCTAssertEqual((error as? HTTP2TransportError)?.kind, .address)
            XCTAssertTrue("\(error)".contains("not a numeric IP address"), "\(error)")
        }
    }

    /// Client-side recorder: statuses and bodies per stream.
    private final class ClientRecorder: HTTP2SessionDelegate {
        let results: Results
        init(results: Results) { self.results = results }
        func session(_ session: HTTP2Session, beginsHeadersOn streamID: Int32, isRequest: Bool) {}
        func session(_ session: HTTP2Session, receivedHeader header: HTTP2Header, on streamID: Int32) {
            if header.name == ":status" { results.update { $0.statuses[streamID] = Int(header.value) } }
        }
        func session(_ session: HTTP2Session, receivedData bytes: UnsafeBufferPointer<UInt8>, on streamID: Int32) {
            results.update { $0.bodies[streamID, default: []] += Array(bytes) }
        }
        func session(_ session: HTTP2Session, received frame: HTTP2FrameSummary) {}
        func session(_ session: HTTP2Session, sent frame: HTTP2FrameSummary) {}
        func session(_ session: HTTP2Session, closed streamID: Int32, errorCode: HTTP2ErrorCode) {
            results.update { $0.closed.append(streamID) }
        }
    }

    final class Results: Sendable {
        struct Values: Sendable {
            var statuses: [Int32: Int] = [:]
            var bodies: [Int32: [UInt8]] = [:]
            var closed: [Int32] = []
            var requestsSeen: [String] = []
        }
        private let values = Mutex(Values())
        func update(_ change: (inout Values) -> Void) { values.withLock { change(&$0) } }
        var snapshot: Values { values.withLock { $0 } }
    }

    func testRequestsAndAnswersOverOneConnection() throws {
        let loop = try EventLoop(name: "test-server-role")
        loop.start()
        defer { loop.stop() }
        let (listenDescriptor, port) = try ServerSocket.listen(host: "127.0.0.1", port: 0)
        let results = Results()
        let ready = DispatchSemaphore(value: 0)
        loop.execute { context in
            defer { ready.signal() }
            guard let listener = try? HTTP2Listener(descriptor: listenDescriptor, tls: nil, options: HTTP2SessionOptions(), context: context) else {
                XCTFail("listener")
                return
            }
            listener.onAccept = { server in
                server.onRequest = { request, server in
                    results.update { $0.requestsSeen.append("\(request.method) \(request.path) \(request.bodyLength)") }
                    // Answer the second stream 30 ms later (answers may come out of order).
                    let body = Array("echo \(request.body.count)".utf8)
                    if request.streamID == 3 {
                        context.schedule(afterMilliseconds: 30) { _ in
                            server.respond(streamID: request.streamID, status: 201, headers: [HTTP2Header("x-late", "1")], body: body)
                        }
                    } else {
                        server.respond(streamID: request.streamID, status: 200, headers: [], body: body)
                    }
                }
            }
            // The client: a session on a connected socket, three requests (one without a body).
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            Descriptors.setNonBlocking(descriptor)
            guard let session = try? HTTP2Session(role: .client) else { return }
            let recorder = ClientRecorder(results: results)
            session.delegate = recorder
            _ = context.bind(recorder)
            session.submitSettings([])
            let headers = [HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "127.0.0.1"),
                           HTTP2Header(":path", "/echo")]
            XCTAssertEqual(session.submitRequest(headers: headers, body: Array(repeating: 7, count: 40_000)), 1)
            XCTAssertEqual(session.submitRequest(headers: headers, body: [1, 2, 3]), 3)
            XCTAssertEqual(session.submitRequest(headers: headers, body: nil), 5)
            let connection = HTTP2Connection(id: 1, stream: PlainByteStream(descriptor: descriptor), session: session)
            try? connection.attach(to: context)
        }
        ready.wait()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, results.snapshot.closed.count < 3 { Thread.sleep(forTimeInterval: 0.01) }
        let seen = results.snapshot
        XCTAssertEqual(seen.statuses, [1: 200, 3: 201, 5: 200])
        XCTAssertEqual(seen.bodies.mapValues { String(decoding: $0, as: UTF8.self) }, [1: "echo 16384", 3: "echo 3", 5: "echo 0"],
                       "the server keeps 16 KiB of a body by default and counts the rest")
        XCTAssertEqual(Set(seen.closed), [1, 3, 5])
        XCTAssertEqual(seen.closed.last, 3, "the late answer closes its stream last")
        XCTAssertEqual(Set(seen.requestsSeen), ["POST /echo 40000", "POST /echo 3", "POST /echo 0"])
    }
}
