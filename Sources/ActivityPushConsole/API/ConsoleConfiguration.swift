import ActivityPushCore

/// What `activity-push serve` was started with, minus secrets the API never shows.
public struct ConsoleConfiguration: Sendable {
    /// The app's types, read from `--attributes`; nil when none were given (schema rules are then skipped).
    public var schema: ActivitySchema?
    /// `--bundle-id`: `apns-topic` is `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    /// Where sends go: ``APNsEnvironment/sandbox``, ``APNsEnvironment/production``, or the `--url`
    /// (``APNsEnvironment/custom(_:)``); its name is shown on the page.
    public var environment: APNsEnvironment
    /// The environment pushes are enqueued for (an `activity-push worker` started with the same `--env` claims
    /// them); `sandbox` or `production` even when sends go to a `--url`.
    public var queueEnvironment: APNsEnvironment
    /// When set, every request must carry `Authorization: Bearer <token>` (or HTTP Basic with it as password).
    public var apiToken: String?
    /// `--intake-token`: when set, `POST /v1/tokens` (the app's route) needs `Authorization: Bearer <it>` (or the
    /// API token); other routes never accept it.
    public var intakeToken: String?
    /// Request bodies over this are refused with 413.
    public var maxBodyBytes: Int
    /// Read device outcomes from the server's `/_mock/journal` after each send (for `mock-apns`).
    public var readMockJournal: Bool
    /// `--strict` for the page's checks: unknown content-state keys are errors.
    public var strict: Bool

    public init(schema: ActivitySchema?, bundleID: String, environment: APNsEnvironment, queueEnvironment: APNsEnvironment = .sandbox,
                apiToken: String? = nil, intakeToken: String? = nil, maxBodyBytes: Int = 64 * 1024, readMockJournal: Bool = false, strict: Bool = false) {
        self.schema = schema
        self.bundleID = bundleID
        self.environment = environment
        self.queueEnvironment = queueEnvironment
        self.apiToken = apiToken
        self.intakeToken = intakeToken
        self.maxBodyBytes = maxBodyBytes
        self.readMockJournal = readMockJournal
        self.strict = strict
    }
}
