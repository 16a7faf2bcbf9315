import Foundation
import XCTest
@testable import ActivityPushMock
#if canImport(Glibc)
import Glibc
#endif

/// Bad input never crashes the mock: garbage bytes, malformed HTTP/2, 1 MB bodies, abrupt disconnects — and it
/// keeps serving. Also: TLS files are reused, many connections at once work (h2load).
final class RobustnessTests: XCTestCase {
    /// Connects, writes `bytes`, optionally waits for the server to answer/close, then closes abruptly.
    private func raw(_ port: Int, _ bytes: [UInt8], readReply: Bool) -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard ok == 0 else { return [] }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard readReply else { return [] }
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return out
    }

    private func assertServes(_ mock: MockAPNsServer, cacert: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: liveActivityHeaders,
                         body: payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)), cacert: cacert)
        XCTAssertEqual(r.status, 200, r.body, file: file, line: line)
    }

    func testGarbageMalformedHTTP2AndDisconnectsOnH2C() throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        // Garbage instead of the preface: nghttp2 rejects it and the connection closes.
        _ = raw(mock.port, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), readReply: true)
        _ = raw(mock.port, (0..<4096).map { _ in UInt8.random(in: 0...255) }, readReply: true)
        // A valid preface, then a frame with a length far above SETTINGS_MAX_FRAME_SIZE and nonsense type/flags.
        let reply = raw(mock.port, preface + [0xff, 0xff, 0xff, 0x01, 0xff, 0x7f, 0xff, 0xff, 0xff] + Array(repeating: 0, count: 64), readReply: true)
        XCTAssertTrue(reply.count >= 9, "server sends its SETTINGS and a GOAWAY")
        // HEADERS frame with a broken HPACK block on stream 1.
        _ = raw(mock.port, preface + [0, 0, 0, 4, 0, 0, 0, 0, 0] + [0, 0, 4, 1, 5, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff], readReply: true)
        // Connect and vanish: mid-preface, and right after a HEADERS frame without END_STREAM.
        for _ in 0..<20 { _ = raw(mock.port, Array(preface.prefix(7)), readReply: false) }
        try assertServes(mock)
        // A 1 MB body is answered 413 PayloadTooLarge and the connection stays usable.
        let big = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: liveActivityHeaders, body: Array(repeating: 0x7b, count: 1 << 20))
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(big.body, "{\"reason\":\"PayloadTooLarge\"}")
        // Garbage body of allowed size: APNs accepts (200); the device cannot parse it.
        let garbage = try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: liveActivityHeaders, body: [0x00, 0xff, 0x13, 0x37])
        XCTAssertEqual(garbage.status, 200)
        XCTAssertEqual(mock.journal().last?.device?.outcome, .rejected)
        // curl killed mid-upload of a large body.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sS", "--http2-prior-knowledge", "--limit-rate", "10K", "-H", "authorization: bearer x",
                       "--data-binary", "@/dev/zero", "\(mock.baseURL)/3/device/\(pushToStartToken)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        Thread.sleep(forTimeInterval: 0.3)
        p.terminate()
        p.waitUntilExit()
        try assertServes(mock)
    }

    func testTLSGarbageAndCertificateReuse() throws {
        let dir = temporaryDirectory()
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: dir)))
        try mock.start()
        let ca = try XCTUnwrap(mock.caCertificatePath)
        _ = raw(mock.port, Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), readReply: true)   // cleartext to a TLS port
        _ = raw(mock.port, [0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5], readReply: true)    // broken ClientHello
        try assertServes(mock, cacert: ca)
        // HTTP/1.1 over TLS (no h2 in ALPN) is refused, not crashed on.
        let h1 = try runTool("/usr/bin/curl", ["-sS", "--http1.1", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_code}",
                                           "https://127.0.0.1:\(mock.port)/3/device/\(pushToStartToken)"])
        XCTAssertNotEqual(String(decoding: h1.1, as: UTF8.self), "200")
        try assertServes(mock, cacert: ca)
        mock.stop()
        let before = try String(contentsOfFile: ca, encoding: .utf8)
        let again = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: dir)))
        try again.start()
        defer { again.stop() }
        XCTAssertEqual(try String(contentsOfFile: ca, encoding: .utf8), before, "existing certificates are reused")
        try assertServes(again, cacert: ca)
        let (rc, out, _) = try runTool("/usr/bin/openssl", ["x509", "-in", dir + "/server.pem", "-noout", "-ext", "subjectAltName"])
        XCTAssertEqual(rc, 0)
        let san = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(san.contains("DNS:localhost") && san.contains("IP Address:127.0.0.1"), san)
    }

    func testManyConcurrentConnectionsWithH2load() throws {
        let dir = temporaryDirectory()
        // h2load opens -m streams before it reads the server's SETTINGS; let them in from the start.
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: dir), streamsBeforeProviderToken: 10))
        try mock.start()
        defer { mock.stop() }
        let body = dir + "/body.json"
        try Data(payload(event: "update", timestamp: Int(Date().timeIntervalSince1970))).write(to: URL(fileURLWithPath: body))
        let (rc, out, err) = try runTool("/usr/bin/h2load", ["-n", "2000", "-c", "20", "-m", "10", "-d", body,
                                                         "-H", "apns-push-type: liveactivity",
                                                         "-H", "apns-topic: com.example.kora.push-type.liveactivity",
                                                         "-H", "authorization: bearer test",
                                                         "https://127.0.0.1:\(mock.port)/3/device/\(String(repeating: "ab", count: 32))"])
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertEqual(rc, 0, err + text)
        XCTAssertTrue(text.contains("2000 succeeded, 0 failed, 0 errored"), text)
        XCTAssertTrue(text.contains("status codes: 2000 2xx"), text)
        XCTAssertEqual(mock.journal().count, 2000)
    }
}
