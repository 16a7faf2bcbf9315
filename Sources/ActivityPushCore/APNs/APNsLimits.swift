/// APNs and ActivityKit size limits, in bytes of UTF-8 JSON (uncompressed). APNs answers 413
/// `PayloadTooLarge` over the body limits.
///
/// Source: Apple, "Sending notification requests to APNs" and "Generating a remote notification" (4096 bytes
/// for device-token pushes); "Sending broadcast push notification requests to APNs" (5120 bytes);
/// "Displaying live data with Live Activities" and `ActivityAttributes.ContentState` (Live Activity data at most
/// 4 KB); spec §3.
public enum APNsLimits {
    /// The body of a device-token push (`POST /3/device/<token>`), Live Activities included: 4096 bytes.
    public static let deviceBodyBytes = 4096
    /// The body of a broadcast publish (`POST /4/broadcasts/apps/<bundle id>`): 5120 bytes.
    public static let broadcastBodyBytes = 5120
    /// ActivityKit's limit on a Live Activity's data (`content-state`, `attributes`): 4096 bytes.
    public static let liveActivityDataBytes = 4096
    /// `apns-collapse-id`: at most 64 bytes (APNs: `BadCollapseId`).
    public static let collapseIDBytes = 64
    /// Broadcast channels one app may have in one environment: 10 000; one more is refused with 400
    /// `CannotCreateChannelConfig`. Source: Apple, "Sending channel management requests to APNs" (spec §2.4).
    public static let channelsPerAppPerEnvironment = 10_000

    /// The body limit for a request: ``broadcastBodyBytes`` for a broadcast, else ``deviceBodyBytes``.
    public static func bodyBytes(broadcast: Bool) -> Int { broadcast ? broadcastBodyBytes : deviceBodyBytes }
}
