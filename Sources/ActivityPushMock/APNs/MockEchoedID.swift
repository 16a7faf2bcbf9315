import ActivityPushCore

/// The id an APNs answer echoes: `apns-id` on the device endpoint (`/3/device/…`), `apns-request-id` on the
/// broadcast and channel endpoints (Apple, "Handling notification responses from APNs", "Handling error
/// responses from broadcast and channel management"). The request's own value, lowercased, or a new UUID.
struct MockEchoedID {
    /// The header that carries it, in the request and in the answer.
    let header: APNsHeaderName
    /// The value the request sent, as sent (nil when absent); the endpoints check its UUID form.
    let given: String?
    /// What the answer echoes and the journal records.
    let value: String

    init(for request: MockRequest) {
        header = request.path.hasPrefix("/3/") ? .id : .requestID
        given = request.header(header)
        value = given.map { $0.lowercased() } ?? MockRequestRules.newUUID()
    }

    /// `response` with the id header added.
    func echoed(on response: MockResponse) -> MockResponse {
        var response = response
        response.headers.append((header.rawValue, value))
        return response
    }

    /// An APNs error answer echoing the id, with the reason recorded in `entry`.
    func failure(_ status: Int, _ reason: APNsReason, extra: String = "", entry: inout MockJournalEntry) -> MockResponse {
        entry.reason = reason.rawValue
        return echoed(on: .error(status, reason, extra: extra))
    }
}
