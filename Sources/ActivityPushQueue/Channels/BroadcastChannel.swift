import ActivityPushCore

/// One broadcast channel as the registry keeps it (table `ap_channels`, in the queue's store).
///
/// A channel belongs to one app (`bundleID`) in one environment: Apple's channels are per environment and
/// cannot be shared between them (Apple, "Sending channel management requests to APNs", spec §2.4).
public struct BroadcastChannel: Sendable, Hashable {
    /// Apple's channel id (base64), as returned in the `apns-channel-id` header of the create answer.
    public var channelID: String
    /// `sandbox` or `production` (the queue's environment label).
    public var environment: APNsEnvironment
    /// The app's bundle id (the path of `/1/apps/<bundle id>/channels` and `/4/broadcasts/apps/<bundle id>`).
    public var bundleID: String
    /// `message-storage-policy`, fixed at creation: 0 No Message Stored, 1 Most Recent Message Stored.
    public var storagePolicy: MessageStoragePolicy
    /// When the channel was created, **UNIX seconds**.
    public var createdUnixSeconds: Double
    /// The activity the channel serves (the `activityID` of `/v1/activities`), nil when none.
    public var activityID: String?
    /// When the channel was deleted at Apple, **UNIX seconds**; nil while it exists.
    public var deletedUnixSeconds: Double?

    /// Makes a record; each parameter sets the property of the same name (times in UNIX seconds).
    public init(channelID: String, environment: APNsEnvironment, bundleID: String, storagePolicy: MessageStoragePolicy,
                createdUnixSeconds: Double, activityID: String? = nil, deletedUnixSeconds: Double? = nil) {
        self.channelID = channelID
        self.environment = environment
        self.bundleID = bundleID
        self.storagePolicy = storagePolicy
        self.createdUnixSeconds = createdUnixSeconds
        self.activityID = activityID
        self.deletedUnixSeconds = deletedUnixSeconds
    }

    /// True until the channel is deleted.
    public var isLive: Bool { deletedUnixSeconds == nil }

    /// Refuses, before anything is sent to Apple, a channel id that is not base64: Apple's ids are the base64
    /// `apns-channel-id` of the create answer (spec §2.4), so anything else can only be a typo or another value.
    /// - Throws: ``ChannelError`` (``ChannelError/Kind/badRequest``) naming the id and the fix.
    public static func checkID(_ channelID: String) throws(ChannelError) {
        guard ChannelIDSpelling.isBase64(channelID), channelID.utf8.count <= 256 else {
            throw ChannelError(.badRequest, "channel id '\(channelID)' is not base64 (Apple's channel ids are the base64 apns-channel-id "
                               + "of the create answer); nothing was sent to Apple",
                               fix: "copy the id exactly as `activity-push channels list` (or GET /v1/channels) prints it")
        }
    }

    /// `{"channelID", "environment", "bundleID", "storagePolicy", "storagePolicyName", "createdAt", "activityID",
    /// "deletedAt"}` (times in UNIX seconds, `null` when absent), as the CLI's `--format json` and `/v1/channels`
    /// print it.
    public var json: JSONValue {
        .obj([("channelID", .string(channelID)), ("environment", .string(environment.name)), ("bundleID", .string(bundleID)),
              ("storagePolicy", .int(storagePolicy.rawValue)), ("storagePolicyName", .string(storagePolicy.name)),
              ("createdAt", .int(Int(createdUnixSeconds))), ("activityID", activityID.map { .string($0) } ?? .null),
              ("deletedAt", deletedUnixSeconds.map { .int(Int($0)) } ?? .null)])
    }
}
