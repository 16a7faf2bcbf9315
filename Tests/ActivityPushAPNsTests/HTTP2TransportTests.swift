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

/// The HTTP/2 client's transport against mock-apns: h2c connection reuse, IPv6, the HTTPS proxy tunnel,
/// the provider-token stream limit, URL and proxy parsing.
final class HTTP2TransportTests: XCTestCase {
    func mock(tls: Bool, host: String = "127.0.0.1") throws -> MockAPNsServer {
        let transport: MockAPNsConfiguration.Transport =
            tls ? .tls(directory: NSTemporaryDirectory() + "mock-tls-\(UInt32.random(in: 0...UInt32.max))") : .h2c
        let m = try MockAPNsServer(configuration: MockAPNsConfiguration(host: host, transport: transport, providerTokens: .acceptAny))
        try m.start()
        return m
    }

    func journalRequest(_ m: MockAPNsServer) -> HTTP2Request {
        HTTP2Request(method: "GET", url: m.baseURL + "/_mock/journal?limit=1", headers: [])
    }

    func testH2CReusesItsConnection() async throws {
        let m = try mock(tls: false)
        defer { m.stop() }
        let transport = try HTTP2Transport(configuration: .init(requestTimeoutSeconds: 5), environment: [:])
        for _ in 0..<20 {
            let result = await transport.send(journalRequest(m))
            XCTAssertEqual(try result.get().status, 200)
        }
        let stats = transport.statistics
        await transport.shutdown()
        XCTAssertEqual(stats.connectionsOpened, 1, "prior-knowledge h2c keeps one connection")
        XCTAssertEqual(stats.streamsOpened, 20)
    }

    func testIPv6Loopback() async throws {
        let m = try mock(tls: false, host: "::1")
        defer { m.stop() }
        XCTAssertTrue(m.baseURL.hasPrefix("http://[::1]:"))
        let transport = try HTTP2Transport(configuration: .init(requestTimeoutSeconds: 5), environment: [:])
        let result = await transport.send(journalRequest(m))
        await transport.shutdown()
        XCTAssertEqual(try result.get().status, 200)
    }

    func testTLSThroughAnHTTPSProxyTunnel() async throws {
        let m = try mock(tls: true)
        defer { m.stop() }
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        let transport = try HTTP2Transport(configuration: .init(caFile: m.caCertificatePath, requestTimeoutSeconds: 5),
                                           environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)"])
        for _ in 0..<3 {
            let result = await transport.send(journalRequest(m))
            XCTAssertEqual(try result.get().status, 200)
        }
        await transport.shutdown()
        XCTAssertEqual(proxy.requests, ["CONNECT 127.0.0.1:\(m.port) HTTP/1.1"], "one tunnel, reused")
    }

    func testNoProxyAndRefusedTunnel() async throws {
        let m = try mock(tls: true)
        defer { m.stop() }
        let exempt = try HTTP2Transport(configuration: .init(caFile: m.caCertificatePath, requestTimeoutSeconds: 5),
                                        environment: ["HTTPS_PROXY": "http://127.0.0.1:1", "NO_PROXY": "localhost,127.0.0.1"])
        let direct = await exempt.send(journalRequest(m))
        await exempt.shutdown()
        XCTAssertEqual(try direct.get().status, 200, "NO_PROXY host goes direct")

        let proxy = try ConnectProxy(answer: "HTTP/1.1 403 Forbidden")
        defer { proxy.stop() }
        let refused = try HTTP2Transport(configuration: .init(caFile: m.caCertificatePath, requestTimeoutSeconds: 5),
                                         environment: ["https_proxy": "127.0.0.1:\(proxy.port)"])
        let result = await refused.send(journalRequest(m))
        await refused.shutdown()
        guard case .failure(let e) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(e.kind, .notSent)
        XCTAssertTrue(e.message.contains("refused CONNECT"), e.message)
    }

    func testBadProxyVariableIsAClearError() {
        XCTAssertThrowsError(try HTTP2Transport(environment: ["https_proxy": "socks5://proxy:1080"])) { error in
            XCTAssertEqual((error as? APNsTransportError)?.kind, .notSent, "\(error)")
            XCTAssertEqual("\(error)".contains("https_proxy=socks5://proxy:1080: not an http:// proxy URL; set https_proxy to http://[user:password@]host:port"),
                           true, "the message names the variable and the fix: \(error)")
        }
        XCTAssertThrowsError(try HTTP2ClientConfiguration.proxySettings(from: ["HTTPS_PROXY": "https://proxy:443"])) { error in
            XCTAssertEqual((error as? HTTP2ClientError)?.kind, .badProxy)
            XCTAssertEqual((error as? HTTP2ClientError)?.setting, "HTTPS_PROXY")
        }
    }

