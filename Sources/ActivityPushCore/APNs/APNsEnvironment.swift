/// Where APNs requests go: the device-token host, the broadcast host and the channel-management host.
///
/// Source: Apple, "Sending notification requests to APNs", "Sending broadcast push notification requests to
/// APNs", "Sending channel management requests to APNs" (spec §2.1).
///
/// **The broadcast send host** (the one place it is decided): `api-broadcast.push.apple.com:443` and
/// `api-broadcast.sandbox.push.apple.com:443`. Apple's broadcast page names the plain device hosts
/// (`api.push.apple.com`) in one sentence of prose, but its own example request on the same page sends
/// `host = api-broadcast.sandbox.push.apple.com`, and Apple's "Troubleshooting push notifications" page checks
/// the broadcast connection with `openssl s_client -connect api-broadcast.push.apple.com:443`. Two Apple texts
/// that show a request outweigh one sentence; public backends that publish broadcasts hard-code
/// `api-broadcast.*` too (of the peers usually cited, APNSwift only manages channels and pushy and
/// sideshow/apns2 do not broadcast at all, so none of them settles it). Not checked against Apple from here:
/// ``broadcastURL`` stays settable (`--broadcast-url`) should Apple answer on the other host.
public struct APNsEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// Short name (`production`, `sandbox`, or the URL for a custom endpoint).
    public var name: String
    /// Base URL for `POST /3/device/<token>` (scheme, host, port; no path).
    public var deviceURL: String
    /// Base URL for `POST /4/broadcasts/apps/<bundle id>`.
    public var broadcastURL: String
    /// Base URL for `/1/apps/<bundle id>/channels` and `/all-channels`.
    public var managementURL: String

    /// An environment from its base URLs (trailing `/` removed).
    public init(name: String, deviceURL: String, broadcastURL: String, managementURL: String) {
        self.name = name
        self.deviceURL = Self.trimmed(deviceURL)
        self.broadcastURL = Self.trimmed(broadcastURL)
        self.managementURL = Self.trimmed(managementURL)
    }

    /// `api.push.apple.com:443`; broadcasts on `api-broadcast.push.apple.com:443` (see the type's note); channel
    /// management on `api-manage-broadcast.push.apple.com:2196`.
    public static let production = APNsEnvironment(
        name: "production", deviceURL: "https://api.push.apple.com:443",
        broadcastURL: "https://api-broadcast.push.apple.com:443",
        managementURL: "https://api-manage-broadcast.push.apple.com:2196")

    /// `api.sandbox.push.apple.com:443`; broadcasts on `api-broadcast.sandbox.push.apple.com:443` (see the type's
    /// note); channel management on `api-manage-broadcast.sandbox.push.apple.com:2195`.
    public static let sandbox = APNsEnvironment(
        name: "sandbox", deviceURL: "https://api.sandbox.push.apple.com:443",
        broadcastURL: "https://api-broadcast.sandbox.push.apple.com:443",
        managementURL: "https://api-manage-broadcast.sandbox.push.apple.com:2195")

    /// Every endpoint at one URL (e.g. `mock-apns`): `https://host:port` over TLS, or `http://host:port` for
    /// cleartext HTTP/2 with prior knowledge (`mock-apns --h2c`).
    public static func custom(_ url: String) -> APNsEnvironment {
        APNsEnvironment(name: url, deviceURL: url, broadcastURL: url, managementURL: url)
    }

    /// The same environment with the device host on port 2197 (Apple's alternative to 443, for networks that
    /// block 443 outbound; "Sending notification requests to APNs"). The broadcast host stays on 443: Apple
    /// documents only 443 for broadcasts ("Troubleshooting push notifications").
    public func onPort2197() -> APNsEnvironment {
        func swap(_ u: String) -> String { u.hasSuffix(":443") ? String(u.dropLast(4)) + ":2197" : u }
        return APNsEnvironment(name: name, deviceURL: swap(deviceURL), broadcastURL: broadcastURL,
                               managementURL: managementURL)
    }

    /// ``name``.
    public var description: String { name }

    /// The names `--env` and the queue accept: `sandbox` and `production`.
    public static let names = ["sandbox", "production"]

    /// ``sandbox`` or ``production`` by name (as `--env` and queue rows spell them), nil for another name.
    public static func named(_ name: String) -> APNsEnvironment? {
        switch name {
        case "sandbox": return .sandbox
        case "production": return .production
        default: return nil
        }
    }

    /// The environment a stored name stands for (a queue row's `environment` column, which holds ``name``):
    /// ``sandbox`` or ``production`` by name; any other name — a label a worker was started with beside `--url`
    /// — as a ``custom(_:)`` environment of that name, so the label reads back as written.
    public static func stored(_ name: String) -> APNsEnvironment { named(name) ?? .custom(name) }

    private static func trimmed(_ u: String) -> String {
        var s = u
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
