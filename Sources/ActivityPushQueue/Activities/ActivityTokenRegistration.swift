import ActivityPushCore

/// `POST /v1/tokens`: a token the app's `pushToStartTokenUpdates` or `pushTokenUpdates` handler reports.
///
/// JSON: `{"kind": "push-to-start", "deviceID", "attributesType", "token", "environment"?}` or
/// `{"kind": "update", "deviceID", "activityID", "token"}`. A new push-to-start token for the same (device, type)
/// replaces the old one; a new update token for the same (device, activity) too. Tokens are stored in full and
/// never shown in full (``DeviceToken/redacted(_:)``).
public struct ActivityTokenRegistration: Sendable, Hashable {
    /// `push-to-start` or `update`.
    public var kind: ActivityTokenKind
    /// The app's id for the device (any 1–200 characters).
    public var deviceID: String
    /// Push-to-start: the `ActivityAttributes` type the token starts.
    public var attributesType: String?
    /// Update: the activity the token belongs to.
    public var activityID: String?
    /// The hex token.
    public var token: String
    /// Push-to-start: the ``APNsEnvironment/name`` of the token's environment (`sandbox` or `production`, as the
    /// app posts it); nil is the server's environment.
    public var environment: String?
    /// The install secret (`"deviceSecret"`, 16–200 characters: the app's 32 random bytes from the Keychain, hex or
    /// base64). The first registration of a deviceID that carries one binds the device to it; later posts for that
    /// deviceID must carry the same (403 otherwise). Only its SHA-256 is stored (``DeviceSecret``).
    public var deviceSecret: String?

    /// Makes a registration; each parameter sets the property of the same name.
    public init(kind: ActivityTokenKind, deviceID: String, attributesType: String? = nil, activityID: String? = nil,
                token: String, environment: String? = nil, deviceSecret: String? = nil) {
        self.deviceSecret = deviceSecret
        self.kind = kind
        self.deviceID = deviceID
        self.attributesType = attributesType
        self.activityID = activityID
        self.token = token
        self.environment = environment
    }

    /// Checks the shape.
    /// - Throws: ``ActivityError`` 400 naming the field and the fix.
    func validated() throws(ActivityError) -> ActivityTokenRegistration {
        try ActivityStartRequest.checkDeviceID(deviceID, field: "deviceID")
        guard DeviceToken.isHex(token), (16...200).contains(token.count) else {
            throw .badRequest("token", "'\(DeviceToken.redacted(token))' is not a hex device token",
                              fix: "send the token bytes as hex (even number of 0-9a-f characters), as the app reads them from the token Data")
        }
        switch kind {
        case .pushToStart:
            guard let type = attributesType, !type.isEmpty else {
                throw .badRequest("attributesType", "is required for a push-to-start token",
                                  fix: "give the ActivityAttributes type name, e.g. \"attributesType\": \"MatchAttributes\"")
            }
            if activityID != nil {
                throw .badRequest("activityID", "applies to update tokens only", fix: "drop it, or send \"kind\": \"update\"")
            }
            if let environment, APNsEnvironment.named(environment) == nil {
                throw .badRequest("environment", "must be sandbox or production, got '\(environment)'",
                                  fix: "leave it out for the server's environment")
            }
        case .update:
            guard let activityID else {
                throw .badRequest("activityID", "is required for an update token",
                                  fix: "give the activity id the token belongs to (the app reads it from the activity's attributes)")
            }
            try ActivityStartRequest.checkActivityID(activityID)
            if attributesType != nil {
                throw .badRequest("attributesType", "applies to push-to-start tokens only", fix: "drop it")
            }
            if environment != nil {
                throw .badRequest("environment", "applies to push-to-start tokens only (an update token is in its activity's)",
                                  fix: "drop it")
            }
        default:
            throw .badRequest("kind", "must be push-to-start or update, got '\(kind.rawValue)'",
                              fix: "\"kind\": \"push-to-start\" (with attributesType) or \"update\" (with activityID)")
        }
        if let deviceSecret, !DeviceSecret.lengths.contains(deviceSecret.count) {
            throw .badRequest("deviceSecret", "must be \(DeviceSecret.lengths.lowerBound)–\(DeviceSecret.lengths.upperBound) characters, got \(deviceSecret.count)",
                              fix: "send the 32 random bytes the app generated at install (kept in the Keychain) as hex")
        }
        return ActivityTokenRegistration(kind: kind, deviceID: deviceID, attributesType: attributesType, activityID: activityID,
                                         token: token.lowercased(), environment: environment, deviceSecret: deviceSecret)
    }

    /// The row key: one token per (push-to-start, device, type) or (update, device, activity).
    var key: String {
        kind == .pushToStart ? "pts\u{1}\(deviceID)\u{1}\(attributesType ?? "")"
                             : "upd\u{1}\(deviceID)\u{1}\(activityID ?? "")"
    }
}
