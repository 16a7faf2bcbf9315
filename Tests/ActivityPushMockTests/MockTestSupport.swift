import Foundation
import XCTest
@testable import ActivityPushMock

/// What `curl` got back.
struct CurlResult {
    var status: Int
    var headers: [String: String]
    var body: String
    var exitCode: Int32
}

/// Runs a process and returns (exit code, stdout, stderr).
@discardableResult
func runTool(_ tool: String, _ args: [String], stdin: Data? = nil) throws -> (Int32, Data, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    if let stdin {
        let inp = Pipe()
        p.standardInput = inp
        try p.run()
        inp.fileHandleForWriting.write(stdin)
        try inp.fileHandleForWriting.close()
    } else {
        p.standardInput = FileHandle.nullDevice
        try p.run()
    }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, o, String(decoding: e, as: UTF8.self))
}

/// `curl --http2[-prior-knowledge]` one request; returns status, lowercase response headers and body.
func curl(_ url: String, method: String = "POST", headers: [String: String] = [:], body: [UInt8]? = nil,
          cacert: String? = nil, extra: [String] = []) throws -> CurlResult {
    var args = ["-sS", "-X", method, "-D", "-", "--max-time", "10"]
    if let cacert { args += ["--http2", "--cacert", cacert] } else { args += ["--http2-prior-knowledge"] }
    for (k, v) in headers.sorted(by: { $0.key < $1.key }) { args += ["-H", "\(k): \(v)"] }
    var stdin: Data?
    if let body {
        args += ["--data-binary", "@-"]
        stdin = Data(body)
    }
    args += extra
    args.append(url)
    let (code, out, _) = try runTool("/usr/bin/curl", args, stdin: stdin)
    let text = String(decoding: out, as: UTF8.self)
    // Header block, blank line, body.
    guard let split = text.range(of: "\r\n\r\n") else { return CurlResult(status: 0, headers: [:], body: text, exitCode: code) }
    let head = text[..<split.lowerBound].split(separator: "\r\n")
    var status = 0
    var hs: [String: String] = [:]
    for (i, line) in head.enumerated() {
        if i == 0 {
            status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        } else if let c = line.firstIndex(of: ":") {
            hs[line[..<c].lowercased()] = line[line.index(after: c)...].trimmingCharacters(in: .whitespaces)
        }
    }
    return CurlResult(status: status, headers: hs, body: String(text[split.upperBound...]), exitCode: code)
}

let pushToStartToken = String(repeating: "a1b2c3d4", count: 20)   // 160 hex digits, like a real push-to-start token
let liveActivityHeaders = [
    "apns-push-type": "liveactivity",
    "apns-topic": "com.example.kora.push-type.liveactivity",
    "authorization": "bearer test-token",
]

/// The repository root (for Fixtures/).
let repositoryRoot: URL = {
    var u = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { u.deleteLastPathComponent() }
    return u
}()

func temporaryDirectory() -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mock-apns-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.path
}

func payload(event: String, timestamp: Int, extra: String = "") -> [UInt8] {
    var aps = "\"timestamp\":\(timestamp),\"event\":\"\(event)\",\"content-state\":{\"phase\":\"doors-open\",\"minutesLeft\":30}"
    if event == "start" {
        aps += ",\"attributes-type\":\"KORAActivityAttributes\",\"attributes\":{\"eventID\":\"ev-1042\",\"venueName\":\"Hall B\"}"
        aps += ",\"alert\":{\"title\":\"Doors are open\",\"body\":\"The show starts in 30 minutes\"}"
    }
    return Array("{\"aps\":{\(aps)\(extra)}}".utf8)
}