    func testGeneratedApnsIDsAreLowercaseVersion4UUIDs() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = APNsClient.randomUUIDString()
            XCTAssertEqual(id.count, 36)
            XCTAssertEqual(id, id.lowercased())
            let parsed = try? XCTUnwrap(UUID(uuidString: id))
            XCTAssertEqual(parsed?.uuidString.lowercased(), id)
            XCTAssertEqual(Array(id)[14], "4", "version 4")
            XCTAssertTrue("89ab".contains(Array(id)[19]), "RFC 4122 variant: \(id)")
            seen.insert(id)
        }
        XCTAssertEqual(seen.count, 1000)
    }

    func testOriginParsing() {
        XCTAssertEqual(HTTP2Origin.parse("https://api.push.apple.com/3/device/ab")?.origin,
                       HTTP2Origin(secure: true, host: "api.push.apple.com", port: 443))
        XCTAssertEqual(HTTP2Origin.parse("https://api.push.apple.com/3/device/ab")?.path, "/3/device/ab")
        XCTAssertEqual(HTTP2Origin.parse("http://[::1]:8080/x")?.origin, HTTP2Origin(secure: false, host: "::1", port: 8080))
        XCTAssertEqual(HTTP2Origin.parse("http://[::1]:8080/x")?.origin.authority, "[::1]:8080")
        XCTAssertNil(HTTP2Origin.parse("ftp://x/"))
        XCTAssertNil(HTTP2Origin.parse("https://host:99999/"))
    }

    func testMockSeesNoResetPerStream() async throws {
        // The old client (libcurl 7.88) reset every finished stream; this one ends streams by the server's
        // END_STREAM only. The mock answers every stream; the client sends no RST_STREAM of its own.
        let m = try mock(tls: false)
        defer { m.stop() }
        let transport = try HTTP2Transport(configuration: .init(requestTimeoutSeconds: 10), environment: [:])
        let request = journalRequest(m)
        let statuses = await withTaskGroup(of: Int.self) { group -> [Int] in
            for _ in 0..<500 {
                group.addTask {
                    let result = await transport.send(request)
                    return (try? result.get().status) ?? -1
                }
            }
            var all: [Int] = []
            for await s in group { all.append(s) }
            return all
        }
        let stats = transport.statistics
        await transport.shutdown()
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 500)
        XCTAssertEqual(stats.resetsSent, 0)
        XCTAssertEqual(stats.resetsReceived, 0)
        XCTAssertEqual(stats.connectionsOpened, 1)
    }
}

/// A tiny HTTP CONNECT proxy on 127.0.0.1: reads one request head, answers (200 and relays, or the given
/// refusal), records the request line. One thread, bounded by `stop()`.
final class ConnectProxy: Sendable {
    let port: Int
    private let listenFD: Int32
    private let state = Mutex<(requests: [String], heads: [String], stopping: Bool)>(([], [], false))
    private let done = DispatchSemaphore(value: 0)

    var requests: [String] { state.withLock { $0.requests } }
    /// Every CONNECT head as received (request line and header fields).
    var heads: [String] { state.withLock { $0.heads } }

    init(answer: String = "HTTP/1.1 200 Connection established") throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw HTTP2ClientError(.eventLoop, "test proxy: cannot listen") }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            self.serve(answer: answer)
            self.done.signal()
        }
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopping = true }
        done.wait()
        _ = close(listenFD)
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func serve(answer: String) {
        var pairs: [(Int32, Int32)] = []
        let deadline = Date().addingTimeInterval(30)
        while !stopping && Date() < deadline {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            for (a, b) in pairs {
                fds.append(pollfd(fd: a, events: Int16(POLLIN), revents: 0))
                fds.append(pollfd(fd: b, events: Int16(POLLIN), revents: 0))
            }
            guard poll(&fds, nfds_t(fds.count), 50) > 0 else { continue }
            let polled = pairs
            if fds[0].revents != 0 {
                let client = accept(listenFD, nil, nil)
                if client >= 0, let upstream = tunnel(client, answer: answer) { pairs.append((client, upstream)) }
            }
            var closed: Set<Int32> = []
            for (k, (a, b)) in polled.enumerated() {
                if fds[1 + 2 * k].revents != 0, !relay(from: a, to: b) { closed.insert(a) }
                if fds[2 + 2 * k].revents != 0, !relay(from: b, to: a) { closed.insert(a) }
            }
            pairs.removeAll { pair in
                guard closed.contains(pair.0) else { return false }
                _ = close(pair.0); _ = close(pair.1)
                return true
            }
        }
        for (a, b) in pairs { _ = close(a); _ = close(b) }
    }

    /// Reads the CONNECT head byte by byte, answers, and connects upstream on 200.
    private func tunnel(_ client: Int32, answer: String) -> Int32? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 8192, recv(client, &byte, 1, 0) == 1 {
            head.append(byte)
            if head.count >= 4, head.suffix(4) == [13, 10, 13, 10] { break }
        }
        let line = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
        state.withLock {
            $0.requests.append(line)
            $0.heads.append(String(decoding: head, as: UTF8.self))
        }
        let reply = Array((answer + "\r\n\r\n").utf8)
        _ = send(client, reply, reply.count, Int32(MSG_NOSIGNAL))
        guard answer.contains(" 200 "), line.hasPrefix("CONNECT "),
              let target = line.split(separator: " ").dropFirst().first,
              let colon = target.lastIndex(of: ":"), let targetPort = UInt16(target[target.index(after: colon)...]) else {
            _ = close(client)
            return nil
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(String(target[..<colon]))
        address.sin_port = targetPort.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { _ = close(client); _ = close(upstream); return nil }
        return upstream
    }

    private func relay(from source: Int32, to destination: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(source, &buffer, buffer.count, 0)
        guard n > 0 else { return false }
        var sent = 0
        while sent < n {
            let w = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
            if w <= 0 { return false }
            sent += w
        }
        return true
    }
}
