import Foundation
import XCTest
@testable import ActivityPushHTTP2
@testable import ActivityPushMock
#if canImport(Glibc)
import Glibc
#endif

/// mock-apns cannot be worn down: half-open and idle connections cost no CPU and are closed after a timeout,
/// and at the descriptor limit it backs off accepting while it keeps serving the connections it has.
final class ResourceTests: XCTestCase {
    private func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Sockets connected to the port that send nothing (a TCP connect that never starts TLS).
    private func silentConnections(_ count: Int, port: Int) throws -> [Int32] {
        try (0..<count).map { _ in try HTTP2TestClient.connect(port: port) }
    }

    func testHalfOpenAndIdleTLSConnectionsCostNoCPU() throws {
        let dir = temporaryDirectory()
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: dir)))
        try mock.start()
        defer { mock.stop() }
        let ca = try XCTUnwrap(mock.caCertificatePath)
        let halfOpen = try silentConnections(50, port: mock.port)
        defer { for descriptor in halfOpen { close(descriptor) } }
        // And connections past the handshake that answered once and now idle (the client role's TLS context).
        let clientTLS = try TLSContext.client(trustedCAPath: ca)
        let idle = try (0..<5).map { _ in try HTTP2TestClient(port: mock.port, tls: clientTLS) }
        for client in idle {
            client.send(path: "/3/device/\(pushToStartToken)", headers: liveActivityHeaders,
                        body: payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)))
        }
        for client in idle { XCTAssertTrue(client.wait { $0.statuses[1] == 200 }) }
        XCTAssertEqual(idle.first?.snapshot.negotiatedProtocol, "h2")
        Thread.sleep(forTimeInterval: 0.2)
        let before = processCPUSeconds()
        Thread.sleep(forTimeInterval: 2)
        let used = processCPUSeconds() - before
        print("ResourceTests: process CPU over 2 s with 50 half-open + 5 idle TLS connections: \(used) s")
        // Before the epoll loop asked for writability only when there was output, one such connection cost
        // ~5 s of CPU in 5 s (issue 14). Idle now: a few milliseconds at most, bounded loosely for a loaded machine.
        XCTAssertLessThan(used, 0.15, "CPU while 50 half-open + 5 idle TLS connections are held: \(used) s")
        XCTAssertEqual(try curl("\(mock.baseURL)/3/device/\(pushToStartToken)", headers: liveActivityHeaders,
                                body: payload(event: "start", timestamp: Int(Date().timeIntervalSince1970)), cacert: ca).status, 200)
    }

    func testConnectionsThatNeverHandshakeAreClosed() throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: temporaryDirectory()),
                                                                         handshakeTimeoutSeconds: 0.3))
        try mock.start()
        defer { mock.stop() }
        let descriptor = try HTTP2TestClient.connect(port: mock.port)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        let started = Date()
        var byte: UInt8 = 0
        let result = recv(descriptor, &byte, 1, 0)
        XCTAssertEqual(result, 0, "the server closes the connection")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(mock.statistics.idleConnectionsClosed, 1)
    }

    func testAtTheDescriptorLimitItBacksOffAndKeepsServing() throws {
        let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let executable = bundle.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("activity-push")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw XCTSkip("activity-push is not built next to the test bundle (run `swift build` first)")
        }
        // A child with a 40-descriptor limit (the test process keeps its own, higher one).
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "ulimit -n 40 && exec \"$0\" mock-apns --h2c --port 0 --quiet", executable.path]
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer {
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
            child.waitUntilExit()
        }
        var banner = Data()
        while !String(decoding: banner, as: UTF8.self).contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += chunk
        }
        let line = String(decoding: banner, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let base = try XCTUnwrap(line.components(separatedBy: "listening on ").last, line)
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""), line)
        let body = payload(event: "start", timestamp: Int(Date().timeIntervalSince1970))
        let kept = try HTTP2TestClient(port: port)
        kept.send(path: "/3/device/\(pushToStartToken)", headers: liveActivityHeaders, body: body)
        XCTAssertTrue(kept.wait { $0.statuses[1] == 200 })

        var flood = try silentConnections(80, port: port)   // more than the child can accept
        Thread.sleep(forTimeInterval: 0.5)
        let before = try childCPUTicks(child.processIdentifier)
        Thread.sleep(forTimeInterval: 2)
        let ticks = try childCPUTicks(child.processIdentifier) - before
        print("ResourceTests: mock-apns CPU at the descriptor limit over 2 s: \(ticks) ticks (100 Hz)")
        // Spinning on failed accepts would use ~200 ticks (100 Hz) in 2 s.
        XCTAssertLessThan(ticks, 20, "CPU ticks at the descriptor limit over 2 s: \(ticks)")
        kept.send(path: "/3/device/\(pushToStartToken)", headers: liveActivityHeaders, body: body)
        XCTAssertTrue(kept.wait { $0.statuses[3] == 200 }, "an existing connection keeps being served at the limit")

        for descriptor in flood { close(descriptor) }
        flood = []
        Thread.sleep(forTimeInterval: 0.5)
        let fresh = try curl("\(base)/3/device/\(pushToStartToken)", headers: liveActivityHeaders, body: body)
        XCTAssertEqual(fresh.status, 200, "accepting resumes once descriptors are free")
        let stats = try curl("\(base)/_mock/stats", method: "GET")
        XCTAssertFalse(stats.body.contains("\"accept-pauses-at-descriptor-limit\":0"), stats.body)
        kill(child.processIdentifier, SIGTERM)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0)
    }

    /// utime + stime of a process, in clock ticks, from /proc/PID/stat.
    private func childCPUTicks(_ pid: Int32) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
        let afterName = text[text.index(after: try XCTUnwrap(text.lastIndex(of: ")")))...].split(separator: " ")
        return (Int(afterName[11]) ?? 0) + (Int(afterName[12]) ?? 0)
    }
}
