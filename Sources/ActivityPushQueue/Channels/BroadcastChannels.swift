import ActivityPushAPNs
import ActivityPushCore
import Foundation

/// Broadcast channels as a product feature: Apple's channel-management API (``APNsClient/createChannel(bundleID:storagePolicy:)``,
/// ``APNsClient/deleteChannel(bundleID:channelID:)``, ``APNsClient/listChannels(bundleID:)``) kept in step with
/// the ``ChannelRegistry``. The one implementation behind `activity-push channels` and `/v1/channels`.
///
/// Source: Apple, "Sending channel management requests to APNs" (spec §2.4): channels are per app and per
/// environment, their storage policy is fixed at creation, at most 10 000 per app per environment.
public final class BroadcastChannels: Sendable {
    /// What this service knows about its channels.
    public let registry: ChannelRegistry
    /// The APNs client for channel management; nil lets ``list(bundleID:askApple:includeDeleted:nowUnixSeconds:)``
    /// read the registry only (create and delete then fail with ``ChannelError/Kind/notConfigured``).
    public let client: APNsClient?
    /// The environment label the registry files channels under (`sandbox`, `production`); must be the
    /// environment `client` talks to.
    public let environment: APNsEnvironment

    /// A service on a registry and (optionally) a client for one environment.
    public init(registry: ChannelRegistry, client: APNsClient?, environment: APNsEnvironment) {
        self.registry = registry
        self.client = client
        self.environment = environment
    }

    /// Creates a channel at Apple and registers it: the 10 000-channel limit is checked in the registry first
    /// (nothing is sent to Apple over it), then `POST /1/apps/<bundle id>/channels`, then the id Apple answered
    /// (header `apns-channel-id`) is stored with `activityID`, if any.
    /// - Parameter storagePolicy: 0 No Message Stored (higher publishing budget; every broadcast needs
    ///   `apns-expiration: 0`), 1 Most Recent Message Stored (Apple keeps the last broadcast up to 8 hours for
    ///   devices that join late).
    /// - Throws: ``ChannelError``: `channel-limit`, `bad-request` (policy not 0/1), `not-configured` (no client), `apns-rejected`
    ///   (with Apple's reason), `apns-unreachable`, `store`.
    public func create(bundleID: String, storagePolicy: MessageStoragePolicy, activityID: String? = nil,
                       nowUnixSeconds: Double = Date().timeIntervalSince1970) async throws(ChannelError) -> BroadcastChannel {
        guard storagePolicy == .noMessageStored || storagePolicy == .mostRecentMessageStored else {
            throw ChannelError(.badRequest, "storage policy \(storagePolicy.rawValue) is not one of Apple's",
                               fix: "use 0 (No Message Stored, higher publishing budget) or 1 (Most Recent Message Stored)")
        }
        let client = try requireClient("create")
        let reservation = try registry.reserve(bundleID: bundleID, environment: environment, storagePolicy: storagePolicy,
                                               activityID: activityID, nowUnixSeconds: nowUnixSeconds)
        let result = await client.createChannel(bundleID: bundleID, storagePolicy: storagePolicy)
        guard case .response(let response) = result, response.isSuccess, let channelID = response.channelID, !channelID.isEmpty else {
            registry.release(reservation)
            throw Self.failure(result, doing: "create a channel for \(bundleID) in \(environment)")
        }
        return try registry.confirm(reservation, channelID: channelID)
    }

