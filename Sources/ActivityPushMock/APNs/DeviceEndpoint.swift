import ActivityPushCore

/// `POST /3/device/<token>`: APNs's checks in Apple's order ("Sending notification requests to APNs",
/// "Handling notification responses from APNs"), then delivery to the device emulator.
enum DeviceEndpoint {
    static func respond(to request: MockRequest, now: Double, entry: inout MockJournalEntry, memory: MockAPNsMemory) -> MockResponse {
        let rawToken = request.path.hasPrefix("/3/device/") ? Substring(request.path.utf8.dropFirst(10)) : ""
        let token = String(rawToken.firstIndex(of: "?").map { rawToken[..<$0] } ?? rawToken)
        entry.token = token.isEmpty ? nil : String(token.prefix(8))
        entry.path = "/3/device/" + DeviceToken.journalPrefix(token)
        entry.bundleID = request.header(.topic).map(LiveActivityPush.bundleID(fromTopic:))
        let echoedID = MockEchoedID(for: request)
        let givenID = echoedID.given, apnsID = echoedID.value
        entry.apnsID = apnsID
        func fail(_ status: Int, _ reason: APNsReason, extra: String = "") -> MockResponse {
            echoedID.failure(status, reason, extra: extra, entry: &entry)
        }
        guard request.method == "POST" else { return fail(405, .methodNotAllowed) }
        guard !token.isEmpty else { return fail(400, .missingDeviceToken) }
        guard MockRequestRules.isDeviceToken(token) else { return fail(400, .badDeviceToken) }
        if MockRequestRules.duplicatedHeader(request) != nil { return fail(400, .duplicateHeaders) }
        if let givenID, !MockRequestRules.isUUID(givenID) { return fail(400, .badMessageId) }
        let auth = memory.providerTokens.authenticate(request, now: now)
        if let failure = auth.failure { return fail(failure.status, failure.reason) }
        guard request.header(.pushType) == APNsPushType.liveactivity.rawValue else { return fail(400, .invalidPushType) }
        guard let topic = request.header(.topic), !topic.isEmpty else { return fail(400, .missingTopic) }
        guard topic.hasSuffix(LiveActivityPush.topicSuffix) else { return fail(400, .deviceTokenNotForTopic) }
        let bundle = LiveActivityPush.bundleID(fromTopic: topic)
        guard MockRequestRules.isBundleID(bundle) else { return fail(400, .badTopic) }
        let key = token.lowercased()
        if let bound = memory.devices.bundle(of: key), bound != bundle { return fail(400, .deviceTokenNotForTopic) }
        if let priority = request.header(.priority), priority != "10", priority != "5" { return fail(400, .badPriority) }
        if let expiration = request.header(.expiration),
           expiration.isEmpty || !expiration.allSatisfy({ $0.isASCII && $0.isNumber }) || Int64(expiration) == nil {
            return fail(400, .badExpirationDate)
        }
        if let collapseID = request.header(.collapseID), collapseID.utf8.count > APNsLimits.collapseIDBytes { return fail(400, .badCollapseId) }
        guard request.bodyLength > 0 else { return fail(400, .payloadEmpty) }
        guard request.bodyLength <= MockRequestRules.deviceBodyLimit else { return fail(413, .payloadTooLarge) }
        if let milliseconds = memory.devices.unregistrationTime(of: key) {
            return fail(410, .unregistered, extra: ",\"timestamp\":\(milliseconds)")
        }
        memory.devices.bind(key, to: bundle)
        entry.device = memory.emulator.deliver(body: request.body, headers: MockRequestRules.apnsHeaders(request), token: key,
                                               bundleID: bundle, now: now)
        var response = MockResponse(status: 200, headers: [(APNsHeaderName.id.rawValue, apnsID), (APNsHeaderName.uniqueID.rawValue, MockRequestRules.newUUID())])
        response.authenticated = auth.authenticated
        return response
    }
}
