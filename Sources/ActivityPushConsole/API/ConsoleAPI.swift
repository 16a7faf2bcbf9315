import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// The console's HTTP API and page, as one async function from request to response — served by
/// ``ConsoleServer`` and called directly by tests.
///
/// A front for the rest of the toolkit, not a second implementation: payloads come from ``LiveActivityPush``,
/// verdicts from ``Validator`` (`POST /v1/check` answers exactly `check --format json`), sends go through
/// ``APNsClient`` and enqueues through ``Outbox``. Routes are listed in ``routes`` and described by
/// `GET /openapi.json`. Every failure is a JSON ``APIError``; no input makes the server stop.
public final class ConsoleAPI: Sendable {
    public let configuration: ConsoleConfiguration
    public let client: APNsClient?
    public let outbox: Outbox?
    /// The activity lifecycle (`/v1/tokens`, `/v1/activities…`); nil answers 503.
    public let activities: LiveActivityService?
    public let metrics = ConsoleMetrics()
    let journal = ConsoleJournal()

    /// - Parameters:
    ///   - client: sends `POST /v1/send`; nil answers 503 (start `serve` with `--auth-key`, `--key-id`, `--team-id`).
    ///   - outbox: stores `POST /v1/enqueue`; nil answers 503.
    public init(configuration: ConsoleConfiguration, client: APNsClient? = nil, outbox: Outbox? = nil,
                activities: LiveActivityService? = nil) {
        self.configuration = configuration
        self.client = client
        self.outbox = outbox
        self.activities = activities
    }

    /// Method and path of every route (the page's assets included).
    public static let routes: [(method: String, path: String)] = [
        ("GET", "/"), ("GET", "/console.css"), ("GET", "/console.js"), ("GET", "/openapi.json"),
        ("GET", "/v1/types"), ("POST", "/v1/check"), ("POST", "/v1/build"), ("POST", "/v1/send"),
        ("POST", "/v1/enqueue"), ("GET", "/v1/journal"), ("GET", "/metrics"),
    ] + ActivityRoutes.routes

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var path = request.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path == "/index.html" { path = "/" }
        let known = Self.routes.contains(where: { $0.path == path }) || ActivityRoutes.template(path) != nil
        var response: HTTPResponse
        if let refusal = AccessCheck.crossSiteRefusal(request, tokenRequired: configuration.apiToken != nil) {
            response = refusal.response
        } else if ActivityRoutes.isIntake(path), let refusal = ActivityRoutes.intakeRefusal(request, configuration: configuration) {
            response = refusal.response
        } else if let token = configuration.apiToken, !ActivityRoutes.isIntake(path), !AccessCheck.allows(request, token: token) {
            response = APIError(401, "unauthorized", "this console needs its API token",
                                fix: "send Authorization: Bearer <token> (the --api-token given to serve)").response
        } else {
            do {
                response = try await route(request, path: path)
            } catch {
                response = error.response
            }
        }
        metrics.request(route: known ? (ActivityRoutes.template(path)?.path ?? path) : "other", status: response.status)
        response.headers += [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
        return response
    }

    private func route(_ request: HTTPRequest, path: String) async throws(APIError) -> HTTPResponse {
        if let response = try await ActivityRoutes.handle(request, path: path, api: self) { return response }
        let methods = Self.routes.filter { $0.path == path }.map(\.method)
        guard !methods.isEmpty else {
            throw APIError(404, "not-found", "no route \(request.method) \(path)",
                           fix: "see GET /openapi.json; routes: " + Self.routes.map { "\($0.method) \($0.path)" }.joined(separator: ", "))
        }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard methods.contains(method) else {
            var r = APIError(405, "method-not-allowed", "\(path) takes \(methods.joined(separator: ", ")), not \(request.method)").response
            r.headers.append(("Allow", methods.joined(separator: ", ")))
            return r
        }
        switch path {
        case "/":
            var page = HTTPResponse.text(200, ConsolePage.html, contentType: "text/html; charset=utf-8")
            page.headers += [("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"), ("X-Frame-Options", "DENY")]
            return page
        case "/console.css": return .text(200, ConsoleStyle.css, contentType: "text/css; charset=utf-8")
        case "/console.js": return .text(200, ConsoleScript.js, contentType: "text/javascript; charset=utf-8")
        case "/openapi.json": return .text(200, OpenAPIDocument.text, contentType: "application/json; charset=utf-8")
        case "/v1/types": return types()
        case "/v1/check": return try check(request)
        case "/v1/build": return try build(request)
        case "/v1/send": return try await send(request)
        case "/v1/enqueue": return try enqueue(request)
        case "/v1/journal": return try journalResponse(request)
        case "/metrics": return metricsResponse()
        default: throw APIError(404, "not-found", "no route \(path)")
        }
    }

