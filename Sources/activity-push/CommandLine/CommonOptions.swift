import ActivityPushCore

/// Options several commands share that are not about the APNs connection: declared once, help written once.
enum CommonOptions {
    /// `--bundle-id ID`; `defaultID` for the commands that make up a bundle id when none is given.
    static func bundleID(default defaultID: String? = nil) -> Option<String> {
        Option("--bundle-id", valueName: "ID", help: "the app's bundle id (apns-topic is ID.push-type.liveactivity)",
               default: defaultID)
    }

    /// The bundle id used when `--bundle-id` is not given (a placeholder: APNs refuses it for any real app).
    static let placeholderBundleID = "com.example.app"

    /// `--bundle-id`, checked; without it the placeholder, with the one warning every command prints for it.
    /// - Throws: ``UsageError`` naming `--bundle-id` when it is not a bundle identifier.
    static func bundleIDOrPlaceholder(_ arguments: ParsedArguments, command: String) throws -> String {
        guard let bundleID = try checkedBundleID(arguments) else {
            warnPlaceholderBundleID(command: command)
            return placeholderBundleID
        }
        return bundleID
    }

    /// `--bundle-id` when given, checked.
    /// - Throws: ``UsageError`` naming `--bundle-id` when it is not a bundle identifier.
    static func checkedBundleID(_ arguments: ParsedArguments) throws -> String? {
        guard let bundleID = try arguments.value(bundleID()) else { return nil }
        if bundleID.isEmpty || bundleID.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw UsageError(.badValue, option: "--bundle-id", "--bundle-id must be the app's bundle identifier, e.g. \(placeholderBundleID)")
        }
        return bundleID
    }

    /// The one warning for a missing `--bundle-id` (`build`, `serve`, `activities start|update|end|token`).
    static func warnPlaceholderBundleID(command: String) {
        printError("activity-push \(command): no --bundle-id; apns-topic uses \(placeholderBundleID)")
    }

    /// `--attributes PATH`, repeatable: the app's Swift source the push is judged against.
    static let attributes = Option<String>(
        "--attributes", valueName: "PATH",
        help: "the app's .swift file or folder declaring its ActivityAttributes types: attributes and content-state\nare checked against them",
        repeatable: true)

    /// `--database DB`: the queue.
    static let database = Option<String>(
        "--database", valueName: "DB",
        help: "postgres://user@host:port/db for PostgreSQL; a file path (or sqlite:PATH) for SQLite.\n"
            + "Default: $ACTIVITY_PUSH_QUEUE, else $XDG_DATA_HOME/activity-push/queue.sqlite,\nelse ./activity-push-queue.sqlite")

    /// `--credential NAME`: which signing key a queued push is sent with.
    static let credential = Option<String>(
        "--credential", valueName: "NAME",
        help: "signing key name; a push queued with a --credential is sent by a worker started with the same one",
        default: "default", defaultText: "\"default\"")

    /// `--headers FILE` beside a PAYLOAD.json (`send`, `queue enqueue`).
    static let headers = Option<String>(
        "--headers", valueName: "FILE", help: "with PAYLOAD.json: APNs headers as a JSON object (default: built from flags)")

    /// The schema from `--attributes`, or nil when none was given.
    static func schema(_ arguments: ParsedArguments) throws -> ActivitySchema? {
        try Inputs.schema(arguments.values(attributes))
    }
}
