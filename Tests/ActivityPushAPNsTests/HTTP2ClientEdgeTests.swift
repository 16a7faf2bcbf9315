@testable import ActivityPushAPNs
import ActivityPushCore
import ActivityPushHTTP2
import ActivityPushMock
import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The client against peers that misbehave (an HTTP/1.1 server, a malformed `:status`, a server that refuses
/// every stream), the proxy's credentials, and name resolution off the event loop. Loopback only; every wait
/// is bounded.
final class HTTP2ClientEdgeTests: XCTestCase {
    func client(_ policy: HTTP2PoolScheduler.Policy = .init(), resolver: HTTP2Resolver = .system) throws -> HTTP2Client {
        var policy = policy
        policy.requestTimeoutSeconds = min(policy.requestTimeoutSeconds, 10)
        policy.connectTimeoutSeconds = 5
        return try HTTP2Client(configuration: HTTP2ClientConfiguration(policy: policy), resolver: resolver)
    }

    func testHTTP1ServerGivesNotSentAndNoConnectionPerRequest() async throws {
        let server = try LineServer(reply: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { server.stop() }
        let http2 = try client()
        let results = await withTaskGroup(of: HTTP2ClientResult.self) { group -> [HTTP2ClientResult] in
            for index in 0..<20 {
                group.addTask {
                    await http2.send(HTTP2Request(method: "POST", url: "http://127.0.0.1:\(server.port)/3/device/\(index)",
                                                  headers: [], body: Array("{}".utf8)))
                }
            }
            var all: [HTTP2ClientResult] = []
            for await result in group { all.append(result) }
            return all
        }
        let counters = http2.counters
        await http2.shutdown()
        XCTAssertEqual(results.count, 20)
        for result in results {
            guard case .failure(let failure) = result else { XCTFail("an HTTP/1.1 answer is no response: \(result)"); continue }
            XCTAssertEqual(failure.kind, .notSent, failure.message)
            XCTAssertTrue(failure.message.contains("HTTP/2"), failure.message)
        }
        XCTAssertEqual(counters.mayHaveBeenProcessed, 0)
        XCTAssertLessThanOrEqual(server.accepted, 2, "tried once more, not once per request")
    }

    func testStatusOutside100To599IsAProtocolErrorNotAnAnswer() throws {
        let loop = try EventLoop(name: "test-bad-status")
        loop.start()
        defer { loop.stop() }
        let (listenDescriptor, port) = try ServerSocket.listen(host: "127.0.0.1", port: 0)
        let ready = DispatchSemaphore(value: 0)
        loop.execute { context in
            defer { ready.signal() }
            guard let listener = try? HTTP2Listener(descriptor: listenDescriptor, tls: nil, options: HTTP2SessionOptions(), context: context) else {
                return
            }
            listener.onAccept = { server in
                server.onRequest = { request, server in
                    if request.path == "/good" {
                        server.respond(streamID: request.streamID, status: 200, headers: [], body: [])
                    } else {
                        _ = server.session.submitResponse(streamID: request.streamID, headers: [HTTP2Header(":status", "099")], body: [])
                    }
                }
            }
        }
        ready.wait()
        let http2 = try client()
        let outcome = Mutex<[String: HTTP2ClientResult]>([:])
        let done = DispatchSemaphore(value: 0)
        for path in ["/good", "/bad"] {
            http2.submit(HTTP2Request(method: "GET", url: "http://127.0.0.1:\(port)\(path)", headers: [])) { result in
                outcome.withLock { $0[path] = result }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        }
        let results = outcome.withLock { $0 }
        XCTAssertEqual(try results["/good"]?.get().status, 200)
        guard case .failure(let failure)? = results["/bad"] else { return XCTFail("099 must not be an answer: \(String(describing: results["/bad"]))") }
        XCTAssertEqual(failure.kind, .mayHaveBeenProcessed, failure.message)
        XCTAssertTrue(failure.message.contains("099"), failure.message)
        let stopped = DispatchSemaphore(value: 0)
        Task { await http2.shutdown(); stopped.signal() }
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
    }

    func testRefusedEverywhereBacksOffAndEndsRefusedWithoutAStorm() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c, providerTokens: .acceptAny,
                                                                         faults: try MockFaultPlan(spec: "refused:all")))
        try mock.start()
        defer { mock.stop() }
        var policy = HTTP2PoolScheduler.Policy()
        policy.refusedBackoffSeconds = 0.01
        policy.refusedBackoffCapSeconds = 0.2
        let http2 = try client(policy)
        let started = Date()
        let results = await withTaskGroup(of: HTTP2ClientResult.self) { group -> [HTTP2ClientResult] in
            for index in 0..<50 {
                group.addTask {
                    await http2.send(HTTP2Request(method: "POST", url: mock.baseURL + "/3/device/" + String(format: "%064x", index),
                                                  headers: [HTTP2Header("apns-push-type", "liveactivity")], body: Array("{}".utf8)))
                }
            }
            var all: [HTTP2ClientResult] = []
            for await result in group { all.append(result) }
            return all
        }
        let elapsed = Date().timeIntervalSince(started)
        let counters = http2.counters
        await http2.shutdown()
        for result in results {
            guard case .failure(let failure) = result else { XCTFail("refused:all answers nothing: \(result)"); continue }
            XCTAssertEqual(failure.kind, .refused, failure.message)
        }
        let limit = 50 * (policy.maxRefusedResends + 1)
        XCTAssertLessThanOrEqual(counters.streamsOpened, limit, "capped: at most \(policy.maxRefusedResends) resends each")
        XCTAssertLessThanOrEqual(mock.statistics.refusedStreams, limit)
        XCTAssertGreaterThan(elapsed, 0.3, "backed off between resends (\(elapsed) s)")
        XCTAssertEqual(counters.mayHaveBeenProcessed, 0)
    }

    func testProxyUserinfoBecomesProxyAuthorizationAndIsNeverEchoed() async throws {
        let environment = ["https_proxy": "http://push%20user:s3cr%40t@proxy.internal:3128"]
        let settings = try HTTP2ClientConfiguration.proxySettings(from: environment)
        XCTAssertEqual(settings.proxy, HTTP2Origin(secure: false, host: "proxy.internal", port: 3128), "no userinfo in the host")
        // base64("push user:s3cr@t")
        XCTAssertEqual(settings.authorization, "Basic cHVzaCB1c2VyOnMzY3JAdA==")
        XCTAssertEqual(HTTP2ClientConfiguration.base64(Array("a".utf8)), "YQ==")
        XCTAssertEqual(HTTP2ClientConfiguration.base64(Array("ab".utf8)), "YWI=")
        XCTAssertEqual(HTTP2ClientConfiguration.base64(Array("abc".utf8)), "YWJj")
        XCTAssertThrowsError(try HTTP2ClientConfiguration.proxySettings(from: ["https_proxy": "https://user:hunter2@proxy:1"])) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "the password is masked: \(error)")
            XCTAssertTrue("\(error)".contains("https_proxy"), "\(error)")
        }
        // Through a local CONNECT proxy: the header is sent, the tunnel works.
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: .tls(directory: NSTemporaryDirectory() + "mock-tls-\(UInt32.random(in: 0...UInt32.max))"), providerTokens: .acceptAny))
        try mock.start()
        defer { mock.stop() }
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        let transport = try HTTP2Transport(configuration: .init(caFile: mock.caCertificatePath, requestTimeoutSeconds: 10),
                                           environment: ["https_proxy": "http://bench:pa%3Ass@127.0.0.1:\(proxy.port)"])
        let result = await transport.send(HTTP2Request(method: "GET", url: mock.baseURL + "/_mock/journal?limit=1", headers: []))
        await transport.shutdown()
        XCTAssertEqual(try result.get().status, 200)
        XCTAssertTrue(proxy.heads.first?.contains("\r\nProxy-Authorization: Basic YmVuY2g6cGE6c3M=\r\n") ?? false,
                      proxy.heads.first ?? "no CONNECT")
    }

    func testSlowNameResolutionDoesNotBlockTheLoop() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c, providerTokens: .acceptAny))
        try mock.start()
        defer { mock.stop() }
        let resolver = HTTP2Resolver { host, port in
            if host == "slow.invalid" { Thread.sleep(forTimeInterval: 1.5) }
            return HTTP2Resolver.system.resolve(host == "slow.invalid" ? "127.0.0.1" : host, port)
        }
        let http2 = try client(resolver: resolver)
        let slowDone = Mutex<Date?>(nil)
        let slowResult = Mutex<HTTP2ClientResult?>(nil)
        let started = Date()
        http2.submit(HTTP2Request(method: "GET", url: "http://slow.invalid:\(mock.port)/_mock/journal?limit=1", headers: [])) { result in
            slowResult.withLock { $0 = result }
            slowDone.withLock { $0 = Date() }
        }
        let fast = await http2.send(HTTP2Request(method: "GET", url: mock.baseURL + "/_mock/journal?limit=1", headers: []))
        let fastElapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(try fast.get().status, 200)
        XCTAssertLessThan(fastElapsed, 1.4, "the loop kept serving while a name was being resolved")
        XCTAssertNil(slowDone.withLock { $0 }, "the slow one is still resolving")
        await http2.shutdown()   // waits for the slow request (bounded by its deadline)
        XCTAssertEqual(try slowResult.withLock { $0 }?.get().status, 200)
    }
}