    /// Deletes a channel at Apple (`DELETE /1/apps/<bundle id>/channels`, irreversible) and marks it deleted in the
    /// registry. A channel Apple no longer knows (`ChannelNotRegistered`) is marked deleted too.
    /// - Parameter bundleID: needed only for a channel the registry does not know.
    /// A channel the registry already has as deleted is not sent to Apple again: its record comes back as it is
    /// (`deletedUnixSeconds` earlier than `nowUnixSeconds`).
    /// - Returns: the registry's record after the deletion, nil when the registry never had the channel.
    /// - Throws: ``ChannelError``: `bad-request` (the id is not base64; nothing sent), `not-found` (unknown here and at
    ///   Apple), `not-configured` (no client), `apns-rejected`, `apns-unreachable`, `store`.
    @discardableResult
    public func delete(channelID: String, bundleID: String? = nil,
                       nowUnixSeconds: Double = Date().timeIntervalSince1970) async throws(ChannelError) -> BroadcastChannel? {
        try BroadcastChannel.checkID(channelID)
        let client = try requireClient("delete")
        let known = try registry.channel(id: channelID, environment: environment)
        guard let bundle = known?.bundleID ?? bundleID else {
            throw ChannelError(.notFound, "channel \(channelID) is not in the registry for \(environment)",
                               fix: "give the app's bundle id (--bundle-id / \"bundleID\") to delete a channel created elsewhere")
        }
        if let known, !known.isLive { return known }
        let result = await client.deleteChannel(bundleID: bundle, channelID: channelID)
        let goneAtApple: Bool
        switch result {
        case .response(let response) where response.isSuccess: goneAtApple = true
        case .response(let response) where response.reason == .channelNotRegistered: goneAtApple = known != nil
        default: goneAtApple = false
        }
        guard goneAtApple else { throw Self.failure(result, doing: "delete channel \(channelID) of \(bundle)") }
        try registry.markDeleted(channelID: channelID, environment: environment, nowUnixSeconds: nowUnixSeconds)
        return try registry.channel(id: channelID, environment: environment)
    }

    /// The app's channels: the registry's, and with `askApple` Apple's `GET /1/apps/<bundle id>/all-channels`
    /// beside them (``ChannelListing/Entry/presence``).
    /// - Throws: ``ChannelError`` (`not-configured` without a client when `askApple`, `apns-rejected`,
    ///   `apns-unreachable`, `store`).
    public func list(bundleID: String, askApple: Bool, includeDeleted: Bool = false,
                     nowUnixSeconds: Double = Date().timeIntervalSince1970) async throws(ChannelError) -> ChannelListing {
        let registered = try registry.channels(bundleID: bundleID, environment: environment, includeDeleted: includeDeleted)
        guard askApple else {
            return ChannelListing(bundleID: bundleID, environment: environment, askedApple: false,
                                  entries: registered.map { .init(channelID: $0.channelID, registered: $0, atApple: nil) })
        }
        let client = try requireClient("list Apple's channels of")
        let result = await client.listChannels(bundleID: bundleID)
        guard case .response(let response) = result, response.isSuccess else {
            throw Self.failure(result, doing: "list the channels of \(bundleID) at Apple")
        }
        let atApple = APNsClient.channelIDs(in: response)
        return ChannelListing.reconcile(bundleID: bundleID, environment: environment, registered: registered, atApple: atApple)
    }

    /// Deletes, at Apple and in the registry, the channels asked to go with their activity's end
    /// (`"deleteChannelOnEnd"`) whose end broadcast is sent. Returns the ids deleted; a channel that could not be
    /// deleted now stays due and is tried on the next call. The console calls this after each end until the end
    /// is sent; `activity-push channels sweep` does it by hand.
    @discardableResult
    public func deleteChannelsOfEndedActivities(nowUnixSeconds: Double = Date().timeIntervalSince1970) async -> [String] {
        guard client != nil, let due = try? registry.dueForDeletion(environment: environment) else { return [] }
        var deleted: [String] = []
        for channel in due {
            if (try? await delete(channelID: channel.channelID, bundleID: channel.bundleID, nowUnixSeconds: nowUnixSeconds)) != nil {
                deleted.append(channel.channelID)
            }
        }
        return deleted
    }

    // MARK: Internals

    private func requireClient(_ what: String) throws(ChannelError) -> APNsClient {
        guard let client else {
            throw ChannelError(.notConfigured, "cannot \(what) a channel without APNs credentials",
                               fix: "give --auth-key AuthKey_KEYID.p8 --team-id TEAMID (and --url for mock-apns)")
        }
        return client
    }

