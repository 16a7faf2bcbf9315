import ActivityPushCore
import Foundation
import Synchronization

/// Sends Live Activity pushes to APNs over HTTP/2 with token auth.
///
/// One client holds one credential (``ProviderToken``) for one ``APNsEnvironment`` and multiplexes every request
/// on one HTTP/2 connection per host (or a pool, see ``HTTP2TransportConfiguration/connections``), on its own
/// HTTP/2 stack (libnghttp2 + OpenSSL, `ActivityPushHTTP2`). It sends only
/// ``PushRequest`` values — made by ``LiveActivityPush/build(schema:)`` or re-checked by
/// ``PushRequest/init(bundleID:storedHeaders:body:schema:)`` — so no hand-assembled body reaches APNs.
///
/// A push without an `apns-id` gets one (a lowercase UUID), so a stream the server refused and the client
/// resent carries the same id. On `403 ExpiredProviderToken` the token is re-signed once and the request resent once. Every call returns
/// exactly one ``APNsResult``; ``APNsResult/disposition(policy:)`` says what to do with it.
/// Call ``shutdown()`` when done.
public final class APNsClient: Sendable {
    /// Which APNs hosts this client talks to (development or production, or a mock's URLs); every request
    /// goes to this environment's device, broadcast or channel-management URL.
    public let environment: APNsEnvironment
    /// The provider token (JWT) signed into every request's `authorization: bearer …` header; re-signed once
    /// on `403 ExpiredProviderToken` (Apple, "Establishing a token-based connection to APNs", spec §2.5).
    public let token: ProviderToken
    package let transport: HTTP2Transport
    /// The device URL's origin and path prefix, parsed once (not per push).
    private let deviceEndpoint: (origin: HTTP2Origin, basePath: String)?

    /// Makes a client; no connection opens until the first request.
    /// - Parameters:
    ///   - environment: the APNs hosts to send to.
    ///   - token: the signing credential for the `authorization` header.
    ///   - configuration: connection pool, stream cap, timeouts (seconds) and CA file.
    /// - Throws: ``APNsTransportError`` (not sent) when the CA file cannot be loaded or `https_proxy` is not an
    ///   `http://host:port` URL.
    public init(environment: APNsEnvironment, token: ProviderToken,
                transport configuration: HTTP2TransportConfiguration = .init()) throws {
        self.environment = environment
        self.token = token
        self.transport = try HTTP2Transport(configuration: configuration)
        self.deviceEndpoint = HTTP2Origin.parse(environment.deviceURL).map { ($0.origin, $0.path == "/" ? "" : $0.path) }
    }

    /// Sends a device push (`POST /3/device/<token>`): a `start` to a push-to-start token, an `update`/`end` to an
    /// activity's update token.
    /// - Parameter deviceToken: the token as hex (any case; spaces and `<>` are not accepted).
    /// - Throws: ``APNsRequestError`` when the token is not hex or the push is addressed to a broadcast channel.
    public func send(_ push: PushRequest, deviceToken: String) async throws(APNsRequestError) -> APNsResult {
        guard case .device = push.destination else {
            throw APNsRequestError(.broadcastPushToDevice, "this push was built for a broadcast channel",
                                   fix: "send it with broadcast(_:)")
        }
        return await execute(try deviceRequest(push, deviceToken: deviceToken))
    }

    /// Sends a device push like ``send(_:deviceToken:)`` without a task or a continuation per push: `completion`
    /// runs exactly once, on the client's HTTP/2 thread (keep it short; it may submit the next push). For
    /// callers that keep many pushes in flight (a bulk sender, a pipelined worker), this costs a few µs of CPU
    /// less per push than the `async` call (`activity-push bench send` prints both).
    /// - Throws: ``APNsRequestError`` when the token is not hex or the push is addressed to a broadcast channel
    ///   (then `completion` is not called).
    public func submit(_ push: PushRequest, deviceToken: String,
                       completion: @escaping @Sendable (APNsResult) -> Void) throws(APNsRequestError) {
        let request = try deviceRequest(push, deviceToken: deviceToken)
        let jwt: String
        do { jwt = try token.current() } catch {
            completion(.failure(APNsTransportError(kind: .notSent, message: "cannot sign the provider token: \(error)", attempts: 0)))
            return
        }
        // One closure per push: the result is mapped and the expired-token case checked in it.
        transport.submitUnmapped(request.request(bearer: bearerHeader(jwt))) { [token] outcome in
            let first = Self.result(outcome, of: request)
            guard case .response(let r) = first, r.status == 403, r.reason == .expiredProviderToken,
                  let fresh = try? token.invalidate(jwt) else { completion(first); return }
            self.submitOnce(request, jwt: fresh, completion: completion)
        }
    }

