import ActivityPushCore
import Foundation

/// A request the client refuses before sending: the push and the destination do not fit together.
public struct APNsRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

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
    public let environment: APNsEnvironment
    public let token: ProviderToken
    package let transport: HTTP2Transport

    /// - Throws: ``APNsTransportError`` (not sent) when the CA file cannot be loaded or `https_proxy` is not an
    ///   `http://host:port` URL.
    public init(environment: APNsEnvironment, token: ProviderToken,
                transport configuration: HTTP2TransportConfiguration = .init()) throws {
        self.environment = environment
        self.token = token
        self.transport = try HTTP2Transport(configuration: configuration)
    }

    /// Sends a device push (`POST /3/device/<token>`): a `start` to a push-to-start token, an `update`/`end` to an
    /// activity's update token.
    /// - Parameter deviceToken: the token as hex (any case; spaces and `<>` are not accepted).
    /// - Throws: ``APNsRequestError`` when the token is not hex or the push is addressed to a broadcast channel.
    public func send(_ push: PushRequest, deviceToken: String) async throws(APNsRequestError) -> APNsResult {
        guard case .device = push.destination else {
            throw APNsRequestError("this push was built for a broadcast channel; send it with broadcast(_:)")
        }
        let hex = try Self.checkedToken(deviceToken)
        return await execute(method: "POST", url: environment.deviceURL + "/3/device/" + hex,
                             headers: Self.headers(of: push), body: push.body)
    }

    /// Sends an `update`/`end` to the broadcast channel in the push (`POST /4/broadcasts/apps/<bundle id>`, iOS 18+).
    /// - Throws: ``APNsRequestError`` when the push is a device push.
    public func broadcast(_ push: PushRequest) async throws(APNsRequestError) -> APNsResult {
        guard case .broadcast = push.destination else {
            throw APNsRequestError("this push was built for a device token; send it with send(_:deviceToken:)")
        }
        return await execute(method: "POST", url: environment.broadcastURL + "/4/broadcasts/apps/" + push.bundleID,
                             headers: Self.headers(of: push), body: push.body)
    }

    // MARK: Channel management (iOS 18 broadcast), spec §2.4

    /// Creates a channel (`POST /1/apps/<bundle>/channels`). Success is `201` with the new id in
    /// ``APNsResponse/channelID`` (base64). The policy cannot be changed later.
    public func createChannel(bundleID: String, storagePolicy: MessageStoragePolicy) async -> APNsResult {
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#
        return await execute(method: "POST", url: channelsURL(bundleID), headers: [], body: Array(body.utf8))
    }

    /// Reads a channel (`GET …/channels` with `apns-channel-id`): `200`, body `{"message-storage-policy":…,"push-type":…}`.
    public func readChannel(bundleID: String, channelID: String) async -> APNsResult {
        await execute(method: "GET", url: channelsURL(bundleID), headers: [HTTP2Header("apns-channel-id", channelID)], body: [])
    }

    /// Deletes a channel (`DELETE …/channels`): `204`. Irreversible.
    public func deleteChannel(bundleID: String, channelID: String) async -> APNsResult {
        await execute(method: "DELETE", url: channelsURL(bundleID), headers: [HTTP2Header("apns-channel-id", channelID)], body: [])
    }

    /// Lists channel ids (`GET /1/apps/<bundle>/all-channels`): `200`, body `{"channels":[…]}`; see ``channelIDs(in:)``.
    public func listChannels(bundleID: String) async -> APNsResult {
        await execute(method: "GET", url: environment.managementURL + "/1/apps/" + bundleID + "/all-channels", headers: [], body: [])
    }

    /// The channel ids in a list response body (empty when the body has none).
    public static func channelIDs(in response: APNsResponse) -> [String] {
        guard let obj = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return [] }
        return obj["channels"] as? [String] ?? []
    }

    /// Lets in-flight requests finish, then closes the connections.
    public func shutdown() async { await transport.shutdown() }

    // MARK: Internals

    /// The push's headers, with an `apns-id` when it has none.
    static func headers(of push: PushRequest) -> [HTTP2Header] {
        var headers = push.headers.map { HTTP2Header($0.name, $0.value) }
        if push.headers["apns-id"] == nil { headers.append(HTTP2Header("apns-id", UUID().uuidString.lowercased())) }
        return headers
    }

    private func channelsURL(_ bundleID: String) -> String { environment.managementURL + "/1/apps/" + bundleID + "/channels" }

    static func checkedToken(_ t: String) throws(APNsRequestError) -> String {
        let ok = !t.isEmpty && t.utf8.count % 2 == 0 && t.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
        }
        guard ok else {
            throw APNsRequestError("device token '\(Redact.token(t))' is not hex (expected an even number of 0-9a-f characters, as the app's token data printed in hex)")
        }
        return t.lowercased()
    }

    private func execute(method: String, url: String, headers: [HTTP2Header], body: [UInt8]) async -> APNsResult {
        let jwt: String
        do { jwt = try token.current() } catch {
            return .failure(APNsTransportError(kind: .notSent, message: "cannot sign the provider token: \(error)", attempts: 0))
        }
        let first = await once(method: method, url: url, headers: headers, body: body, jwt: jwt)
        guard case .response(let r) = first, r.status == 403, r.reason == .expiredProviderToken else { return first }
        // Re-sign once (one re-sign per rejected token, shared by concurrent requests) and resend once.
        guard let fresh = try? token.invalidate(jwt) else { return first }
        return await once(method: method, url: url, headers: headers, body: body, jwt: fresh)
    }

    private func once(method: String, url: String, headers: [HTTP2Header], body: [UInt8], jwt: String) async -> APNsResult {
        var all = [HTTP2Header("authorization", "bearer " + jwt)]
        all += headers
        switch await transport.send(HTTP2Request(method: method, url: url, headers: all, body: body)) {
        case .success(let r): return .response(APNsResponse(status: r.status, headers: r.headers, body: r.body))
        case .failure(let e): return .failure(e)
        }
    }
}

/// Shortens secrets for logs and output: tokens show their first and last 4 characters.
public enum Redact {
    public static func token(_ t: String) -> String {
        t.count <= 12 ? String(repeating: "*", count: t.count) : "\(t.prefix(4))…\(t.suffix(4))"
    }
}
