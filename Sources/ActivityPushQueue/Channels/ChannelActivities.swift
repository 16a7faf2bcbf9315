import ActivityPushCore
import Foundation

/// Activities on a broadcast channel (`"channel": true`): the lifecycle decides and queues as for device
/// activities (``LiveActivityService``); this adds what needs Apple's channel-management API, which is async.
///
/// - **start**: the channel is taken from `"channelID"` (it must be live in the registry and serve no other activity
///   that has not ended: 409 `channel-in-use`) or created at Apple for
///   the activity (storage policy 0, No Message Stored: the higher publishing budget); the registry links it to
///   the activity. Each device named gets a push-to-start with `input-push-channel: <id>` (the device subscribes
///   the new activity to the channel); with no devices, the app subscribes itself (`pushType: .channel(id)`).
///   A repeated start reuses the activity's channel and sends nothing; it is compared as the client sent it (not
///   with the created channel's id). Concurrent repeats create the channel once (``claimChannelCreation(activityID:owner:)``):
///   the others wait for the activity and answer it. A start that fails after a channel was created for it deletes
///   that channel again, so nothing is half-written.
/// - **update / end**: one broadcast each through the queue (the lifecycle's channel audience), held by
///   ``BroadcastBudget`` to one per second per channel.
/// - **deleteChannelOnEnd**: the channel is deleted at Apple once the end broadcast is sent
///   (``BroadcastChannels/deleteChannelsOfEndedActivities(nowUnixSeconds:)``).
extension LiveActivityService {
    /// Starts an activity; with `"channel": true` first takes or creates its channel (see the extension's notes).
    /// - Parameter channels: the channel service for this environment; nil refuses `"channel": true` with 503.
    /// - Throws: ``ActivityError``: as ``start(_:)``; 404 `channelID` not a live registered channel; 503 no channel
    ///   service; 502 Apple refused or could not be reached when creating the channel; 409 the 10 000-channel limit, or
    ///   `channel-in-use`: `channelID` serves another activity that has not ended.
    public func start(_ request: ActivityStartRequest, channels: BroadcastChannels?) async throws(ActivityError) -> (view: ActivityView, created: Bool) {
        guard request.channel else { return try start(request) }
        guard let channels else {
            throw ActivityError(status: 503, code: "not-configured", field: "channel",
                                message: "channel activities need the channel service (a queue store and APNs credentials)",
                                fix: "start serve with --database and --auth-key (and --url for mock-apns)")
        }
        try ActivityStartRequest.checkActivityID(request.activityID)
        let sentChannelID = request.channelID
        let owner = UUID().uuidString
        // Bounded wait for a concurrent start of the same activityID that is creating the channel.
        let deadline = Date().addingTimeInterval(Self.channelClaimSeconds)
        while true {
            switch try claimChannelCreation(activityID: request.activityID, owner: owner) {
            case .exists:
                return try startStored(request, sentChannelID: sentChannelID)
            case .busy:
                let inProgress = ActivityError(status: 409, code: "conflict", field: "activityID",
                                               message: "activity \(request.activityID) is being started by another request",
                                               fix: "repeat the start in a few seconds: it answers the activity once it is stored")
                guard Date() < deadline else { throw inProgress }
                do { try await Task.sleep(nanoseconds: 20_000_000) } catch { throw inProgress }   // cancelled
            case .claimed:
                defer { releaseChannelClaim(activityID: request.activityID, owner: owner) }
                return try await startClaimed(request, sentChannelID: sentChannelID, channels: channels)
            }
        }
    }

    /// A start of a stored activity: a repeat gets the activity's own channel, so it compares equal and sends nothing.
    private func startStored(_ request: ActivityStartRequest, sentChannelID: String?) throws(ActivityError) -> (view: ActivityView, created: Bool) {
        var request = request
        if let existing = try? show(activityID: request.activityID), let channelID = existing.channelID, request.channelID == nil {
            request.channelID = channelID
        } else if request.channelID == nil {
            throw ActivityError(status: 409, code: "conflict", field: "activityID",
                                message: "activity \(request.activityID) exists with a different start request (it has no channel)",
                                fix: "repeat the exact start (it is idempotent) or use a new activityID")
        }
        return try start(request, sentChannelID: sentChannelID)
    }