    /// The error for an answer that is not what was asked for.
    static func failure(_ result: APNsResult, doing what: String) -> ChannelError {
        switch result {
        case .failure(let failure):
            return ChannelError(.unreachable, "could not \(what): \(failure.description)",
                                fix: failure.mayHaveBeenProcessed ? "APNs may have done it; run `channels list --apple` to see" : "try again")
        case .response(let response):
            let reason = response.reason?.rawValue ?? "no reason"
            var fix: String?
            switch response.reason {
            case .cannotCreateChannelConfig?: fix = "the app has \(APNsLimits.channelsPerAppPerEnvironment) channels at Apple (some not in this registry): delete unused ones"
            case .featureNotEnabled?: fix = "enable the Broadcast Capability for the App ID on developer.apple.com"
            case .channelNotRegistered?: fix = "Apple does not know this channel id in this environment"
            default: break
            }
            if response.isSuccess { return ChannelError(.rejected, "could not \(what): APNs answered \(response.status) without apns-channel-id", status: response.status) }
            return ChannelError(response.reason == .channelNotRegistered ? .notFound : .rejected,
                                "could not \(what): APNs answered \(response.status) \(reason)", fix: fix, status: response.status)
        }
    }
}

/// The channels of one app in one environment, as the registry and (when asked) Apple know them.
public struct ChannelListing: Sendable, Hashable {
    /// One channel id and where it is known.
    public struct Entry: Sendable, Hashable {
        /// Apple's channel id (base64).
        public var channelID: String
        /// The registry's record; nil when only Apple lists it (created by another tool).
        public var registered: BroadcastChannel?
        /// True when Apple's `all-channels` lists it, false when not, nil when Apple was not asked.
        public var atApple: Bool?

        /// `registered` (in the registry; Apple not asked), `both` (registry and Apple), `registry-only` (Apple
        /// no longer lists it: deleted elsewhere, or the Broadcast Capability was turned off), `apple-only` (Apple
        /// has it, this registry does not), `deleted` (deleted through this registry).
        public var presence: String {
            if let registered, !registered.isLive { return "deleted" }
            switch (registered != nil, atApple) {
            case (true, nil): return "registered"
            case (true, true?): return "both"
            case (true, false?): return "registry-only"
            default: return "apple-only"
            }
        }
    }

    /// The app.
    public var bundleID: String
    /// The environment label.
    public var environment: APNsEnvironment
    /// True when Apple's list was read.
    public var askedApple: Bool
    /// Registry channels oldest first, then Apple-only ids in Apple's order.
    public var entries: [Entry]

    /// Puts the registry's channels and Apple's ids side by side.
    static func reconcile(bundleID: String, environment: APNsEnvironment, registered: [BroadcastChannel], atApple: [String]) -> ChannelListing {
        let apple = Set(atApple)
        let known = Set(registered.map(\.channelID))
        var entries = registered.map { Entry(channelID: $0.channelID, registered: $0, atApple: apple.contains($0.channelID)) }
        entries += atApple.filter { !known.contains($0) }.map { Entry(channelID: $0, registered: nil, atApple: true) }
        return ChannelListing(bundleID: bundleID, environment: environment, askedApple: true, entries: entries)
    }

    /// `{"bundleID", "environment", "askedApple", "channels": [{"channelID", "presence", "atApple", "registry": {…}|null}]}`.
    public var json: JSONValue {
        .obj([("bundleID", .string(bundleID)), ("environment", .string(environment.name)), ("askedApple", .bool(askedApple)),
              ("channels", .arr(entries.map { entry in
                  .obj([("channelID", .string(entry.channelID)), ("presence", .string(entry.presence)),
                        ("atApple", entry.atApple.map { .bool($0) } ?? .null),
                        ("registry", entry.registered?.json ?? .null)])
              }))])
    }
}
