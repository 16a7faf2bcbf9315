import ActivityPushCore

/// The answer a deciding fault gives instead of the endpoint's (`drop-after` and the modifiers are applied
/// around a normal answer by `MockAPNsState`, not here).
enum MockFaultResponse {
    static func respond(to action: MockFaultPlan.Action, request: MockRequest, entry: inout MockJournalEntry) -> MockResponse {
        let echoedID = MockEchoedID(for: request)
        entry.apnsID = echoedID.value
        var response: MockResponse
        switch action {
        case .tooManyRequests(let seconds):
            response = .error(429, .tooManyRequests)
            response.headers.append(("retry-after", String(seconds)))
            entry.fault = "429"
        case .internalServerError:
            response = .error(500, .internalServerError)
            entry.fault = "500"
        case .serviceUnavailable:
            // Broadcast and channel endpoints spell it with a space (Apple's error table, sic).
            response = .error(503, request.path.hasPrefix("/3/") ? .serviceUnavailable : .serviceUnavailableSpaced)
            entry.fault = "503"
        case .goaway:
            response = MockResponse(status: 0, connectionAction: .goaway)
            entry.fault = "goaway"
        case .goawayAbrupt:
            response = MockResponse(status: 0, connectionAction: .goawayAbrupt)
            entry.fault = "goaway-abrupt"
        case .drop:
            response = MockResponse(status: 0, connectionAction: .dropBeforeProcessing)
            entry.fault = "drop-before"
        case .refused:
            response = MockResponse(status: 0, connectionAction: .refuse)
            entry.fault = "refused"
        case .dropAfterProcessing, .delay, .maxConcurrentStreams:
            response = MockResponse(status: 0)   // not reached: drop-after is processed normally, modifiers are not chosen
        }
        return echoedID.echoed(on: response)
    }
}
