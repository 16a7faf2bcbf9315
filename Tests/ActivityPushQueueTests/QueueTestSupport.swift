import ActivityPushAPNs
import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// Built pushes for tests (always through the one builder).
enum Pushes {
    static let bundleID = "com.example.pizza"

    static func token(_ i: Int) -> String {
        // 32 bytes as 64 hex characters, distinct per i.
        let head = String(format: "%08x", i)
        return head + String(repeating: "ab", count: 28)
    }

    static func update(ts: Int64, minutes: Int = 5) throws -> PushRequest {
        try LiveActivityPush.update(bundleID: bundleID, contentState: .obj([("minutesLeft", .int(minutes))]),
                                    timestampUnixSeconds: ts).build()
    }

    static func end(ts: Int64) throws -> PushRequest {
        try LiveActivityPush.end(bundleID: bundleID, contentState: .obj([("minutesLeft", .int(0))]),
                                 timestampUnixSeconds: ts, dismissalDateUnixSeconds: ts + 60).build()
    }

    static func start(ts: Int64) throws -> PushRequest {
        try LiveActivityPush.start(bundleID: bundleID, attributesType: "PizzaDeliveryAttributes",
                                   attributes: .obj([("orderNumber", .int(42))]),
                                   contentState: .obj([("minutesLeft", .int(30))]),
                                   alert: LiveActivityAlert(title: "Order placed", body: "We are making your pizza"),
                                   timestampUnixSeconds: ts).build()
    }
}

/// A mutable clock for deterministic worker tests (UNIX seconds).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var t: Double
    init(_ start: Double = 1_800_000_000) { t = start }
    var now: Double { lock.lock(); defer { lock.unlock() }; return t }
    func advance(_ s: Double) { lock.lock(); t += s; lock.unlock() }
}

/// Answers like APNs from a script, recording every request: a test double for the network only.
final class ScriptedSender: PushSender, @unchecked Sendable {
    struct Sent: Hashable { var target: String; var apnsID: String; var body: [UInt8]; var headers: APNsHeaders }
    private let lock = NSLock()
    private var _sent: [Sent] = []
    private var _refreshes = 0
    private let script: @Sendable (String, Int) -> APNsResult

    /// - Parameter script: (target, how many times this target was sent before) → result.
    init(_ script: @escaping @Sendable (String, Int) -> APNsResult) { self.script = script }

    func send(_ request: PushRequest, to target: String) async -> APNsResult {
        let n: Int = lock.withLock {
            let n = _sent.filter { $0.target == target }.count
            _sent.append(Sent(target: target, apnsID: request.apnsID ?? "", body: request.body, headers: request.headers))
            return n
        }
        return script(target, n)
    }

    func refreshCredentials() async { lock.withLock { _refreshes += 1 } }

    var sent: [Sent] { lock.withLock { _sent } }
    var refreshes: Int { lock.withLock { _refreshes } }

    static func response(_ status: Int, _ reason: APNsReason? = nil, retryAfter: Double? = nil,
                         timestampMs: Int64? = nil, apnsID: String? = nil) -> APNsResult {
        .response(APNsResponse(status: status, apnsID: apnsID, reason: reason, timestampMilliseconds: timestampMs,
                               retryAfterSeconds: retryAfter))
    }
}

/// A throwaway PostgreSQL server shared by every test in this process (started on first use with
/// scripts/pg-test-server.sh, stopped when the process exits).
enum PostgresTestServer {
    nonisolated(unsafe) private static var started: Result<String, QueueError>?
    private static let lock = NSLock()
    nonisolated(unsafe) static var directory: String?
    nonisolated(unsafe) private static var databaseCounter = 0

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The server's URL (`postgres://postgres@127.0.0.1:PORT/postgres`).
    static func url() throws -> String {
        try lock.withLock { () throws -> String in
            if started == nil { started = start() }
            return try started!.get()
        }
    }

    /// A fresh, empty database on the shared server, so each test starts from nothing.
    static func freshDatabase() throws -> String {
        let base = try url()
        let name: String = lock.withLock { databaseCounter += 1; return "t\(getpid())_\(databaseCounter)" }
        let admin = try PostgresConnection(url: base)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        return String(base[..<base.lastIndex(of: "/")!]) + "/" + name
    }

    private static func start() -> Result<String, QueueError> {
        let dir = "/tmp/activity-push-pg-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o755])
        directory = dir
        let script = repositoryRoot.appendingPathComponent("scripts/pg-test-server.sh").path
        // The script's watchdog stops the server if this process dies without running its atexit handler.
        setenv("PG_TEST_OWNER_PID", String(getpid()), 1)
        let (status, out, err) = run(script, ["start", dir + "/pg"])
        guard status == 0 else {
            return .failure(QueueError("could not start PostgreSQL with \(script): \(err) \(out)"))
        }
        atexit {
            guard let dir = PostgresTestServer.directory else { return }
            _ = PostgresTestServer.run(PostgresTestServer.repositoryRoot.appendingPathComponent("scripts/pg-test-server.sh").path,
                                       ["stop", dir + "/pg"])
            try? FileManager.default.removeItem(atPath: dir)
        }
        return .success(out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @discardableResult
    static func run(_ exe: String, _ args: [String]) -> (Int32, String, String) {
        ChildProcess.run(exe, args)
    }
}

/// A new SQLite queue file in a fresh temporary directory (removed when the test process exits).
func temporarySQLitePath() -> String {
    temporaryDirectory("ap-queue") + "/queue.sqlite"
}

/// A fresh directory under the system temporary directory, removed when the test process exits.
func temporaryDirectory(_ prefix: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    TemporaryDirectories.track(dir)
    return dir
}

enum TemporaryDirectories {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: [String] = []
    nonisolated(unsafe) private static var registered = false

    static func track(_ path: String) {
        lock.withLock {
            paths.append(path)
            if !registered {
                registered = true
                atexit { TemporaryDirectories.removeAll() }
            }
        }
    }

    static func removeAll() {
        for p in lock.withLock({ paths }) { try? FileManager.default.removeItem(atPath: p) }
    }
}

/// Runs programs with posix_spawn and waitpid (Foundation's Process can miss the exit of a script whose
/// grandchild daemonizes, as pg_ctl does). Output goes to files so no pipe can block.
enum ChildProcess {
    /// Starts `exe` with `args`; stdout and stderr go to the given files.
    static func spawn(_ exe: String, _ args: [String], stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, exe, &actions, nil, argv, environ)
        guard rc == 0 else { throw QueueError("cannot start \(exe): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for `pid`; returns its exit status, or 128 + signal number when a signal ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    /// Runs to completion and returns (status, stdout, stderr).
    static func run(_ exe: String, _ args: [String]) -> (Int32, String, String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ap-run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base + ".out"); try? FileManager.default.removeItem(atPath: base + ".err") }
        do {
            let pid = try spawn(exe, args, stdout: base + ".out", stderr: base + ".err")
            let status = wait(pid)
            let out = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
            let err = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
            return (status, out, err)
        } catch {
            return (-1, "", "\(error)")
        }
    }
}
