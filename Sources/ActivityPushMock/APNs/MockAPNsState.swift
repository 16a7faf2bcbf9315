import ActivityPushCore
import ActivityPushHTTP2
import Foundation

/// Everything the mock remembers, and the APNs answers built from it: provider tokens per connection,
/// unregistered tokens, token→bundle bindings, broadcast channels, faults, the device emulator and the journal.
///
/// Thread-safety (`@unchecked Sendable`): the event-loop thread calls `respond(to:)` while tests and the
/// `/_mock` API read the journal or change faults from other threads; every stored property is guarded by `lock`.
final class MockAPNsState: @unchecked Sendable {
    private let lock = NSLock()
    private let configuration: MockAPNsConfiguration
    private let verifier: ProviderTokenVerifier?
    private var emulator: DeviceEmulator
    private var faults: MockFaultPlan
    private var entries: [MockJournalEntry] = []
    private var answered = 0
    private var entriesStart = 0
    private let journalFD: Int32
    private var unregistered: [String: Int64] = [:]
    private var tokenBundles: [String: String] = [:]
    /// bundle ID → channel ID → message-storage-policy, in creation order per bundle.
    private var channels: [String: [(id: String, policy: Int)]] = [:]
    private var connections: [Int: ConnectionAuth] = [:]

    private struct ConnectionAuth {
        var token: String?
        var tokenSince: Double = 0
        var issuedAt: Double = 0
    }

    /// Largest bodies APNs accepts (spec §3).
    static let deviceBodyLimit = 4096
    static let broadcastBodyLimit = 5120
    /// Channels per app per environment (spec §2.4).
    static let channelLimit = 10_000