    // MARK: GET /v1/types

    /// `{"server": {bundleID, environment, canSend, canEnqueue, maxBodyBytes}, "files": […], "types": […]}`:
    /// the types exactly as `activity-push schema --format json` describes them (``ActivitySchemaDescription``).
    func types() -> HTTPResponse {
        let described = configuration.schema.map(ActivitySchemaDescription.json) ?? .obj([("files", .arr([])), ("types", .arr([]))])
        guard case .object(var members) = described else { return .json(200, described) }
        let server: JSONValue = .obj([
            ("bundleID", .string(configuration.bundleID)), ("environment", .string(configuration.environmentName)),
            ("canSend", .bool(client != nil)), ("canEnqueue", .bool(outbox != nil)),
            ("maxBodyBytes", .int(configuration.maxBodyBytes)),
        ])
        members.insert(JSONMember(key: "server", value: JSONNode(server)), at: 0)
        return .json(200, .object(members))
    }

    // MARK: POST /v1/check

    /// `{"payload": {…}} | {"body": "<exact JSON text>"}`, optional `"headers": {…}`, `"now": UNIX`, `"strict": true`
    /// → `{"accept", "findings"}` exactly as `check --format json`. With `payload`, line:column refer to the payload
    /// as written by `JSONWriter.pretty` (what the page previews); with `body`, to the text given.
    func check(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let bytes: [UInt8]
        if let p = body.node("payload") {
            bytes = Array(JSONWriter.pretty(p.value.value).utf8)
        } else if let text = try body.string("body") {
            bytes = Array(text.utf8)
        } else {
            throw .badRequest("payload", "required: the push body as a JSON object (or \"body\": its exact text)",
                              fix: "send {\"payload\": {\"aps\": {…}}, \"headers\": {\"apns-push-type\": \"liveactivity\", …}}")
        }
        let headers = try Self.headers(&body)
        let now = try body.double("now") ?? Date().timeIntervalSince1970
        let strict = try body.bool("strict") ?? configuration.strict
        try body.rejectUnknown(allowed: [])
        let report = Validator(schema: configuration.schema, strict: strict).check(body: bytes, headers: headers, nowUnixSeconds: now)
        metrics.checked(accept: report.accept)
        return .json(200, ReportFormatter.jsonValue(report))
    }

    /// `"headers": {"apns-push-type": "liveactivity", "apns-priority": 10, …}` (names any case; strings or numbers).
    static func headers(_ body: inout RequestBody) throws(APIError) -> APNsHeaders? {
        guard let m = body.node("headers") else { return nil }
        guard let members = m.value.value.members else {
            throw .badRequest("headers", "expected an object of header names to values", position: m.value.position)
        }
        var h = APNsHeaders()
        for member in members {
            switch member.value.value {
            case .string(let s): h[member.key] = s
            case .number(let n): h[member.key] = n.lexeme
            case .bool(let b): h[member.key] = b ? "true" : "false"
            default:
                throw .badRequest("headers.\(member.key)", "must be a string or number", position: member.value.position)
            }
        }
        return h
    }

    // MARK: POST /v1/build

    /// Typed fields (``PushForm``) → the builder's headers and payload, and its verdict: 200 with warnings, or
    /// 422 with the error findings (the payload and headers are still returned, for the preview).
    func build(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let form = try PushForm(&body)
        try body.rejectUnknown(allowed: [])
        let push: LiveActivityPush
        switch try form.push(bundleID: configuration.bundleID, schema: configuration.schema) {
        case .success(let made): push = made
        case .failure(let missing):
            // A start without its parts: the same findings `activity-push build` prints; no preview to show.
            return .json(422, .obj([("accept", .bool(false)),
                                    ("findings", .arr(missing.findings.map(ReportFormatter.findingJSON)))]))
        }
        let findings: [Finding]
        let accept: Bool
        do {
            findings = try push.build(schema: configuration.schema).warnings
            accept = true
        } catch {
            findings = error.findings
            accept = false
        }
        return .json(accept ? 200 : 422, .obj([
            ("accept", .bool(accept)),
            ("findings", .arr(findings.map(ReportFormatter.findingJSON))),
            ("headers", Self.headersJSON(push)),
            ("payload", push.payload),
            ("body", .string(JSONWriter.compact(push.payload))),
        ]))
    }