/// A TCP server on 127.0.0.1 that answers every connection with fixed bytes and closes (an HTTP/1.1 server
/// to a client that speaks HTTP/2). One thread, bounded by `stop()` and a 30 s limit.
final class LineServer: Sendable {
    let port: Int
    private let listenFD: Int32
    private let state = Mutex<(accepted: Int, stopping: Bool)>((0, false))
    private let done = DispatchSemaphore(value: 0)

    var accepted: Int { state.withLock { $0.accepted } }

    init(reply: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw HTTP2ClientError(.eventLoop, "line server: cannot listen") }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let bytes = Array(reply.utf8)
        let thread = Thread { [self] in
            let deadline = Date().addingTimeInterval(30)
            while !self.state.withLock({ $0.stopping }) && Date() < deadline {
                var poller = [pollfd(fd: self.listenFD, events: Int16(POLLIN), revents: 0)]
                guard poll(&poller, 1, 50) > 0 else { continue }
                let client = accept(self.listenFD, nil, nil)
                guard client >= 0 else { continue }
                self.state.withLock { $0.accepted += 1 }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = recv(client, &buffer, buffer.count, 0)   // the preface and a request, or part of them
                _ = send(client, bytes, bytes.count, Int32(MSG_NOSIGNAL))
                _ = close(client)
            }
            self.done.signal()
        }
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopping = true }
        done.wait()
        _ = close(listenFD)
    }
}
