/// Where APNs requests go: the device-token host, the broadcast host and the channel-management host.
///
/// Source: Apple, "Sending notification requests to APNs", "Sending broadcast push notification requests to
/// APNs", "Sending channel management requests to APNs" (spec §2.1). Apple's broadcast page names the plain
/// hosts in prose but `api-broadcast.*` in every example; the default follows the prose and
/// ``broadcastURL`` can be set to the other.
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

    /// `api.push.apple.com:443`; channel management on `api-manage-broadcast.push.apple.com:2196`.
    public static let production = APNsEnvironment(
        name: "production", deviceURL: "https://api.push.apple.com:443",
        broadcastURL: "https://api.push.apple.com:443",
        managementURL: "https://api-manage-broadcast.push.apple.com:2196")

    /// `api.sandbox.push.apple.com:443`; channel management on `api-manage-broadcast.sandbox.push.apple.com:2195`.
    public static let sandbox = APNsEnvironment(
        name: "sandbox", deviceURL: "https://api.sandbox.push.apple.com:443",
        broadcastURL: "https://api.sandbox.push.apple.com:443",
        managementURL: "https://api-manage-broadcast.sandbox.push.apple.com:2195")

    /// Every endpoint at one URL (e.g. `mock-apns`): `https://host:port` over TLS, or `http://host:port` for
    /// cleartext HTTP/2 with prior knowledge (`mock-apns --h2c`).
    public static func custom(_ url: String) -> APNsEnvironment {
        APNsEnvironment(name: url, deviceURL: url, broadcastURL: url, managementURL: url)
    }

    /// The same environment with the device and broadcast hosts on port 2197 (Apple's alternative to 443,
    /// for networks that block 443 outbound).
    public func onPort2197() -> APNsEnvironment {
        func swap(_ u: String) -> String { u.hasSuffix(":443") ? String(u.dropLast(4)) + ":2197" : u }
        return APNsEnvironment(name: name, deviceURL: swap(deviceURL), broadcastURL: swap(broadcastURL),
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

    private static func trimmed(_ u: String) -> String {
        var s = u
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
