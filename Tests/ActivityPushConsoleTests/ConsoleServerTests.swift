@testable import ActivityPushConsole
import ActivityPushCore
import Foundation
import XCTest

/// The real libmicrohttpd server on an ephemeral loopback port, driven over plain sockets: limits, bad input
/// and concurrency must never stop it.
final class ConsoleServerTests: XCTestCase {
    typealias S = ConsoleTestSupport

    func server(token: String? = nil) throws -> ConsoleServer {
        try ConsoleServer(host: "127.0.0.1", port: 0, api: try S.api(token: token))
    }

    func testBindsAFreePortAndServesThePage() throws {
        let s = try server()
        defer { s.http.stop() }
        XCTAssertGreaterThan(s.http.port, 0)
        XCTAssertEqual(s.url, "http://127.0.0.1:\(s.http.port)")
        let r = try RawHTTP.exchange(port: s.http.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(r.body.contains("<title>ActivityPush console</title>"))
    }

    func testErrorsOverTheWireAndTheServerKeepsAnswering() throws {
        let s = try server()
        defer { s.http.stop() }
        let port = s.http.port
        // Bad JSON.
        var r = try RawHTTP.post(port: port, "/v1/check", body: "{\"payload\": ")
        XCTAssertEqual(r.status, 400)
        XCTAssertTrue(r.body.contains("\"bad-json\""))
        // Over 64 KB, declared by Content-Length: refused before it is read.
        r = try RawHTTP.post(port: port, "/v1/check", body: "{\"payload\": \"" + String(repeating: "x", count: 70_000) + "\"}")
        XCTAssertEqual(r.status, 413)
        XCTAssertTrue(r.body.contains("\"payload-too-large\""))
        // Over 64 KB, chunked (no Content-Length): discarded while read.
        let big = String(repeating: "y", count: 80_000)
        r = try RawHTTP.exchange(port: port, "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 + String(big.utf8.count, radix: 16) + "\r\n" + big + "\r\n0\r\n\r\n")
        XCTAssertEqual(r.status, 413)
        // Unknown route.
        r = try RawHTTP.exchange(port: port, "GET /etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(r.status, 404)
        XCTAssertTrue(r.body.contains("\"not-found\""))
        // Garbage that is not HTTP, a client that hangs up mid-body, deep nesting.
        _ = try? RawHTTP.exchange(port: port, "\u{1}\u{2}GARBAGE\r\n\r\n")
        RawHTTP.sendAndClose(port: port, "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"payload\"")
        r = try RawHTTP.post(port: port, "/v1/check", body: "{\"payload\": " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}")
        XCTAssertEqual(r.status, 400)
        // Still serving.
        r = try RawHTTP.post(port: port, "/v1/check", body: #"{"payload": {"aps": {"timestamp": 1700000000, "event": "update", "content-state": {"status": "x"}}}}"#)
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(r.body.contains("\"accept\""))
    }

    /// Issue 11 L1: a NUL (`%00`) or another control byte in the decoded path is a 400, never routed as if the
    /// path ended there; other escapes still decode.
    func testAControlByteInThePathIsRefusedWith400() throws {
        let s = try server()
        defer { s.http.stop() }
        for path in ["/v1/tokens%00x", "/v1/activities/g1%00x/update", "/v1/types%0a", "/v1/types%7F", "/v1/types%01"] {
            let r = try RawHTTP.exchange(port: s.http.port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
            XCTAssertEqual(r.status, 400, "\(path): \(r.body)")
            XCTAssertTrue(r.body.contains("\"bad-path\""), "\(path): \(r.body)")
        }
        let r = try RawHTTP.exchange(port: s.http.port, "GET /v1/%74ypes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(r.status, 200, "an ordinary escape still decodes: \(r.body)")
    }

    func testConcurrentChecksAreAllAnswered() throws {
        let s = try server()
        defer { s.http.stop() }
        let port = s.http.port
        let body = JSONWriter.compact(.obj([("payload", .obj([("aps", .obj([("timestamp", .int(1_700_000_000)),
            ("event", .string("update")), ("content-state", S.contentState)]))]))]))
        let statuses = Statuses()
        DispatchQueue.concurrentPerform(iterations: 100) { _ in
            statuses.add((try? RawHTTP.post(port: port, "/v1/check", body: body))?.status ?? -1)
        }
        XCTAssertEqual(statuses.all.count, 100)
        XCTAssertEqual(Set(statuses.all), [200])
    }

    func testNonLoopbackNeedsAToken() throws {
        XCTAssertThrowsError(try ConsoleServer(host: "0.0.0.0", port: 0, api: try S.api())) { e in
            XCTAssertEqual((e as? HTTPServerError)?.kind, .needsAPIToken)
            XCTAssertEqual((e as? HTTPServerError)?.option, "--api-token-file")
            XCTAssertTrue("\(e)".contains("--api-token-file PATH"), "the message names the fix: \(e)")
        }
        let s = try ConsoleServer(host: "0.0.0.0", port: 0, api: try S.api(token: "t0ken"))
        defer { s.http.stop() }
        var r = try RawHTTP.exchange(port: s.http.port, "GET /v1/types HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(r.status, 401)
        r = try RawHTTP.exchange(port: s.http.port, "GET /v1/types HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t0ken\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(r.status, 200)
    }

    func testBadHostAndBusyPortAreClearErrors() throws {
        XCTAssertThrowsError(try ConsoleServer(host: "example.com", port: 0, api: try S.api())) { e in
            XCTAssertEqual((e as? HTTPServerError)?.kind, .notNumericHost)
            XCTAssertEqual((e as? HTTPServerError)?.host, "example.com")
            XCTAssertEqual("\(e)", "--host 'example.com' is not a numeric IP address; use e.g. 127.0.0.1, ::1 or 0.0.0.0")
        }
        XCTAssertThrowsError(try HTTPServer(host: "127.0.0.1", port: 70000) { _ in HTTPResponse(status: 200) }) { e in
            XCTAssertEqual((e as? HTTPServerError)?.kind, .badPort)
            XCTAssertEqual((e as? HTTPServerError)?.port, 70000)
        }
        let s = try server()
        defer { s.http.stop() }
        XCTAssertThrowsError(try ConsoleServer(host: "127.0.0.1", port: s.http.port, api: try S.api())) { e in
            XCTAssertEqual((e as? HTTPServerError)?.kind, .cannotListen, "\(e)")
            XCTAssertEqual((e as? HTTPServerError)?.port, s.http.port)
        }
    }

    func testLoopbackDetection() {
        XCTAssertTrue(HTTPServer.isLoopback("127.0.0.1"))
        XCTAssertTrue(HTTPServer.isLoopback("127.8.9.1"))
        XCTAssertTrue(HTTPServer.isLoopback("::1"))
        XCTAssertTrue(HTTPServer.isLoopback("localhost"))
        XCTAssertFalse(HTTPServer.isLoopback("0.0.0.0"))
        XCTAssertFalse(HTTPServer.isLoopback("192.168.1.4"))
        XCTAssertFalse(HTTPServer.isLoopback("::"))
    }
}

private final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ v: Int) { lock.withLock { values.append(v) } }
    var all: [Int] { lock.withLock { values } }
}

/// A minimal HTTP/1.1 client over a blocking socket, so tests can send exactly the bytes they mean.
enum RawHTTP {
    struct Response { var status: Int; var body: String }

    static func post(port: Int, _ path: String, body: String) throws -> Response {
        try exchange(port: port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
                     + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    /// A connected socket; `source` picks the client's loopback address (any 127.x.y.z), so tests can act as
    /// several clients.
    static func connect(port: Int, from source: String? = nil, receiveTimeout: Int = 20) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var tv = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port)).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        return fd
    }

    static func exchange(port: Int, from source: String? = nil, _ request: String) throws -> Response {
        let fd = try connect(port: port, from: source)
        defer { close(fd) }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }   // the server may answer (413) and close before reading everything
            sent += n
        }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        let text = String(decoding: out, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.split(separator: "\r\n").first ?? ""
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
        return Response(status: status, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func sendAndClose(port: Int, _ request: String) {
        guard let fd = try? connect(port: port) else { return }
        _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        close(fd)
    }
}