    init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        switch configuration.providerTokens {
        case .acceptAny: verifier = nil
        case .verify(let keyPath, let keyID, let teamID):
            verifier = try ProviderTokenVerifier(keyPath: keyPath, keyID: keyID, teamID: teamID)
        }
        emulator = DeviceEmulator(schema: configuration.schema, pushToStartBudget: configuration.pushToStartBudget,
                                  pushToStartWindow: configuration.pushToStartWindowSeconds)
        faults = configuration.faults
        if let path = configuration.journalPath {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw MockAPNsError.journal("cannot open --journal \(path): \(String(cString: strerror(errno))); check the folder exists and is writable")
            }
            journalFD = fd
        } else {
            journalFD = -1
        }
    }

    deinit { if journalFD >= 0 { Descriptors.close(journalFD) } }

    /// Whether a stream limit of one applies before the first valid token (always, as APNs does).
    var requiresTokenBeforeConcurrency: Bool { true }

    // MARK: public-API operations

    func journal() -> [MockJournalEntry] {
        lock.lock(); defer { lock.unlock() }
        return Array(entries[entriesStart...])
    }

    func clearJournal() {
        lock.lock(); defer { lock.unlock() }
        entries.removeAll()
        entriesStart = 0
    }

    func unregister(token: String, atMilliseconds ms: Int64) {
        lock.lock(); defer { lock.unlock() }
        unregistered[token.lowercased()] = ms
    }

    func setFaults(_ plan: MockFaultPlan) {
        lock.lock(); defer { lock.unlock() }
        faults = plan
    }

    func currentFaults() -> MockFaultPlan {
        lock.lock(); defer { lock.unlock() }
        return faults
    }

    func connectionClosed(_ id: Int) {
        lock.lock(); defer { lock.unlock() }
        connections[id] = nil
    }

    // MARK: requests

    func respond(to request: MockRequest) -> MockResponse {
        if request.path.hasPrefix("/_mock/") || request.path == "/_mock" { return control(request) }
        let now = configuration.clock()
        lock.lock()
        var entry = MockJournalEntry(time: now, method: request.method, path: request.path, token: nil, bundleID: nil,
                                     channelID: nil, headers: Self.journalHeaders(request), status: 0, reason: nil,
                                     apnsID: nil, fault: nil, device: nil, body: request.body)
        if request.path.hasPrefix("/3/device/") {
            // Redacted before anything else can record it (fault answers included): first 8 hex digits only.
            let token = String(request.path.dropFirst("/3/device/".count))
            entry.path = "/3/device/" + MockJournalEntry.redact(token)
            entry.token = token.isEmpty ? nil : String(token.prefix(8))
        }
        var response: MockResponse
        let draw = faults.draw(random: { Double.random(in: 0..<1) })
        if let action = draw.action {
            response = fault(action, request: request, entry: &entry)
        } else if request.path.hasPrefix("/3/device/") || request.path == "/3/device" {
            response = device(request, now: now, entry: &entry)
        } else if request.path.hasPrefix("/4/broadcasts/apps/") {
            response = broadcast(request, now: now, entry: &entry)
        } else if request.path.hasPrefix("/1/apps/") {
            response = channelManagement(request, now: now, entry: &entry)
        } else {
            response = .error(404, .badPath)
            entry.apnsID = request.header("apns-id")
            response.headers.append(("apns-id", entry.apnsID ?? Self.newUUID()))
        }
        if draw.delayMilliseconds > 0 {
            response.delayMilliseconds = draw.delayMilliseconds
            entry.fault = entry.fault.map { $0 + ",delay=\(draw.delayMilliseconds)ms" } ?? "delay=\(draw.delayMilliseconds)ms"
        }
        entry.status = response.connectionAction == nil ? response.status : 0
        if entry.reason == nil, response.status >= 400, response.connectionAction == nil {
            entry.reason = Self.reason(in: response.body)
        }
        record(entry)
        lock.unlock()
        configuration.onRequest?(entry)
        return response
    }

    /// APNs requests answered since start (not capped like the in-memory journal; not reset by clearing it).
    var requestCount: Int {
        lock.lock(); defer { lock.unlock() }
        return answered
    }

    private func record(_ entry: MockJournalEntry) {
        answered += 1
        entries.append(entry)
        if entries.count - entriesStart > configuration.journalMemoryLimit {
            entriesStart += 1
            if entriesStart > 4096 {
                entries.removeFirst(entriesStart)
                entriesStart = 0
            }
        }
        if journalFD >= 0 {
            let line = Array((entry.jsonLine + "\n").utf8)
            _ = line.withUnsafeBytes { write(journalFD, $0.baseAddress, $0.count) }
        }
    }

    private func fault(_ action: MockFaultPlan.Action, request: MockRequest, entry: inout MockJournalEntry) -> MockResponse {
        let idHeader = request.path.hasPrefix("/3/") ? "apns-id" : "apns-request-id"
        let id = request.header(idHeader).map { $0.lowercased() } ?? Self.newUUID()
        entry.apnsID = id
        var r: MockResponse
        switch action {
        case .tooManyRequests(let s):
            r = .error(429, .tooManyRequests)
            r.headers.append(("retry-after", String(s)))
            entry.fault = "429"
        case .internalServerError:
            r = .error(500, .internalServerError)
            entry.fault = "500"
        case .serviceUnavailable:
            r = .error(503, request.path.hasPrefix("/3/") ? .serviceUnavailable : .serviceUnavailableBroadcast)
            entry.fault = "503"
        case .goaway:
            r = MockResponse(status: 0, connectionAction: .goaway)
            entry.fault = "goaway"
        case .drop:
            r = MockResponse(status: 0, connectionAction: .drop)
            entry.fault = "drop"
        case .delay:
            r = MockResponse(status: 0)  // not reached: delays are not chosen as actions
        }
        r.headers.append((idHeader, id))
        return r
    }

    // MARK: /3/device/<token>

    private func device(_ request: MockRequest, now: Double, entry: inout MockJournalEntry) -> MockResponse {
        let rawToken = request.path.hasPrefix("/3/device/") ? Substring(request.path.utf8.dropFirst(10)) : ""
        let token = String(rawToken.firstIndex(of: "?").map { rawToken[..<$0] } ?? rawToken)
        entry.token = token.isEmpty ? nil : String(token.prefix(8))
        entry.path = "/3/device/" + MockJournalEntry.redact(token)
        entry.bundleID = request.header("apns-topic").map(Self.bundle(fromTopic:))
        let givenID = request.header("apns-id")
        let apnsID = givenID.map { $0.lowercased() } ?? Self.newUUID()
        entry.apnsID = apnsID
        func fail(_ status: Int, _ reason: MockReason, extra: String = "") -> MockResponse {
            var r = MockResponse.error(status, reason, extra: extra)
            r.headers.append(("apns-id", apnsID))
            entry.reason = reason.rawValue
            return r
        }
        guard request.method == "POST" else { return fail(405, .methodNotAllowed) }
        guard !token.isEmpty else { return fail(400, .missingDeviceToken) }
        guard Self.isDeviceToken(token) else { return fail(400, .badDeviceToken) }
        if let dup = Self.duplicatedHeader(request) { _ = dup; return fail(400, .duplicateHeaders) }
        if let givenID, !Self.isUUID(givenID) { return fail(400, .badMessageId) }
        let auth = authenticate(request, now: now)
        if let (status, reason) = auth.failure { return fail(status, reason) }
        guard request.header("apns-push-type") == APNsPushType.liveactivity.rawValue else { return fail(400, .invalidPushType) }
        guard let topic = request.header("apns-topic"), !topic.isEmpty else { return fail(400, .missingTopic) }
        guard topic.hasSuffix(".push-type.liveactivity") else { return fail(400, .deviceTokenNotForTopic) }
        let bundle = Self.bundle(fromTopic: topic)
        guard Self.isBundleID(bundle) else { return fail(400, .badTopic) }
        let key = token.lowercased()
        if let bound = tokenBundles[key], bound != bundle { return fail(400, .deviceTokenNotForTopic) }
        if let p = request.header("apns-priority"), p != "10", p != "5" { return fail(400, .badPriority) }
        if let e = request.header("apns-expiration"), e.isEmpty || !e.allSatisfy({ $0.isASCII && $0.isNumber }) || Int64(e) == nil {
            return fail(400, .badExpirationDate)
        }
        if let c = request.header("apns-collapse-id"), c.utf8.count > 64 { return fail(400, .badCollapseId) }
        guard request.bodyLength > 0 else { return fail(400, .payloadEmpty) }
        guard request.bodyLength <= Self.deviceBodyLimit else { return fail(413, .payloadTooLarge) }
        if let ms = unregistered[key] { return fail(410, .unregistered, extra: ",\"timestamp\":\(ms)") }
        tokenBundles[key] = bundle
        entry.device = emulator.deliver(body: request.body, headers: Self.apnsHeaders(request), token: key, bundleID: bundle, now: now)
        var r = MockResponse(status: 200, headers: [("apns-id", apnsID), ("apns-unique-id", Self.newUUID())])
        r.authenticated = auth.authenticated
        return r
    }

    // MARK: /4/broadcasts/apps/<bundle>

    private func broadcast(_ request: MockRequest, now: Double, entry: inout MockJournalEntry) -> MockResponse {
        let bundle = String(request.path.dropFirst("/4/broadcasts/apps/".count))
        entry.bundleID = bundle
        entry.channelID = request.header("apns-channel-id")
        let given = request.header("apns-request-id")
        let requestID = given.map { $0.lowercased() } ?? Self.newUUID()
        entry.apnsID = requestID
        func fail(_ status: Int, _ reason: MockReason) -> MockResponse {
            var r = MockResponse.error(status, reason)
            r.headers.append(("apns-request-id", requestID))
            entry.reason = reason.rawValue
            return r
        }
        guard request.method == "POST" else { return fail(405, .methodNotAllowed) }
        guard Self.isBundleID(bundle) else { return fail(404, .badPath) }
        if let given, !Self.isUUID(given) { return fail(400, .badMessageId) }
        let auth = authenticate(request, now: now)
        if let (status, reason) = auth.failure { return fail(status, reason) }
        guard let pushType = request.header("apns-push-type") else { return fail(400, .missingPushType) }
        guard pushType.lowercased() == "liveactivity" else { return fail(400, .invalidPushType) }
        if request.header("apns-topic") != nil { return fail(400, .topicDisallowed) }
        guard let channelID = request.header("apns-channel-id"), !channelID.isEmpty else { return fail(400, .missingChannelId) }
        guard Self.isBase64(channelID) else { return fail(400, .badChannelId) }
        guard let channel = channels[bundle]?.first(where: { $0.id == channelID }) else { return fail(400, .channelNotRegistered) }
        guard let p = request.header("apns-priority"), ["1", "5", "10"].contains(p) else { return fail(400, .badPriority) }
        guard let e = request.header("apns-expiration"), !e.isEmpty, e.allSatisfy({ $0.isASCII && $0.isNumber }), let exp = Int64(e) else {
            return fail(400, .badExpirationDate)
        }
        // A nonzero expiration on a "No Message Stored" channel is rejected (Apple, broadcast requests).
        if channel.policy == 0, exp != 0 { return fail(400, .badExpirationDate) }
        guard request.bodyLength > 0 else { return fail(400, .payloadEmpty) }
        guard request.bodyLength <= Self.broadcastBodyLimit else { return fail(413, .payloadTooLarge) }
        entry.device = emulator.broadcast(body: request.body, headers: Self.apnsHeaders(request), channelID: channelID, now: now)
        var r = MockResponse(status: 200, headers: [("apns-request-id", requestID), ("apns-unique-id", Self.newUUID())])
        r.authenticated = auth.authenticated
        return r
    }

    // MARK: /1/apps/<bundle>/channels, /1/apps/<bundle>/all-channels

    private func channelManagement(_ request: MockRequest, now: Double, entry: inout MockJournalEntry) -> MockResponse {
        let rest = request.path.dropFirst("/1/apps/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let given = request.header("apns-request-id")
        let requestID = given.map { $0.lowercased() } ?? Self.newUUID()
        entry.apnsID = requestID
        func fail(_ status: Int, _ reason: MockReason) -> MockResponse {
            var r = MockResponse.error(status, reason)
            r.headers.append(("apns-request-id", requestID))
            entry.reason = reason.rawValue
            return r
        }
        guard rest.count == 2, Self.isBundleID(rest[0]), rest[1] == "channels" || rest[1] == "all-channels" else { return fail(404, .badPath) }
        let bundle = rest[0]
        entry.bundleID = bundle
        entry.channelID = request.header("apns-channel-id")
        let allowed = rest[1] == "channels" ? ["POST", "GET", "DELETE"] : ["GET"]
        guard allowed.contains(request.method) else { return fail(405, .methodNotAllowed) }
        if let given, !Self.isUUID(given) { return fail(400, .badMessageId) }
        let auth = authenticate(request, now: now)
        if let (status, reason) = auth.failure { return fail(status, reason) }
        var r: MockResponse
        if rest[1] == "all-channels" {
            let ids = (channels[bundle] ?? []).map { JSONText.string($0.id) }
            r = .json(200, "{\"channels\":" + JSONText.array(ids) + "}")
        } else if request.method == "POST" {
            guard request.bodyLength > 0 else { return fail(400, .payloadEmpty) }
            let doc = JSONReader.read(request.body)
            guard doc.problems.isEmpty, let root = doc.root, let members = root.value.members else { return fail(400, .badRequestPayload) }
            guard members.allSatisfy({ $0.key == "message-storage-policy" || $0.key == "push-type" }) else { return fail(400, .badRequestParams) }
            guard let pushType = root["push-type"]?.value.stringValue else { return fail(400, .missingPushType) }
            guard pushType == "LiveActivity" else { return fail(400, .invalidPushType) }
            let policyValue = root["message-storage-policy"]?.value.numberValue?.int64Value ?? 0
            guard root["message-storage-policy"] == nil || policyValue == 0 || policyValue == 1 else { return fail(400, .badRequestParams) }
            guard (channels[bundle]?.count ?? 0) < Self.channelLimit else { return fail(400, .cannotCreateChannelConfig) }
            var raw = [UInt8](repeating: 0, count: 16)
            for i in 0..<16 { raw[i] = UInt8.random(in: 0...255) }
            let id = Data(raw).base64EncodedString()
            channels[bundle, default: []].append((id, Int(policyValue)))
            entry.channelID = id
            r = MockResponse(status: 201, headers: [("apns-channel-id", id)])
        } else {
            guard let id = request.header("apns-channel-id"), !id.isEmpty else { return fail(400, .missingChannelId) }
            guard Self.isBase64(id) else { return fail(400, .badChannelId) }
            guard let index = channels[bundle]?.firstIndex(where: { $0.id == id }) else { return fail(400, .channelNotRegistered) }
            if request.method == "GET" {
                let policy = channels[bundle]![index].policy
                r = .json(200, "{\"message-storage-policy\":\(policy),\"push-type\":\"LiveActivity\"}")
                r.headers.append(("apns-channel-id", id))
            } else {
                channels[bundle]!.remove(at: index)
                r = MockResponse(status: 204)
            }
        }
        r.headers.append(("apns-request-id", requestID))
        r.authenticated = auth.authenticated
        return r
    }

    // MARK: provider tokens

    private struct AuthResult {
        var failure: (Int, MockReason)?
        var authenticated = false
    }

    /// APNs token auth on one connection: a valid token unlocks concurrency; replacing it within 20 minutes
    /// is `TooManyProviderTokenUpdates`; `iat` older than an hour is `ExpiredProviderToken`.
    private func authenticate(_ request: MockRequest, now: Double) -> AuthResult {
        guard let header = request.header("authorization"), !header.isEmpty else {
            return AuthResult(failure: (403, .missingProviderToken))
        }
        guard header.lowercased().hasPrefix("bearer ") else { return AuthResult(failure: (403, .invalidProviderToken)) }
        let jwt = String(header.utf8.dropFirst(7).drop(while: { $0 == 32 || $0 == 9 }))!
        guard !jwt.isEmpty else { return AuthResult(failure: (403, .missingProviderToken)) }
        var conn = connections[request.connectionID] ?? ConnectionAuth()
        if conn.token == jwt {
            if verifier != nil, now - conn.issuedAt > 3600 { return AuthResult(failure: (403, .expiredProviderToken)) }
            return AuthResult(authenticated: true)
        }
        var issuedAt = now
        if let verifier {
            switch verifier.verify(jwt, now: now) {
            case .invalid(let reason): return AuthResult(failure: (403, reason))
            case .valid(let iat): issuedAt = iat
            }
        }
        if conn.token != nil, now - conn.tokenSince < 20 * 60 {
            return AuthResult(failure: (429, .tooManyProviderTokenUpdates))
        }
        conn.token = jwt
        conn.tokenSince = now
        conn.issuedAt = issuedAt
        connections[request.connectionID] = conn
        return AuthResult(authenticated: true)
    }

    // MARK: /_mock control API

    private func control(_ request: MockRequest) -> MockResponse {
        // `GET /_mock/journal?since=N&limit=M`: entries from index N on, at most M (the newest M without since).
        // The answer is rendered on the event loop, so a huge journal is best read in pages.
        var path = request.path
        var query: [String: Int] = [:]
        if let q = path.firstIndex(of: "?") {
            for pair in path[path.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, let v = Int(kv[1]), v >= 0 { query[String(kv[0])] = v }
            }
            path = String(path[..<q])
        }
        switch (request.method, path) {
        case ("GET", "/_mock/journal"):
            var entries = journal()
            if let since = query["since"] { entries = Array(entries.dropFirst(min(since, entries.count))) }
            if let limit = query["limit"] {
                entries = query["since"] != nil ? Array(entries.prefix(limit)) : Array(entries.suffix(limit))
            }
            let lines = entries.map(\.jsonLine)
            return .json(200, "[" + lines.joined(separator: ",\n") + "]")
        case ("DELETE", "/_mock/journal"):
            clearJournal()
            return MockResponse(status: 204)
        case ("GET", "/_mock/faults"):
            return .json(200, "{\"faults\":" + JSONText.string(currentFaults().description) + "}")
        case ("POST", "/_mock/faults"), ("PUT", "/_mock/faults"):
            do {
                let plan = try MockFaultPlan(spec: String(decoding: request.body, as: UTF8.self))
                setFaults(plan)
                return .json(200, "{\"faults\":" + JSONText.string(plan.description) + "}")
            } catch {
                return .json(400, "{\"error\":" + JSONText.string("\(error)") + "}")
            }
        default:
            if request.method == "POST", request.path.hasPrefix("/_mock/unregister/") {
                let token = String(request.path.dropFirst("/_mock/unregister/".count))
                guard Self.isDeviceToken(token) else {
                    return .json(400, "{\"error\":\"not a device token: use an even number of hex digits, 64 to 200\"}")
                }
                unregister(token: token, atMilliseconds: Int64((configuration.clock() * 1000).rounded()))
                return MockResponse(status: 204)
            }
            return .json(404, "{\"error\":\"unknown control endpoint; use GET|DELETE /_mock/journal, GET|POST /_mock/faults, POST /_mock/unregister/<token>\"}")
        }
    }

    // MARK: helpers

    /// Even number of hex digits, 64 to 200 (push-to-start tokens are longer than 64).
    static func isDeviceToken(_ t: String) -> Bool {
        let n = t.utf8.count
        return n >= 64 && n <= 200 && n % 2 == 0 && t.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }

    /// Canonical 8-4-4-4-12 hex UUID.
    static func isUUID(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 { if c != 45 { return false }; continue }
            let hex = (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)
            if !hex { return false }
        }
        return true
    }

    static func isBase64(_ s: String) -> Bool { s.count <= 256 && Data(base64Encoded: s) != nil }

    /// Letters, digits, `.`, `-`, `_` (ASCII), 1 to 255 bytes.
    static func isBundleID(_ s: String) -> Bool {
        let u = s.utf8
        return !u.isEmpty && u.count <= 255 && u.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 46 || $0 == 45 || $0 == 95
        }
    }

    static func bundle(fromTopic topic: String) -> String {
        topic.hasSuffix(".push-type.liveactivity") ? String(topic.dropLast(".push-type.liveactivity".count)) : topic
    }

    /// A random (version 4) UUID, lowercase. Built from the system random generator directly: Foundation's
    /// `UUID()` opens /dev/urandom per call on Linux, which showed up as the top system cost under load.
    static func newUUID() -> String {
        var g = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        let a = g.next() as UInt64, b = g.next() as UInt64
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * i)); bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * i)) }
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(45) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An `apns-*` header or `authorization` given twice.
    static func duplicatedHeader(_ r: MockRequest) -> String? {
        var seen = Set<String>()
        for h in r.headers where h.name.hasPrefix("apns-") || h.name == "authorization" {
            if !seen.insert(h.name).inserted { return h.name }
        }
        return nil
    }

    static func journalHeaders(_ r: MockRequest) -> APNsHeaders {
        var h = APNsHeaders()
        for f in r.headers where f.name != "authorization" { h[f.name] = f.value }
        return h
    }

    static func apnsHeaders(_ r: MockRequest) -> APNsHeaders {
        var h = APNsHeaders()
        for f in r.headers where f.name.hasPrefix("apns-") { h[f.name] = f.value }
        return h
    }

    static func reason(in body: [UInt8]) -> String? {
        JSONReader.read(body).root?["reason"]?.value.stringValue
    }
}
