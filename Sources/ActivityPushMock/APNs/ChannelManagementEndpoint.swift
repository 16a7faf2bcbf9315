import ActivityPushCore

/// `POST|GET|DELETE /1/apps/<bundle>/channels` and `GET /1/apps/<bundle>/all-channels` (Apple, "Sending
/// channel management requests to APNs"), on the channel registry.
enum ChannelManagementEndpoint {
    static func respond(to request: MockRequest, now: Double, entry: inout MockJournalEntry, memory: MockAPNsMemory) -> MockResponse {
        let parts = request.path.dropFirst("/1/apps/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let echoedID = MockEchoedID(for: request)
        let given = echoedID.given, requestID = echoedID.value
        entry.apnsID = requestID
        func fail(_ status: Int, _ reason: APNsReason) -> MockResponse { echoedID.failure(status, reason, entry: &entry) }
        guard parts.count == 2, MockRequestRules.isBundleID(parts[0]), parts[1] == "channels" || parts[1] == "all-channels" else {
            return fail(404, .badPath)
        }
        let bundle = parts[0]
        let listsAll = parts[1] == "all-channels"
        entry.bundleID = bundle
        entry.channelID = request.header(.channelID)
        let allowed = listsAll ? ["GET"] : ["POST", "GET", "DELETE"]
        guard allowed.contains(request.method) else { return fail(405, .methodNotAllowed) }
        if let given, !MockRequestRules.isUUID(given) { return fail(400, .badMessageId) }
        let auth = memory.providerTokens.authenticate(request, now: now)
        if let failure = auth.failure { return fail(failure.status, failure.reason) }
        var response: MockResponse
        if listsAll {
            let ids = memory.channels.channels(of: bundle).map { JSONText.string($0.id) }
            response = .json(200, "{\"channels\":" + JSONText.array(ids) + "}")
        } else if request.method == "POST" {
            guard request.bodyLength > 0 else { return fail(400, .payloadEmpty) }
            let document = JSONReader.read(request.body)
            guard document.problems.isEmpty, let root = document.root, let members = root.value.members else { return fail(400, .badRequestPayload) }
            guard members.allSatisfy({ $0.key == "message-storage-policy" || $0.key == "push-type" }) else { return fail(400, .badRequestParams) }
            guard let pushType = root["push-type"]?.value.stringValue else { return fail(400, .missingPushType) }
            guard pushType == "LiveActivity" else { return fail(400, .invalidPushType) }
            let policy = root["message-storage-policy"]?.value.numberValue?.int64Value ?? 0
            guard root["message-storage-policy"] == nil || policy == 0 || policy == 1 else { return fail(400, .badRequestParams) }
            guard !memory.channels.isFull(bundle) else { return fail(400, .cannotCreateChannelConfig) }
            let channel = memory.channels.create(in: bundle, storagePolicy: Int(policy))
            entry.channelID = channel.id
            response = MockResponse(status: 201, headers: [(APNsHeaderName.channelID.rawValue, channel.id)])
        } else {
            guard let id = request.header(.channelID), !id.isEmpty else { return fail(400, .missingChannelId) }
            guard MockRequestRules.isBase64(id) else { return fail(400, .badChannelId) }
            guard let channel = memory.channels.channel(id, of: bundle) else { return fail(400, .channelNotRegistered) }
            if request.method == "GET" {
                response = .json(200, "{\"message-storage-policy\":\(channel.storagePolicy),\"push-type\":\"LiveActivity\"}")
                response.headers.append((APNsHeaderName.channelID.rawValue, id))
            } else {
                _ = memory.channels.delete(id, of: bundle)
                response = MockResponse(status: 204)
            }
        }
        response.headers.append((APNsHeaderName.requestID.rawValue, requestID))
        response.authenticated = auth.authenticated
        return response
    }
}
