import ActivityPushCore
import Foundation

/// One request the mock answered, as written to the NDJSON journal and served by `GET /_mock/journal`.
///
/// JSON line keys: `time` (ISO 8601 UTC, milliseconds), `unix-time` (UNIX seconds), `method`, `path` (token
/// redacted), `token` (first 8 hex digits), `bundle`, `channel-id`, `headers` (object, `authorization` removed),
/// `status`, `reason`, `apns-id`, `fault`, `device` {`outcome`, `log`, `causes`, `warnings`, `activity-token`},
/// `event` (`aps.event` as sent), `body` (the exact body text, as a JSON string), `source` (`mock-apns`).
/// Absent values are omitted. The keys it shares with Core's `SendJournalEntry` (`time`, `token`, `bundle`,
/// `apns-id`, `status`, `reason`, `event`, `headers`, `body`) mean the same, so `activity-push logs --journal`
/// reads a mock journal directly.
public struct MockJournalEntry: Sendable, Hashable {
    /// When the request completed, UNIX seconds.
    public var time: Double
    public var method: String
    /// `:path` with any device token cut to its first 8 hex digits and `…`.
    public var path: String
    /// First 8 hex digits of the device token (device endpoint only).
    public var token: String?
    /// Bundle ID: the `apns-topic` without `.push-type.liveactivity`, or the one in a broadcast/channel path.
    public var bundleID: String?
    public var channelID: String?
    /// Request headers except `authorization`, lowercase names, arrival order.
    public var headers: APNsHeaders
    public var status: Int
    /// The APNs `reason`, nil on success.
    public var reason: String?
    /// `apns-id` (device endpoint) or `apns-request-id` (broadcast/channels) of the answer.
    public var apnsID: String?
    /// The injected fault, if one decided the answer (`429`, `500`, `503`, `goaway`, `drop`, `delay=…ms`).
    public var fault: String?
    /// The emulated device's verdict, for 200 answers on device and broadcast endpoints.
    public var device: MockDeviceReport?
    /// The request body as received (at most 16 KiB kept).
    public var body: [UInt8]

    /// `aps.event` of the body, when it has one.
    public var event: String? {
        guard !body.isEmpty, body.count <= 16 * 1024 else { return nil }
        return JSONReader.read(body).root?["aps"]?["event"]?.value.stringValue
    }

    /// The NDJSON line (no trailing newline).
    public var jsonLine: String {
        var m: [(String, String?)] = [
            ("time", JSONText.string(Self.iso8601(time))),
            ("unix-time", String(format: "%.3f", time)),
            ("method", JSONText.string(method)),
            ("path", JSONText.string(path)),
            ("token", token.map(JSONText.string)),
            ("bundle", bundleID.map(JSONText.string)),
            ("channel-id", channelID.map(JSONText.string)),
            ("headers", JSONText.object(headers.fields.map { ($0.name, JSONText.string($0.value)) })),
            ("status", String(status)),
            ("reason", reason.map(JSONText.string)),
            (APNsHeaderName.id.rawValue, apnsID.map(JSONText.string)),
            ("fault", fault.map(JSONText.string)),
            ("device", device.map(Self.deviceJSON)),
        ]
        if !body.isEmpty {
            m.append(("event", event.map(JSONText.string)))
            m.append(("body", JSONText.string(String(decoding: body, as: UTF8.self))))
        }
        m.append(("source", JSONText.string("mock-apns")))
        return JSONText.object(m)
    }

    private static func deviceJSON(_ d: MockDeviceReport) -> String {
        func causes(_ cs: [MockDeviceCause]) -> String {
            JSONText.array(cs.map { c in
                JSONText.object([("code", JSONText.string(c.code)), ("path", c.path.map(JSONText.string)),
                                 ("severity", JSONText.string(c.severity.rawValue)), ("message", JSONText.string(c.message))])
            })
        }
        return JSONText.object([
            ("outcome", JSONText.string(d.outcome.rawValue)),
            ("log", d.logLine.map(JSONText.string)),
            ("causes", causes(d.causes)),
            ("warnings", d.warnings.isEmpty ? nil : causes(d.warnings)),
            ("activity-token", d.activityToken.map(JSONText.string)),
        ])
    }

    static func iso8601(_ t: Double) -> String {
        let ms = Int64((t * 1000).rounded())
        var secs = time_t(ms / 1000)
        var tmv = tm()
        gmtime_r(&secs, &tmv)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(tmv.tm_year) + 1900, Int(tmv.tm_mon) + 1, Int(tmv.tm_mday),
                      Int(tmv.tm_hour), Int(tmv.tm_min), Int(tmv.tm_sec), Int(ms % 1000))
    }

}
