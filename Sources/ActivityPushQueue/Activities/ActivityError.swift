import ActivityPushCore

/// A lifecycle request the service refuses, with the HTTP status the API answers (the CLI exits 1 for 4xx
/// findings, 2 otherwise), the field at fault (as the JSON key of the request) and the fix. Nothing was stored.
public struct ActivityError: Error, Sendable, CustomStringConvertible {
    /// 400 bad input, 404 unknown activity, 409 conflict (same activityID, different body; an ended activity),
    /// 422 the push has error findings (``findings``), 501 not available yet, 503 the store failed.
    public var status: Int
    /// Stable kebab-case code: `bad-request`, `not-found`, `conflict`, `findings`, `not-implemented`, `queue`.
    public var code: String
    /// The request field at fault (`deviceIDs[1]`, `contentState`), when one is.
    public var field: String?
    /// What is wrong.
    public var message: String
    /// How to fix it, when known.
    public var fix: String?
    /// The validator's findings (status 422).
    public var findings: [Finding]

    /// Makes an error; each parameter sets the property of the same name.
    public init(status: Int, code: String, field: String? = nil, message: String, fix: String? = nil, findings: [Finding] = []) {
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        self.fix = fix
        self.findings = findings
    }

    /// 400 naming the field.
    public static func badRequest(_ field: String, _ message: String, fix: String? = nil) -> ActivityError {
        ActivityError(status: 400, code: "bad-request", field: field, message: "\(field): \(message)", fix: fix)
    }

    /// 503 from a store failure.
    static func store(_ error: QueueError) -> ActivityError {
        ActivityError(status: 503, code: "queue", message: error.description,
                      fix: error.isTransient ? "retry when the database is back" : nil)
    }

    /// The 503 the app's intake scope (`POST /v1/tokens` without the admin token) gets for any store failure:
    /// no database host, port, user or libpq text reaches an app install (the admin scope keeps ``store(_:)``).
    public static let storeUnreachable = ActivityError(status: 503, code: "queue",
                                                       message: "the service cannot reach its database; retry later",
                                                       fix: "retry later")

    /// The message, then the fix.
    public var description: String { message + (fix.map { " (fix: \($0))" } ?? "") }
}
