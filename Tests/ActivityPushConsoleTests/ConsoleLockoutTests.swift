@testable import ActivityPushConsole
import ActivityPushCore
import Foundation
import Synchronization
import XCTest

/// Bad peers cannot lock the console out (issue 14): slowloris clients are cut off by a deadline for the whole
/// request head, one address holds a bounded number of connections, and impossible or conflicting
/// `Content-Length`s are refused before any body is read.
final class ConsoleLockoutTests: XCTestCase {
    typealias S = ConsoleTestSupport

    func server(headDeadline: Double = 10, perClient: Int = 32) throws -> HTTPServer {
        let api = try S.api()
        return try HTTPServer(host: "127.0.0.1", port: 0, maxBodyBytes: api.configuration.maxBodyBytes,
                              perClientConnectionLimit: perClient, headDeadlineSeconds: headDeadline) { request in
            await api.handle(request)
        }
    }

    static let checkBody = #"{"payload": {"aps": {"timestamp": 1700000000, "event": "update", "content-state": {"status": "x"}}}}"#

    /// 300 clients (30 from each of 10 addresses, all within the per-client limit) trickle one header line per
    /// second; a normal `POST /v1/check` from another address is answered within a second every time, and
    /// every slow client is cut off at the head deadline although it kept sending.
    func testThreeHundredSlowClientsDoNotDelayANormalRequest() throws {
        let http = try server(headDeadline: 4)
        defer { http.stop() }
        let port = http.port
        var slow: [Int32] = []
        defer { slow.forEach { close($0) } }
        for index in 0..<300 {
            let fd = try RawHTTP.connect(port: port, from: "127.0.0.\(10 + index % 10)", receiveTimeout: 1)
            _ = Array("POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8).withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            slow.append(fd)
        }
        let opened = Date()
        let trickling = TrickleCount()
        let sockets = slow
        let trickler = Thread {
            // One header line per second on every slow connection, for at most 8 s.
            for round in 0..<8 {
                var alive = 0
                for fd in sockets {
                    let line = Array("X-Slow-\(round): 1\r\n".utf8)
                    if line.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }) > 0 { alive += 1 }
                }
                trickling.record(round: round, alive: alive)
                Thread.sleep(forTimeInterval: 1)
            }
        }
        trickler.start()
        var slowest = 0.0
        for _ in 0..<5 {
            let started = Date()
            let response = try RawHTTP.exchange(port: port, from: "127.0.0.2",
                "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + "Content-Length: \(Self.checkBody.utf8.count)\r\n\r\n" + Self.checkBody)
            slowest = max(slowest, Date().timeIntervalSince(started))
            XCTAssertEqual(response.status, 200)
            Thread.sleep(forTimeInterval: 0.3)
        }
        print("console lockout: slowest of 5 normal requests behind 300 trickling clients: \(Int(slowest * 1000)) ms")
        XCTAssertLessThan(slowest, 1.0, "a normal request waited \(slowest) s behind 300 slow clients")
        XCTAssertGreaterThan(trickling.alive(round: 0), 250, "the slow clients were connected and trickling")
        // Past the 4 s head deadline every slow connection has been closed by the server, although each kept
        // sending: reading finds the end of the stream (or a reset), never a timeout.
        Thread.sleep(forTimeInterval: max(0, 4 + 1.5 - Date().timeIntervalSince(opened)))
        var closedByServer = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        for fd in slow {
            var result = 0
            repeat { result = recv(fd, &buffer, buffer.count, 0) } while result > 0
            if result == 0 || (result < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closedByServer += 1 }
        }
        XCTAssertEqual(closedByServer, 300, "slow clients still connected after the head deadline")
        while !trickler.isFinished { Thread.sleep(forTimeInterval: 0.1) }
    }

    /// One address gets at most the per-client limit; the extra connections are closed at once, and another
    /// address is still served.
    func testOneClientCannotHoldEveryConnection() throws {
        let http = try server(perClient: 8)
        defer { http.stop() }
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<20 { held.append(try RawHTTP.connect(port: http.port, from: "127.0.0.3", receiveTimeout: 1)) }
        var refused = 0
        var buffer = [UInt8](repeating: 0, count: 64)
        for fd in held where recv(fd, &buffer, buffer.count, 0) == 0 || errno == ECONNRESET { refused += 1 }
        XCTAssertEqual(refused, 12)
        let response = try RawHTTP.exchange(port: http.port, from: "127.0.0.4",
                                            "GET /v1/types HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(response.status, 200)
    }

    /// Declared lengths that cannot be right are refused from the head alone, at once.
    func testImpossibleAndConflictingContentLengthsAreRefusedAtOnce() throws {
        let http = try server()
        defer { http.stop() }
        let head = "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        let cases: [(String, Int, String)] = [
            ("Content-Length: 1000000000000\r\n", 413, "payload-too-large"),
            ("Content-Length: 5\r\nContent-Length: 7\r\n", 400, "conflicting Content-Length"),
            ("Content-Length: 5, 7\r\n", 400, "Content-Length"),  // libmicrohttpd's own refusal
            ("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", 400, "both Content-Length and Transfer-Encoding"),
            ("Content-Length: 99999999999999999999999999\r\n", 413, "Content-Length"),
            ("Content-Length: -4\r\n", 400, "Content-Length"),
        ]
        for (headers, status, text) in cases {
            let started = Date()
            // The body is never sent: an answer must not wait for it.
            let response = try RawHTTP.exchange(port: http.port, head + headers + "\r\n")
            XCTAssertEqual(response.status, status, headers)
            XCTAssertTrue(response.body.contains(text), "\(headers): \(response.body)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, headers)
        }
        // Two equal Content-Lengths are one length (RFC 9110 §8.6) and the request is served.
        let body = Self.checkBody
        let response = try RawHTTP.exchange(port: http.port, head + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n"
                                            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        XCTAssertEqual(response.status, 200)
    }

    // MARK: the deadline rules, without sockets

    func testTrickledBytesDoNotMoveTheHeadDeadline() {
        var deadlines = RequestDeadlines(headSeconds: 10, requestSeconds: 30)
        deadlines.opened(1, socket: 7, at: 100)
        XCTAssertEqual(deadlines.overdue(at: 109.9), [])
        XCTAssertEqual(deadlines.overdue(at: 110.1), [7])
        XCTAssertEqual(deadlines.overdue(at: 120), [], "reported once")
    }

    func testBodyDeadlineThenNoneWhileAnsweringThenAFreshHeadDeadline() {
        var deadlines = RequestDeadlines(headSeconds: 10, requestSeconds: 30)
        deadlines.opened(1, socket: 7, at: 0)
        deadlines.headReceived(1)
        XCTAssertEqual(deadlines.overdue(at: 29), [], "the body has until 30 s after the start")
        deadlines.requestReceived(1)
        XCTAssertEqual(deadlines.overdue(at: 500), [], "a slow handler is not cut off")
        deadlines.answered(1, at: 500)
        XCTAssertEqual(deadlines.overdue(at: 509), [])
        XCTAssertEqual(deadlines.overdue(at: 511), [7], "a kept-alive connection's next head has 10 s")
        deadlines.closed(1)
        XCTAssertEqual(deadlines.count, 0)
    }
}

/// Live slow connections per trickle round, written by the trickle thread.
private final class TrickleCount: Sendable {
    private let counts = Mutex<[Int: Int]>([:])
    func record(round: Int, alive count: Int) { counts.withLock { $0[round] = count } }
    func alive(round: Int) -> Int { counts.withLock { $0[round] ?? 0 } }
}