    /// The start holding the activityID's claim: takes or creates the channel, starts, links it.
    private func startClaimed(_ request: ActivityStartRequest, sentChannelID: String?,
                              channels: BroadcastChannels) async throws(ActivityError) -> (view: ActivityView, created: Bool) {
        var request = request
        var created: BroadcastChannel?
        var takenFrom: String??
        do throws(ChannelError) {
            if let given = request.channelID {
                try BroadcastChannel.checkID(given)
                guard let known = try channels.registry.channel(id: given, environment: channels.environment), known.isLive else {
                    throw ChannelError(.notFound, "channel \(given) is not a live channel in the registry for \(channels.environment)",
                                       fix: "create it with POST /v1/channels (or activity-push channels create), or omit channelID")
                }
                // One live activity per channel: a second one's updates would supersede the first's on every device.
                if let serving = known.activityID, serving != request.activityID,
                   let other = try? show(activityID: serving), other.state != .ended {
                    throw Self.channelInUse(given, serving: serving, asked: request.activityID)
                }
                // Take it only if it still serves what was just checked (two starts at once: the second is refused).
                if known.activityID != request.activityID {
                    guard try channels.registry.link(channelID: given, environment: channels.environment,
                                                     activityID: request.activityID, ifServing: known.activityID) else {
                        let now = try channels.registry.channel(id: given, environment: channels.environment)
                        throw Self.channelInUse(given, serving: now?.activityID ?? "another activity", asked: request.activityID)
                    }
                    takenFrom = .some(known.activityID)
                }
            } else {
                created = try await channels.create(bundleID: bundleID, storagePolicy: .noMessageStored, activityID: request.activityID)
                request.channelID = created?.channelID
            }
        } catch {
            throw Self.activityError(error, field: request.channelID == nil ? "channel" : "channelID")
        }
        let channelID = request.channelID!
        do {
            let result = try start(request, sentChannelID: sentChannelID)
            _ = try? channels.registry.link(channelID: channelID, environment: channels.environment, activityID: request.activityID)
            if request.deleteChannelOnEnd { try? channels.registry.deleteOnEnd(channelID: channelID, environment: channels.environment) }
            return result
        } catch {
            if let created { _ = try? await channels.delete(channelID: created.channelID) }
            // Give a taken channel back to what it served before.
            if case .some(let previous) = takenFrom {
                _ = try? channels.registry.link(channelID: channelID, environment: channels.environment, activityID: previous,
                                                ifServing: request.activityID)
            }
            throw error
        }
    }

    /// 409 `channel-in-use`: `channelID` serves `serving`, which has not ended.
    static func channelInUse(_ channelID: String, serving: String, asked: String) -> ChannelError {
        ChannelError(.inUse, "channel \(channelID) serves activity \(serving), which has not ended; "
                     + "a second activity on it would overwrite the first one's updates on every device",
                     fix: "end activity \(serving) first (POST /v1/activities/\(serving)/end or `activity-push activities end --id \(serving)`), "
                         + "or omit channelID to have a channel created for \(asked)")
    }

    /// A ``ChannelError`` as the activity API answers it.
    static func activityError(_ error: ChannelError, field: String) -> ActivityError {
        let status: Int
        switch error.kind {
        case .limitReached, .inUse: status = 409
        case .notFound: status = 404
        case .badRequest: status = 400
        case .notConfigured: status = 503
        case .rejected, .unreachable: status = 502
        default: status = 503
        }
        return ActivityError(status: status, code: error.kind.rawValue, field: field, message: error.description, fix: error.fix)
    }
}