    /// The request headers as sent, plus `:path` for a broadcast (as `activity-push build` prints them).
    static func headersJSON(_ push: LiveActivityPush) -> JSONValue {
        var pairs: [(String, JSONValue)] = push.headers.map { ($0.name, .string($0.value)) }
        if push.broadcastChannelID != nil { pairs.append((":path", .string("/4/broadcasts/apps/\(push.bundleID)"))) }
        return .obj(pairs)
    }

    /// Builds the push; on error findings answers 422 and counts a refusal.
    private func builtRequest(_ form: PushForm) throws(APIError) -> Result<PushRequest, PushBuildError> {
        switch try form.push(bundleID: configuration.bundleID, schema: configuration.schema) {
        case .failure(let missing): return .failure(missing)
        case .success(let push):
            do { return .success(try push.build(schema: configuration.schema)) } catch { return .failure(error) }
        }
    }

    private func refusal(_ error: PushBuildError, action: String) -> HTTPResponse {
        metrics.refusedForFindings()
        let n = error.findings.filter { $0.severity == .error }.count
        return .json(422, .obj([
            ("accept", .bool(false)),
            ("findings", .arr(error.findings.map(ReportFormatter.findingJSON))),
            ("error", APIError(422, "findings", "not \(action): the push has \(n) error finding\(n == 1 ? "" : "s")",
                               fix: "fix the findings (each has its fix) and try again").json.member("error") ?? .null),
        ]))
    }

    // MARK: POST /v1/send

    /// Typed fields plus `"deviceToken": "<hex>"` (omit for a broadcast with `channelID`) → one APNs request
    /// through the client. 200 with APNs's answer (`status`, `apnsID`, `reason`, `latencyMs`, `device`); 422 with the
    /// findings and nothing sent; 502 when APNs could not be reached; 503 when sending is not configured.
    func send(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let form = try PushForm(&body)
        let token = try body.string("deviceToken").flatMap { $0.isEmpty ? nil : $0 }
        try body.rejectUnknown(allowed: [])
        let built = try builtRequest(form)
        let pushRequest: PushRequest
        switch built {
        case .failure(let e): return refusal(e, action: "sent")
        case .success(let r): pushRequest = r
        }
        guard let client else {
            throw APIError(503, "not-configured", "sending is not configured on this console",
                           fix: "start serve with --auth-key AuthKey_KEYID.p8 --team-id TEAM (and --url for a mock)")
        }
        let target: String
        let start = Date()
        let result: APNsResult
        do {
            switch pushRequest.destination {
            case .device:
                guard let token else {
                    throw APIError.badRequest("deviceToken", "required for a device push (hex push-to-start or update token)",
                                              fix: "or give channelID to broadcast an update or end")
                }
                target = DeviceToken.redacted(token)
                result = try await client.send(pushRequest, deviceToken: token)
            case .broadcast(let channelID):
                if token != nil { throw APIError.badRequest("deviceToken", "a broadcast goes to its channel; leave deviceToken empty") }
                target = "channel:" + channelID
                result = try await client.broadcast(pushRequest)
            }
        } catch let e as APIError {
            throw e
        } catch {
            throw .badRequest("deviceToken", "\(error)")
        }
        let seconds = Date().timeIntervalSince(start)
        var entry = ConsoleJournalEntry(time: start.timeIntervalSince1970, action: "send", event: pushRequest.event.rawValue,
                                        target: target, latencyMilliseconds: seconds * 1000)
        switch result {
        case .response(let r):
            metrics.sent(status: r.status, reason: r.reason?.rawValue, seconds: seconds)
            entry.status = r.status
            entry.reason = r.reason?.rawValue
            entry.apnsID = r.apnsID ?? pushRequest.apnsID
            if configuration.readMockJournal, r.isSuccess, let id = entry.apnsID {
                entry.device = await DeviceOutcome.lookup(apnsID: id, client: client)
            }
        case .failure(let e):
            metrics.sent(status: nil, reason: nil, seconds: seconds)
            entry.error = e.description
        }
        journal.append(entry)
        var out = entry.json.members ?? []
        out.insert(JSONMember(key: "sent", value: JSONNode(.bool(entry.status != nil))), at: 0)
        out.append(JSONMember(key: "warnings", value: JSONNode(.arr(pushRequest.warnings.map(ReportFormatter.findingJSON)))))
        return .json(entry.status == nil ? 502 : 200, .object(out))
    }

    // MARK: POST /v1/enqueue