    /// The request of a device push, without its `authorization` (added per attempt).
    private func deviceRequest(_ push: PushRequest, deviceToken: String) throws(APNsRequestError) -> PendingRequest {
        guard case .device = push.destination else {
            throw APNsRequestError(.broadcastPushToDevice, "this push was built for a broadcast channel",
                                   fix: "send it with broadcast(_:)")
        }
        let hex = try Self.checkedToken(deviceToken)
        guard let (origin, basePath) = deviceEndpoint else {
            return PendingRequest(method: "POST", url: environment.deviceURL + "/3/device/" + hex, headers: Self.headers(of: push), body: push.body)
        }
        return PendingRequest(method: "POST", origin: origin, path: basePath + "/3/device/" + hex,
                              headers: Self.headers(of: push), body: push.body)
    }

    /// Sends an `update`/`end` to the broadcast channel in the push (`POST /4/broadcasts/apps/<bundle id>`, iOS 18+).
    /// - Throws: ``APNsRequestError`` when the push is a device push.
    public func broadcast(_ push: PushRequest) async throws(APNsRequestError) -> APNsResult {
        guard case .broadcast = push.destination else {
            throw APNsRequestError(.devicePushToChannel, "this push was built for a device token",
                                   fix: "send it with send(_:deviceToken:)")
        }
        return await execute(PendingRequest(method: "POST", url: environment.broadcastURL + "/4/broadcasts/apps/" + push.bundleID,
                                            headers: Self.headers(of: push), body: push.body))
    }

    // MARK: Channel management (iOS 18 broadcast), spec §2.4

    /// Creates a channel (`POST /1/apps/<bundle>/channels`, body `{"message-storage-policy":0|1,"push-type":"LiveActivity"}`).
    /// Success is `201` with the new id in ``APNsResponse/channelID`` (base64). The policy cannot be changed later.
    /// Source: Apple, "Sending channel management requests to APNs" (spec §2.4). Never throws: a failure is a
    /// non-2xx ``APNsResult/response(_:)`` or an ``APNsResult/failure(_:)``.
    public func createChannel(bundleID: String, storagePolicy: MessageStoragePolicy) async -> APNsResult {
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#
        return await execute(PendingRequest(method: "POST", url: channelsURL(bundleID), headers: [], body: Array(body.utf8)))
    }

    /// Reads a channel (`GET /1/apps/<bundle>/channels` with header `apns-channel-id`): `200`, body
    /// `{"message-storage-policy":…,"push-type":…}`. Source: Apple, "Sending channel management requests to APNs"
    /// (spec §2.4).
    public func readChannel(bundleID: String, channelID: String) async -> APNsResult {
        await execute(PendingRequest(method: "GET", url: channelsURL(bundleID), headers: [HTTP2Header(APNsHeaderName.channelID.rawValue, channelID)], body: []))
    }

    /// Deletes a channel (`DELETE /1/apps/<bundle>/channels` with header `apns-channel-id`): `204`. Irreversible:
    /// pushes to the id fail afterwards. Source: Apple, "Sending channel management requests to APNs" (spec §2.4).
    public func deleteChannel(bundleID: String, channelID: String) async -> APNsResult {
        await execute(PendingRequest(method: "DELETE", url: channelsURL(bundleID), headers: [HTTP2Header(APNsHeaderName.channelID.rawValue, channelID)], body: []))
    }

    /// Lists channel ids (`GET /1/apps/<bundle>/all-channels`): `200`, body `{"channels":[…]}`; see ``channelIDs(in:)``.
    /// Source: Apple, "Sending channel management requests to APNs" (spec §2.4).
    public func listChannels(bundleID: String) async -> APNsResult {
        await execute(PendingRequest(method: "GET", url: environment.managementURL + "/1/apps/" + bundleID + "/all-channels", headers: [], body: []))
    }

