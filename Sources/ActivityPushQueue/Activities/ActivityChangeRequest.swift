import ActivityPushCore

/// `POST /v1/activities/{id}/update` and `…/end` (and `activity-push activities update|end`).
///
/// JSON: `{"contentState", "alert"?: {"title", "body"}, "staleDate"?, "dismissalDate"? (end only),
/// "priority"? (5 or 10, default 10)}`. Dates `staleDate`/`dismissalDate` are UNIX seconds.
public struct ActivityChangeRequest: Sendable, Hashable {
    /// `aps.content-state` (required).
    public var contentState: JSONValue?
    /// `aps.alert.title` (with ``alertBody``).
    public var alertTitle: String?
    /// `aps.alert.body` (with ``alertTitle``).
    public var alertBody: String?
    /// `aps.stale-date`, UNIX seconds.
    public var staleDateUnixSeconds: Int64?
    /// `aps.dismissal-date`, UNIX seconds (end only).
    public var dismissalDateUnixSeconds: Int64?
    /// `apns-priority` asked for: 10 (default) or 5. A priority-10 update over the budget goes at 5.
    public var priority: Int?

    /// An empty request; set the fields given.
    public init(contentState: JSONValue? = nil) { self.contentState = contentState }

    /// The request in one canonical line (object keys sorted): the same end again is a retry, another a conflict.
    var fingerprint: String {
        JSONWriter.compact(.obj([
            ("contentState", contentState.map(ActivityStartRequest.canonical) ?? .null),
            ("alertTitle", alertTitle.map(JSONValue.string) ?? .null), ("alertBody", alertBody.map(JSONValue.string) ?? .null),
            ("staleDate", staleDateUnixSeconds.map { .int(Int($0)) } ?? .null),
            ("dismissalDate", dismissalDateUnixSeconds.map { .int(Int($0)) } ?? .null),
            ("priority", .int(priority ?? 10)),
        ]))
    }

    /// Checks the shape for `event`.
    /// - Throws: ``ActivityError`` 400 naming the field and the fix.
    func validated(event: LiveActivityEvent) throws(ActivityError) -> ActivityChangeRequest {
        if contentState == nil {
            throw .badRequest("contentState", "is required (the ContentState as a JSON object)",
                              fix: "give \"contentState\": {…}")
        }
        if let priority, priority != 5, priority != 10 {
            throw .badRequest("priority", "must be 5 or 10, got \(priority)", fix: "leave it out for 10")
        }
        if event == .update, dismissalDateUnixSeconds != nil {
            throw .badRequest("dismissalDate", "applies to end only", fix: "send it with POST /v1/activities/{id}/end")
        }
        return self
    }
}