    /// Typed fields plus `"deviceTokens": ["<hex>", …]` (or `"deviceToken"`; none for a broadcast) and optional
    /// `"notBefore": UNIX` → one queue row per token, sent later by `activity-push worker`. 202 with the row ids;
    /// 422 with the findings and nothing stored; 503 without a queue.
    func enqueue(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var body = try RequestBody(request, maxBytes: configuration.maxBodyBytes)
        let form = try PushForm(&body)
        var tokens = try body.strings("deviceTokens") ?? []
        if let one = try body.string("deviceToken"), !one.isEmpty { tokens.append(one) }
        let notBefore = try body.double("notBefore")
        try body.rejectUnknown(allowed: [])
        let built = try builtRequest(form)
        let pushRequest: PushRequest
        switch built {
        case .failure(let e): return refusal(e, action: "enqueued")
        case .success(let r): pushRequest = r
        }
        guard let outbox else {
            throw APIError(503, "not-configured", "no queue on this console", fix: "start serve with --database PATH|postgres://…")
        }
        for (i, t) in tokens.enumerated() where !DeviceToken.isHex(t) {
            throw .badRequest("deviceTokens[\(i)]", "'\(DeviceToken.redacted(t))' is not a hex device token (even number of 0-9a-f characters)",
                              fix: DeviceTokenError.fix)
        }
        let ids: [Int64]
        do {
            ids = try outbox.enqueue(pushRequest, to: tokens, environment: configuration.queueEnvironment,
                                     notBeforeUnixSeconds: notBefore)
        } catch {
            throw APIError(400, "queue", error.description)
        }
        metrics.enqueued(ids.count)
        let target: String
        if case .broadcast(let c) = pushRequest.destination { target = "channel:" + c } else {
            target = tokens.count == 1 ? DeviceToken.redacted(tokens[0]) : "\(tokens.count) tokens"
        }
        journal.append(ConsoleJournalEntry(time: Date().timeIntervalSince1970, action: "enqueue", event: pushRequest.event.rawValue,
                                           target: target, apnsID: pushRequest.apnsID, queueIDs: ids))
        return .json(202, .obj([
            ("enqueued", .int(ids.count)),
            ("ids", .arr(ids.map { .number(JSONNumber(lexeme: String($0))) })),
            ("environment", .string(configuration.queueEnvironment)),
            ("warnings", .arr(pushRequest.warnings.map(ReportFormatter.findingJSON))),
        ]))
    }

    // MARK: GET /v1/journal

    /// `?limit=N` (default 50, at most 200): this console's sends and enqueues, newest first, and — with a queue —
    /// the queue's latest attempts.
    func journalResponse(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var limit = 50
        if let l = request.query["limit"] {
            guard let n = Int(l), n > 0 else { throw .badRequest("limit", "expected a positive whole number, got '\(l)'") }
            limit = min(n, journal.capacity)
        }
        var out: [(String, JSONValue)] = [("entries", .arr(journal.recent(limit).map(\.json)))]
        if let outbox, let attempts = try? outbox.store.journal(pushID: nil, limit: limit) {
            out.append(("queueAttempts", .arr(attempts.map { a in
                .obj([("pushID", .number(JSONNumber(lexeme: String(a.pushID)))),
                      ("time", .string(ConsoleJournalEntry.iso8601(a.atUnixSeconds))),
                      ("target", .string(a.tokenRedacted)), ("outcome", .string(a.outcome.rawValue)),
                      ("status", a.status.map { .int($0) } ?? .null), ("reason", a.reason.map { .string($0) } ?? .null),
                      ("apnsID", .string(a.apnsID)),
                      ("latencyMs", a.latencyMilliseconds.map { .double($0) } ?? .null)])
            })))
        }
        return .json(200, .obj(out))
    }

    // MARK: GET /metrics

    func metricsResponse() -> HTTPResponse {
        var g = ConsoleMetrics.Gauges()
        if let outbox {
            let now = Date().timeIntervalSince1970
            g.queueDepth = (try? outbox.store.status(nowUnixSeconds: now))?.counts
            g.queueRetries = (try? outbox.store.journal(pushID: nil, limit: 100_000))?.filter { $0.outcome == .retry }.count
        }
        if let client { g.transportRetries = client.transport.statistics.retriedUnsent }
        if let counts = try? activities?.counts() {
            (g.activities, g.budgetHolds) = (counts.activities, counts.budgetHolds)
            g.tokens = counts.tokens.merging(["retired": counts.retiredTokens]) { first, _ in first }
        }
        return .text(200, metrics.render(g), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}

private extension JSONValue {
    func member(_ key: String) -> JSONValue? { members?.first(where: { $0.key == key })?.value.value }
}

extension Error {
    /// Any error as a JSON response (``APIError`` as itself, anything else as a 500).
    var response: HTTPResponse {
        if let e = self as? APIError { return e.response }
        return APIError(500, "internal", "\(self)").response
    }
}