    /// The channel ids (base64 strings) in the body of a ``listChannels(bundleID:)`` response
    /// (`{"channels":[…]}`); empty when the body is not that JSON object or has no `channels` array.
    public static func channelIDs(in response: APNsResponse) -> [String] {
        guard let obj = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return [] }
        return obj["channels"] as? [String] ?? []
    }

    /// Lets in-flight requests finish, then closes the connections.
    public func shutdown() async { await transport.shutdown() }

    // MARK: Internals

    /// The push's headers, with an `apns-id` when it has none.
    static func headers(of push: PushRequest) -> [HTTP2Header] {
        // The apns-id is unique per push: never indexed by HPACK (it would evict the fields that repeat).
        var headers = push.headers.map { HTTP2Header($0.name, $0.value, neverIndexed: $0.name == APNsHeaderName.id.rawValue) }
        if push.headers.apnsID == nil {
            headers.append(HTTP2Header(APNsHeaderName.id.rawValue, randomUUIDString(), neverIndexed: true))
        }
        return headers
    }

    /// A random (version 4) UUID in Apple's canonical lowercase form, without Foundation's `UUID` (a third of
    /// this function's cost per push in `perf`) and without a `getrandom` system call per id: the bytes come
    /// from ``RandomBytes`` (the system generator, 4 KB at a time).
    static func randomUUIDString() -> String {
        var words = RandomBytes.shared.next()
        words.high = (words.high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000   // version 4
        words.low = (words.low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000     // RFC 4122 variant
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for word in [words.high, words.low] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = digits.utf8Start[Int((word >> UInt64(shift)) & 0xF)]
                    position += 1
                }
            }
            return 36
        }
    }

    private func channelsURL(_ bundleID: String) -> String { environment.managementURL + "/1/apps/" + bundleID + "/channels" }

    static func checkedToken(_ t: String) throws(APNsRequestError) -> String {
        do { return try DeviceToken(hex: t).hex } catch { throw APNsRequestError(error) }
    }

    /// A request before its `authorization` header: slot 0 of ``headers`` is filled per attempt.
    private struct PendingRequest: Sendable {
        var method: String
        var origin: HTTP2Origin?
        var path: String
        var url: String?
        var headers: [HTTP2Header]
        var body: [UInt8]

        init(method: String, url: String, headers: [HTTP2Header], body: [UInt8]) {
            self.method = method
            self.path = "/"
            self.url = url
            self.headers = headers
            self.body = body
        }

        init(method: String, origin: HTTP2Origin, path: String, headers: [HTTP2Header], body: [UInt8]) {
            self.method = method
            self.origin = origin
            self.path = path
            self.headers = headers
            self.body = body
        }

        /// The wire request with `authorization: bearer <jwt>` first (one array built per attempt).
        func request(bearer: HTTP2Header) -> HTTP2Request {
            var all: [HTTP2Header] = []
            all.reserveCapacity(headers.count + 1)
            all.append(bearer)
            all.append(contentsOf: headers)
            if let origin { return HTTP2Request(method: method, origin: origin, path: path, headers: all, body: body) }
            return HTTP2Request(method: method, url: url ?? path, headers: all, body: body)
        }

        var apnsID: String? { headers.first(where: { $0.name == APNsHeaderName.id.rawValue })?.value }
    }

    /// `authorization: bearer <jwt>` for the current token, built once per token rather than once per push.
    /// Two plain strings, not an optional tuple holding an `HTTP2Header`: with that shape the -O build of
    /// Swift 6.3.1 freed an invalid pointer in this class's deinit (glibc "free(): invalid pointer" under
    /// `MALLOC_CHECK_=3`; heap corruption in `bench send` otherwise) once `HTTP2Header` gained a `Bool`.
    private let bearer = Mutex<(jwt: String, value: String)>(("", ""))

    private func bearerHeader(_ jwt: String) -> HTTP2Header {
        let cached = bearer.withLock { $0 }
        if cached.jwt == jwt, !jwt.isEmpty { return HTTP2Header(APNsHeaderName.authorization.rawValue, cached.value) }
        let value = "bearer " + jwt
        bearer.withLock { $0 = (jwt, value) }
        return HTTP2Header(APNsHeaderName.authorization.rawValue, value)
    }

    private func execute(_ request: PendingRequest) async -> APNsResult {
        let jwt: String
        do { jwt = try token.current() } catch {
            return .failure(APNsTransportError(kind: .notSent, message: "cannot sign the provider token: \(error)", attempts: 0))
        }
        let first = await once(request, jwt: jwt)
        guard case .response(let r) = first, r.status == 403, r.reason == .expiredProviderToken else { return first }
        // Re-sign once (one re-sign per rejected token, shared by concurrent requests) and resend once.
        guard let fresh = try? token.invalidate(jwt) else { return first }
        return await once(request, jwt: fresh)
    }

    private func once(_ request: PendingRequest, jwt: String) async -> APNsResult {
        Self.result(await transport.send(request.request(bearer: bearerHeader(jwt))), of: request)
    }

    private func submitOnce(_ request: PendingRequest, jwt: String, completion: @escaping @Sendable (APNsResult) -> Void) {
        transport.submitUnmapped(request.request(bearer: bearerHeader(jwt))) { completion(Self.result($0, of: request)) }
    }

    private static func result(_ outcome: HTTP2Result, of request: PendingRequest) -> APNsResult {
        switch outcome {
        case .success(let r): return .response(APNsResponse(status: r.status, headers: r.headers, body: r.body))
        case .failure(var failure):
            failure.apnsID = request.apnsID
            return .failure(failure)
        }
    }

    private static func result(_ outcome: HTTP2ClientResult, of request: PendingRequest) -> APNsResult {
        switch outcome {
        case .success(let r): return .response(APNsResponse(status: r.status, headers: r.headers, body: r.body))
        case .failure(let failure):
            var mapped = APNsTransportError(failure)
            mapped.apnsID = request.apnsID
            return .failure(mapped)
        }
    }
}
