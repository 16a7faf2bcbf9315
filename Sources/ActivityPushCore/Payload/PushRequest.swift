/// Where a built push goes.
public enum PushDestination: Sendable, Hashable {
    /// `POST /3/device/<token>`: a push-to-start token (start) or an activity's update token (update / end).
    /// The token itself is given when sending, so one built push can go to many tokens.
    case device
    /// `POST /4/broadcasts/apps/<bundle id>` to the channel in `apns-channel-id` (iOS 18+; update / end only).
    case broadcast(channelID: String)
}

/// A Live Activity push ready to send: APNs headers and the exact body bytes.
///
/// Only ``LiveActivityPush/build(schema:)`` makes one (or ``PushRequest/init(bundleID:storedHeaders:body:schema:)``,
/// which re-checks stored bytes with the validator), so every sending path — CLI, queue, console, client —
/// sends a body the validator has accepted.
public struct PushRequest: Sendable, Hashable {
    /// `aps.event` of the body.
    public let event: LiveActivityEvent
    /// The app's bundle id.
    public let bundleID: String
    /// A device token path or a broadcast channel.
    public let destination: PushDestination
    /// Lowercase header names: `apns-push-type`, `apns-topic` (device) or `apns-channel-id` (broadcast),
    /// `apns-priority`, and when set `apns-expiration`, `apns-id`, `apns-collapse-id`.
    public let headers: APNsHeaders
    /// The compact JSON body (UTF-8), at most ``APNsLimits/deviceBodyBytes`` (``APNsLimits/broadcastBodyBytes`` broadcast).
    public let body: [UInt8]
    /// Warnings the validator raised on the built push (never errors).
    public let warnings: [Finding]

    init(event: LiveActivityEvent, bundleID: String, destination: PushDestination, headers: APNsHeaders,
         body: [UInt8], warnings: [Finding]) {
        self.event = event
        self.bundleID = bundleID
        self.destination = destination
        self.headers = headers
        self.body = body
        self.warnings = warnings
    }

    /// The body as text.
    public var bodyString: String { String(decoding: body, as: UTF8.self) }

    /// `apns-id` when one was fixed at build time (lowercase UUID).
    public var apnsID: String? { headers.apnsID }

    /// This push with `apns-id` set (e.g. fixed once at enqueue so retries carry the same id).
    public func with(apnsID: String) -> PushRequest {
        var changed = headers
        changed.apnsID = apnsID.lowercased()
        return PushRequest(event: event, bundleID: bundleID, destination: destination, headers: changed, body: body,
                           warnings: warnings)
    }

    /// Restores a push stored earlier (queue, journal) and re-checks it: the validator must accept the stored
    /// headers and body, so a stored row can never smuggle in a hand-assembled body.
    /// - Throws: ``PushBuildError`` with the findings when the stored push is not valid.
    public init(bundleID: String, storedHeaders: APNsHeaders, body: [UInt8], schema: ActivitySchema? = nil) throws(PushBuildError) {
        let report = Validator(schema: schema).check(body: body, headers: storedHeaders)
        guard report.accept else { throw PushBuildError(findings: report.findings) }
        let doc = JSONReader.read(body)
        let event = doc.root?["aps"]?["event"]?.value.stringValue.map(LiveActivityEvent.init(rawValue:)) ?? .update
        let destination: PushDestination = storedHeaders.channelID.map { .broadcast(channelID: $0) } ?? .device
        self.init(event: event, bundleID: bundleID, destination: destination, headers: storedHeaders, body: body,
                  warnings: report.findings)
    }
}
