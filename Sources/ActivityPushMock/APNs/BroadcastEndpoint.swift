import ActivityPushCore

/// `POST /4/broadcasts/apps/<bundle>`: a broadcast push to a channel (Apple, "Sending broadcast push
/// notification requests to APNs"), delivered to every subscribed activity of the emulator.
enum BroadcastEndpoint {
    static func respond(to request: MockRequest, now: Double, entry: inout MockJournalEntry, memory: MockAPNsMemory) -> MockResponse {
        let bundle = String(request.path.dropFirst("/4/broadcasts/apps/".count))
        entry.bundleID = bundle
        entry.channelID = request.header(.channelID)
        let echoedID = MockEchoedID(for: request)
        let given = echoedID.given, requestID = echoedID.value
        entry.apnsID = requestID
        func fail(_ status: Int, _ reason: APNsReason) -> MockResponse { echoedID.failure(status, reason, entry: &entry) }
        guard request.method == "POST" else { return fail(405, .methodNotAllowed) }
        guard MockRequestRules.isBundleID(bundle) else { return fail(404, .badPath) }
        if let given, !MockRequestRules.isUUID(given) { return fail(400, .badMessageId) }
        let auth = memory.providerTokens.authenticate(request, now: now)
        if let failure = auth.failure { return fail(failure.status, failure.reason) }
        guard let pushType = request.header(.pushType) else { return fail(400, .missingPushType) }
        guard pushType.lowercased() == "liveactivity" else { return fail(400, .invalidPushType) }
        if request.header(.topic) != nil { return fail(400, .topicDisallowed) }
        guard let channelID = request.header(.channelID), !channelID.isEmpty else { return fail(400, .missingChannelId) }
        guard MockRequestRules.isBase64(channelID) else { return fail(400, .badChannelId) }
        guard let channel = memory.channels.channel(channelID, of: bundle) else { return fail(400, .channelNotRegistered) }
        guard let priority = request.header(.priority), ["1", "5", "10"].contains(priority) else { return fail(400, .badPriority) }
        guard let expirationText = request.header(.expiration), !expirationText.isEmpty,
              expirationText.allSatisfy({ $0.isASCII && $0.isNumber }), let expiration = Int64(expirationText) else {
            return fail(400, .badExpirationDate)
        }
        // A nonzero expiration on a "No Message Stored" channel is rejected (Apple, broadcast requests).
        if channel.storagePolicy == 0, expiration != 0 { return fail(400, .badExpirationDate) }
        guard request.bodyLength > 0 else { return fail(400, .payloadEmpty) }
        guard request.bodyLength <= MockRequestRules.broadcastBodyLimit else { return fail(413, .payloadTooLarge) }
        entry.device = memory.emulator.broadcast(body: request.body, headers: MockRequestRules.apnsHeaders(request),
                                                 channelID: channelID, now: now)
        var response = MockResponse(status: 200, headers: [(APNsHeaderName.requestID.rawValue, requestID), (APNsHeaderName.uniqueID.rawValue, MockRequestRules.newUUID())])
        response.authenticated = auth.authenticated
        return response
    }
}
