import ActivityPushAPNs
import ActivityPushCore
import Foundation

/// The APNs connection options `send`, `worker` and `serve` share, read once, the same way for each:
/// where to send (`--env`, `--url`, `--ca-file`) and the token-auth credentials (`--auth-key`, `--key-id`,
/// `--team-id`). Like swift-argument-parser's `@OptionGroup`: a command lists ``group`` and reads the values
/// with ``init(_:)``.
struct APNsConnectionOptions: Sendable {
    static let authKey = Option<String>(
        "--auth-key", valueName: "PATH",
        help: "Apple's .p8 key (token auth); its Key ID is read from the name AuthKey_<KeyID>.p8",
        environment: "ACTIVITY_PUSH_AUTH_KEY")
    static let keyID = Option<String>("--key-id", valueName: "ID", help: "Key ID when the file is not named AuthKey_<KeyID>.p8")
    static let teamID = Option<String>("--team-id", valueName: "ID", help: "your 10-character Team ID (Membership details)")
    /// `--env`: Apple's two environments, by the names ``APNsEnvironment/named(_:)`` knows; also the label a
    /// queued push carries (a worker sends the pushes queued with its own `--env`).
    static let environment = Option<APNsEnvironment>.choice(
        "--env", APNsEnvironment.names.compactMap { name in APNsEnvironment.named(name).map { (name: name, value: $0) } },
        help: "APNs environment", default: .sandbox, defaultText: APNsEnvironment.sandbox.name)
    static let url = Option<String>(
        "--url", valueName: "URL",
        help: "send to this server instead (https://…, or http://… for cleartext HTTP/2, e.g. mock-apns)") { text, flag in
            try serverURL(text, flag: flag)
        }
    static let caFile = Option<String>("--ca-file", valueName: "PEM", help: "trust this CA (e.g. the one mock-apns prints)")

    /// The options in help order.
    static let group = OptionGroup("APNs connection", [authKey, keyID, teamID, environment, url, caFile])

    /// `--env` as given (or `sandbox`): ``APNsEnvironment/sandbox`` or ``APNsEnvironment/production``, never custom.
    var namedEnvironment: APNsEnvironment
    /// Where requests go: ``namedEnvironment``, or every endpoint at `--url`.
    var environment: APNsEnvironment
    /// `--url`, checked.
    var serverURL: String?
    /// `--ca-file`, readable.
    var caFile: String?
    /// `--auth-key` (or `ACTIVITY_PUSH_AUTH_KEY`).
    var keyPath: String?
    /// `--key-id`, else from the key's file name.
    var keyID: String?
    var teamID: String?

    /// Reads and checks the group (the CA file must be readable; the credentials are checked by
    /// ``providerToken()``).
    init(_ arguments: ParsedArguments) throws {
        namedEnvironment = try arguments.defaultedValue(Self.environment)
        serverURL = try arguments.value(Self.url)
        environment = serverURL.map(APNsEnvironment.custom) ?? namedEnvironment
        caFile = try arguments.value(Self.caFile)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw UsageError(.unreadableInput, option: Self.caFile.spec.name, file: caFile, "\(caFile): cannot read the CA file")
        }
        keyPath = try arguments.value(Self.authKey)
        keyID = try arguments.value(Self.keyID)
        if keyID == nil, let keyPath {
            let fileName = (keyPath as NSString).lastPathComponent
            if fileName.hasPrefix("AuthKey_"), fileName.hasSuffix(".p8"), fileName.count > "AuthKey_.p8".count {
                keyID = String(fileName.dropFirst("AuthKey_".count).dropLast(".p8".count))
            }
        }
        teamID = try arguments.value(Self.teamID)
    }

    /// The provider token from the credentials, which are required.
    /// - Throws: ``UsageError`` naming the missing option, or the key file's problem.
    func providerToken() throws -> ProviderToken {
        let credentials = try requireCredentials()
        do {
            return try ProviderToken(keyFile: credentials.keyPath, keyID: credentials.keyID, teamID: credentials.teamID)
        } catch {
            throw UsageError(refused: error, option: Self.authKey.spec.name, file: credentials.keyPath)
        }
    }

    /// Checks that the credentials are given (before a command does any work; the key is read by
    /// ``providerToken()``).
    /// - Throws: ``UsageError`` naming the missing option.
    @discardableResult
    func requireCredentials() throws -> (keyPath: String, keyID: String, teamID: String) {
        guard let keyPath else {
            throw UsageError(.missingOption, option: "--auth-key",
                             "--auth-key AuthKey_KEYID.p8 (or env ACTIVITY_PUSH_AUTH_KEY) is required (token auth)")
        }
        guard let keyID else { throw UsageError(.missingOption, option: "--key-id", "--key-id is required when the key file is not named AuthKey_<KeyID>.p8") }
        guard let teamID else { throw UsageError(.missingOption, option: "--team-id", "--team-id is required (10 characters, Membership details)") }
        return (keyPath, keyID, teamID)
    }

    /// The provider token when `--auth-key` is given (``providerToken()``), nil without one; `--key-id` or
    /// `--team-id` without `--auth-key` is a usage error.
    func optionalProviderToken() throws -> ProviderToken? {
        if keyPath != nil { return try providerToken() }
        if teamID != nil || keyID != nil { throw UsageError(.conflictingOptions, option: "--auth-key", "--team-id and --key-id need --auth-key") }
        return nil
    }

    /// `--url`: `https://host[:port]` or `http://host[:port]` (h2c), checked once here so that a bad one is a
    /// usage error (exit 2) rather than a failure per token — and never echoed with credentials in it. IPv6
    /// literals in brackets (`https://[::1]:2197`). A trailing `/` is dropped.
    static func serverURL(_ text: String, flag: String) throws -> String {
        guard text.hasPrefix("https://") || text.hasPrefix("http://"),
              let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw UsageError(.badValue, option: flag, "\(flag) must be https://HOST[:PORT] or http://HOST[:PORT] (h2c), e.g. https://127.0.0.1:2197")
        }
        guard components.user == nil, components.password == nil else {
            throw UsageError(.badValue, option: flag, "\(flag) must not carry a user name or password",
                             fix: "the server is authenticated by the provider token")
        }
        guard components.query == nil, components.fragment == nil, components.path.isEmpty || components.path == "/" else {
            throw UsageError(.badValue, option: flag, "\(flag) takes only the scheme, host and port (the client adds /3/device/…), e.g. https://127.0.0.1:2197")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw UsageError(.badValue, option: flag, "\(flag): port \(port) is not 1…65535")
        }
        return components.path == "/" ? String(text.dropLast()) : text
    }
}
