@testable import ActivityPushMock

/// One fuzz input through the mock's request logic (`MockAPNsState.respond(to:)`: routing, header checks, provider
/// tokens, device emulation, broadcast channels, the `/_mock` control API) without sockets. Shared by
/// `Fuzz/Targets/mock-request.swift` (libFuzzer) and `MockFuzzCorpusReplayTests` (`make test`).
///
/// Input: up to 8 requests separated by NUL bytes, run in order against one fresh mock (so a channel created by
/// one request is used by the next). Each request is `METHOD PATH` on its first line, then `name: value` header
/// lines up to an empty line, then the body.
enum MockFuzzDriver {
    static let maxRequests = 8

    static func run(_ bytes: [UInt8]) {
        guard let state = try? MockAPNsState(configuration: MockAPNsConfiguration(journalMemoryLimit: 16,
                                                                                  clock: { 1_760_000_000 })) else { return }
        for (index, part) in bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(maxRequests).enumerated() {
            _ = state.respond(to: request(from: Array(part), connectionID: index % 2))
        }
    }

    /// Splits one request's bytes into method, path, headers and body.
    static func request(from bytes: [UInt8], connectionID: Int) -> MockRequest {
        var lines: [String] = []
        var offset = 0
        while offset < bytes.count {
            let end = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
            let line = String(decoding: bytes[offset..<end], as: UTF8.self)
            offset = min(bytes.count, end + 1)
            if line.isEmpty && !lines.isEmpty { break }
            lines.append(line)
        }
        let body = Array(bytes[offset...])
        let requestLine = lines.first?.split(separator: " ", maxSplits: 1).map(String.init) ?? []
        let headers: [(name: String, value: String)] = lines.dropFirst().map { line in
            let pair = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(pair[0]).lowercased(),
                    pair.count > 1 ? String(pair[1].drop(while: { $0 == " " })) : "")
        }
        return MockRequest(method: requestLine.first ?? "POST", path: requestLine.count > 1 ? requestLine[1] : "/",
                           headers: headers, body: Array(body.prefix(MockRequest.storedBodyLimit)),
                           bodyLength: body.count, connectionID: connectionID)
    }
}
