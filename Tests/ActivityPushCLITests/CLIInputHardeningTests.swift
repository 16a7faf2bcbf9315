import Foundation
import XCTest

/// Bad input never hangs a command or misreports (issue 14): a FIFO without a writer is refused after a bounded
/// wait, inputs read whole are capped before they are read, every usage error is exit 2 with one line, and
/// secrets can come from a file or the environment instead of the command line.
final class CLIInputHardeningTests: XCTestCase {
    struct Result { let status: Int32; let stderr: String; let seconds: Double }

    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ap-cli-hardening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        if !FileManager.default.isExecutableFile(atPath: CLITests.executable.path) {
            XCTFail("activity-push is not built next to the tests (\(CLITests.executable.path)); run `swift build` first")
            throw CancellationError()
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// Runs the CLI with `environment` added, standard input closed, and a hard stop after 20 s.
    func run(_ args: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = args
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let started = Date()
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        return Result(status: process.terminationStatus, stderr: text, seconds: Date().timeIntervalSince(started))
    }

    func fifo(_ name: String) -> String {
        let path = scratch.appendingPathComponent(name).path
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        return path
    }

    /// A sparse file of `bytes` (instant, takes no disk).
    func sparse(_ name: String, bytes: UInt64) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: bytes)
        try handle.close()
        return path
    }

    func assertOneLineUsageError(_ result: Result, mentions text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 2, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "not one line: \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(text), result.stderr, file: file, line: line)
    }

    func testAFIFOWithoutAWriterIsRefusedNotWaitedOnForever() throws {
        for command in [["check"], ["logs"], ["check", "--headers"]] {
            let path = fifo("input-\(command.count)-\(command[0]).fifo")
            var args = command + [path]
            if command.count == 2 { args = ["check", "--headers", path, "-"] }
            let result = try run(args, environment: ["ACTIVITY_PUSH_READ_TIMEOUT": "1"])
            assertOneLineUsageError(result, mentions: "FIFO")
            XCTAssertLessThan(result.seconds, 10, "\(args)")
        }
    }

    func testAFIFOWhoseWriterComesLateIsRead() throws {
        let path = fifo("late.fifo")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
            let handle = FileHandle(forWritingAtPath: path)
            handle?.write(Data(#"{"aps":{"event":"end","timestamp":1700000000,"content-state":{}}}"#.utf8))
            try? handle?.close()
        }
        let result = try run(["check", path], environment: ["ACTIVITY_PUSH_READ_TIMEOUT": "5"])
        XCTAssertNotEqual(result.status, 2, result.stderr)
    }

    func testInputsReadWholeAreCappedBeforeTheyAreRead() throws {
        let payload = try sparse("huge.json", bytes: 100 << 20)
        var result = try run(["check", payload])
        assertOneLineUsageError(result, mentions: "over the 64 MB limit")
        XCTAssertLessThan(result.seconds, 5)
        // `logs --journal` on a 200 MB file used to take 22 s and 1 GB.
        let log = scratch.appendingPathComponent("device.log").path
        try Data("2026-11-24 11:02:04.981 liveactivitiesd[123]: hello\n".utf8).write(to: URL(fileURLWithPath: log))
        let journal = try sparse("journal.ndjson", bytes: 200 << 20)
        result = try run(["logs", log, "--journal", journal])
        assertOneLineUsageError(result, mentions: "journal.ndjson")
        XCTAssertLessThan(result.seconds, 5)
        let swift = try sparse("Huge.swift", bytes: 20 << 20)
        result = try run(["schema", swift])
        assertOneLineUsageError(result, mentions: "limit")
    }

    func testEveryUsageErrorIsExitTwoWithOneLine() throws {
        for command in ["check", "build", "logs", "audit", "send", "mock-apns", "schema", "serve", "worker", "channels"] {
            assertOneLineUsageError(try run([command, "--no-such-option", "x"]), mentions: "activity-push \(command)")
        }
        assertOneLineUsageError(try run(["no-such-command"]), mentions: "unknown command")
        assertOneLineUsageError(try run(["mock-apns", "--h2c", "--host", "example.com"]), mentions: "numeric IP address")
        assertOneLineUsageError(try run(["mock-apns", "--h2c", "--journal", "/nope/dir/journal.ndjson"]), mentions: "/nope/dir")
    }

    func testTheAPITokenComesFromAFileOrTheEnvironment() throws {
        let tokenFile = scratch.appendingPathComponent("token").path
        try Data("s3cret-token\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        // A non-loopback bind refuses to start without a token; with one from the file or the environment it
        // starts (and is stopped by the watchdog-free SIGTERM below).
        for (args, environment) in [(["--api-token-file", tokenFile], [String: String]()),
                                    ([], ["ACTIVITY_PUSH_API_TOKEN": "s3cret-token"])] {
            let process = Process()
            process.executableURL = CLITests.executable
            process.arguments = ["serve", "--host", "0.0.0.0", "--port", "0"] + args
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let firstLine = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            XCTAssertTrue(firstLine.hasPrefix("http://0.0.0.0:"), "\(args) \(environment): \(firstLine)")
            process.terminate()
            process.waitUntilExit()
        }
        assertOneLineUsageError(try run(["serve", "--host", "0.0.0.0", "--port", "0"],
                                        environment: ["ACTIVITY_PUSH_API_TOKEN": ""]), mentions: "API token")
        assertOneLineUsageError(try run(["serve", "--api-token-file", scratch.appendingPathComponent("missing").path]),
                                mentions: "no such file")
        assertOneLineUsageError(try run(["serve", "--api-token", "x", "--api-token-file", tokenFile]), mentions: "exclude each other")
    }
}
