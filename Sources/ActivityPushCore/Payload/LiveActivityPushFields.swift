import Foundation

extension LiveActivityPush {
    /// The one typed input of the builder: `activity-push build|send|queue enqueue` flags, the console's
    /// `POST /v1/build|send|enqueue` JSON and the console page all decode into `Fields`, and ``push(bundleID:schema:naming:)``
    /// is the only place that maps them onto ``LiveActivityPush``. So a start without its parts is refused the
    /// same way everywhere: as ``Finding``s (`missing-attributes`, `missing-attributes-type`,
    /// `missing-alert-for-start`), not as a usage error on one surface and a 400 on another.
    ///
    /// Every `…UnixSeconds` field is UNIX seconds (since 1970-01-01). Values *inside* `attributes` and
    /// `contentState` are the app's `Codable` encoding (Dates by default seconds since 2001-01-01).
    /// An empty string in an optional text field means "not given" (a form's blank input) — except a start's
    /// ``alertTitle`` and ``alertBody`` both given as `""`: that is a silent start (both keys sent empty;
    /// `silent-start` warning), as `check` judges the same payload.
    ///
    /// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications" (a start needs
    /// `attributes-type`, `attributes` and an `alert`; `dismissal-date` on end; `input-push-token` and
    /// `input-push-channel` on start, iOS 18+).
    public struct Fields: Sendable, Hashable {
        /// `aps.event`; nil is refused with ``Field/event``.
        public var event: LiveActivityEvent?
        /// `aps.attributes-type` (start): the Swift type name exactly; nil uses the schema's only type.
        public var attributesType: String?
        /// `aps.attributes` (start): a JSON object with the type's stored properties.
        public var attributes: JSONValue?
        /// `aps.content-state`: a JSON object matching the type's `ContentState` (required for every event).
        public var contentState: JSONValue?
        /// `aps.alert.title`; give it with ``alertBody`` (the device shows an alert only with both).
        public var alertTitle: String?
        /// `aps.alert.body`; give it with ``alertTitle``.
        public var alertBody: String?
        /// `aps.alert.sound`: a sound file name in the app bundle.
        public var alertSound: String?
        /// `aps.timestamp`, UNIX seconds; nil means now.
        public var timestampUnixSeconds: Int64?
        /// `aps.stale-date`, UNIX seconds.
        public var staleDateUnixSeconds: Int64?
        /// `aps.dismissal-date`, UNIX seconds (end only).
        public var dismissalDateUnixSeconds: Int64?
        /// `aps.relevance-score`: any finite number.
        public var relevanceScore: Double?
        /// `apns-priority`: 10 (default) or 5; a broadcast also allows 1.
        public var priority: Int?
        /// `apns-expiration`, UNIX seconds.
        public var expirationUnixSeconds: Int64?
        /// `apns-id` as text: a UUID (8-4-4-4-12 hex); nil lets APNs assign one.
        public var apnsID: String?
        /// `apns-collapse-id` (at most 64 bytes).
        public var collapseID: String?
        /// Start, iOS 18+: `input-push-token: 1`.
        public var requestUpdateToken: Bool
        /// Start, iOS 18+: `input-push-channel`, the broadcast channel the new activity subscribes to.
        public var inputPushChannel: String?
        /// Update / end: send as a broadcast to this channel (`apns-channel-id`, iOS 18+).
        public var channelID: String?

        /// Empty fields; set the ones given.
        public init(event: LiveActivityEvent? = nil) {
            self.event = event
            self.requestUpdateToken = false
        }

        /// The push these fields describe, made by the one builder (not yet validated: call
        /// ``LiveActivityPush/build(schema:)`` on it).
        /// - Parameters:
        ///   - bundleID: the app's bundle id (`apns-topic` is `<bundleID>.push-type.liveactivity`).
        ///   - schema: the app's types; when it declares exactly one, a start without ``attributesType`` uses it.
        ///   - naming: how the caller's users spell the fields, used in the fixes of the findings.
        /// - Throws: ``FieldsError`` — `.findings` for a start missing attributes, attributes-type or alert (the
        ///   same findings on every surface); `.invalidField` for a shape the builder cannot express (no event, no
        ///   content state, half an alert, a start-only field on an update, a dismissal date on a start, a bad UUID).
        public func push(bundleID: String, schema: ActivitySchema?,
                         naming: Field.Naming = .json) throws(FieldsError) -> LiveActivityPush {
            guard let event else {
                throw .invalidField(.event, "is required: start, update or end")
            }
            guard LiveActivityEvent.known.contains(event) else {
                throw .invalidField(.event, "must be start, update or end, got \"\(event.rawValue)\"")
            }
            guard let contentState else {
                throw .invalidField(.contentState, "is required (the ContentState as a JSON object)")
            }
            let alert = try self.alert()
            let timestamp = timestampUnixSeconds ?? LiveActivityPush.nowUnixSeconds()
            let relevance = relevanceScore
            var push: LiveActivityPush
            switch event {
            case .start:
                if dismissalDateUnixSeconds != nil { throw .invalidField(.dismissalDate, "applies to end only") }
                var typeName = Self.given(attributesType)
                if typeName == nil, let schema, schema.types.count == 1 { typeName = schema.types[0].name }
                let missing = Self.missingStartParts(attributes: attributes, attributesType: typeName, alert: alert,
                                                     naming: naming)
                guard missing.isEmpty, let attributes, let typeName, let alert else {
                    throw .findings(missing)
                }
                push = .start(bundleID: bundleID, attributesType: typeName, attributes: attributes,
                              contentState: contentState, alert: alert, timestampUnixSeconds: timestamp,
                              staleDateUnixSeconds: staleDateUnixSeconds, relevanceScore: relevance,
                              requestUpdateToken: requestUpdateToken, inputPushChannel: Self.given(inputPushChannel))
            default:
                if attributes != nil { throw .invalidField(.attributes, "applies to start only") }
                if Self.given(attributesType) != nil { throw .invalidField(.attributesType, "applies to start only") }
                if requestUpdateToken { throw .invalidField(.requestUpdateToken, "applies to start only") }
                if Self.given(inputPushChannel) != nil { throw .invalidField(.inputPushChannel, "applies to start only") }
                if event == .update {
                    if dismissalDateUnixSeconds != nil { throw .invalidField(.dismissalDate, "applies to end only") }
                    push = .update(bundleID: bundleID, contentState: contentState, timestampUnixSeconds: timestamp,
                                   alert: alert, staleDateUnixSeconds: staleDateUnixSeconds, relevanceScore: relevance)
                } else {
                    push = .end(bundleID: bundleID, contentState: contentState, timestampUnixSeconds: timestamp,
                                dismissalDateUnixSeconds: dismissalDateUnixSeconds, alert: alert,
                                staleDateUnixSeconds: staleDateUnixSeconds, relevanceScore: relevance)
                }
            }
            if let priority { push.priority = APNsPriority(rawValue: priority) }
            push.expirationUnixSeconds = expirationUnixSeconds
            if let text = Self.given(apnsID) {
                guard let identifier = UUID(uuidString: text) else {
                    throw .invalidField(.apnsID, "must be a UUID (8-4-4-4-12 hex)", fix: "leave it out to let APNs assign one")
                }
                push.apnsID = identifier
            }
            push.collapseID = Self.given(collapseID)
            if let channel = Self.given(channelID) { push = push.toBroadcast(channelID: channel) }
            return push
        }

        /// ``push(bundleID:schema:naming:)`` then ``LiveActivityPush/build(schema:)``: the findings of both steps
        /// arrive as ``FieldsError/findings(_:)``.
        public func build(bundleID: String, schema: ActivitySchema?,
                          naming: Field.Naming = .json) throws(FieldsError) -> PushRequest {
            let push = try push(bundleID: bundleID, schema: schema, naming: naming)
            do { return try push.build(schema: schema) } catch { throw .findings(error.findings) }
        }

        private func alert() throws(FieldsError) -> LiveActivityAlert? {
            // A start with title and body both given as "": a silent start (the device keeps a start whose alert
            // keys are present, and shows no alert); the built push carries both keys and `check` warns
            // `silent-start`, the same verdict as for the payload itself.
            if event == .start, let title = alertTitle, let body = alertBody, title.isEmpty, body.isEmpty {
                return LiveActivityAlert(title: "", body: "", sound: Self.given(alertSound))
            }
            switch (Self.given(alertTitle), Self.given(alertBody)) {
            case let (title?, body?): return LiveActivityAlert(title: title, body: body, sound: Self.given(alertSound))
            case (nil, nil): return nil
            case (nil, _?):
                throw .invalidField(.alertTitle, "is missing: the device shows an alert only with both title and body")
            case (_?, nil):
                throw .invalidField(.alertBody, "is missing: the device shows an alert only with both title and body")
            }
        }

        private static func given(_ text: String?) -> String? {
            guard let text, !text.isEmpty else { return nil }
            return text
        }

        /// The findings for a start without its parts (Apple: a start needs attributes-type, attributes, alert).
        static func missingStartParts(attributes: JSONValue?, attributesType: String?, alert: LiveActivityAlert?,
                                      naming: Field.Naming) -> [Finding] {
            var missing: [Finding] = []
            if attributes == nil {
                missing.append(Finding(
                    code: .missingAttributes, severity: .error, path: "aps.attributes", position: nil,
                    message: "a start needs attributes: the device cannot create the activity without them",
                    fix: "give \(Field.attributes.name(naming)) with the type's stored properties as a JSON object"))
            }
            if alert == nil {
                missing.append(Finding(
                    code: .missingAlertForStart, severity: .error, path: "aps.alert", position: nil,
                    message: "a push-to-start without an alert is dropped by the device although APNs answers 200",
                    fix: "give \(Field.alertTitle.name(naming)) and \(Field.alertBody.name(naming))"))
            }
            if attributesType == nil {
                missing.append(Finding(
                    code: .missingAttributesType, severity: .error, path: "aps.attributes-type", position: nil,
                    message: "a start needs attributes-type, the ActivityAttributes type's exact name",
                    fix: "give \(Field.attributesType.name(naming)), or a schema declaring exactly one ActivityAttributes type"))
            }
            return missing
        }
    }

    /// The fields of ``Fields``, each with its spelling as a CLI flag and as a JSON key — the one table both
    /// surfaces read their names (and their help) from.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// ``Fields/event``.
        case event
        /// ``Fields/attributesType``.
        case attributesType
        /// ``Fields/attributes``.
        case attributes
        /// ``Fields/contentState``.
        case contentState
        /// ``Fields/alertTitle``.
        case alertTitle
        /// ``Fields/alertBody``.
        case alertBody
        /// ``Fields/alertSound``.
        case alertSound
        /// ``Fields/timestampUnixSeconds``.
        case timestamp
        /// ``Fields/staleDateUnixSeconds``.
        case staleDate
        /// ``Fields/dismissalDateUnixSeconds``.
        case dismissalDate
        /// ``Fields/relevanceScore``.
        case relevanceScore
        /// ``Fields/priority``.
        case priority
        /// ``Fields/expirationUnixSeconds``.
        case expiration
        /// ``Fields/apnsID``.
        case apnsID
        /// ``Fields/collapseID``.
        case collapseID
        /// ``Fields/requestUpdateToken``.
        case requestUpdateToken
        /// ``Fields/inputPushChannel``.
        case inputPushChannel
        /// ``Fields/channelID``.
        case channelID

        /// How a surface spells field names: command-line flags or JSON keys.
        public enum Naming: Sendable, Hashable {
            /// `--attributes-json`, `--alert-title`, … (the CLI).
            case flag
            /// `attributes`, `alert.title`, … (the console's JSON and page).
            case json
        }

        /// The field's name as `naming` spells it.
        public func name(_ naming: Naming) -> String {
            switch naming {
            case .flag: return flag
            case .json: return jsonKey
            }
        }

        /// The command-line flag, e.g. `--content-state-json`.
        public var flag: String {
            switch self {
            case .event: return "--event"
            case .attributesType: return "--type"
            case .attributes: return "--attributes-json"
            case .contentState: return "--content-state-json"
            case .alertTitle: return "--alert-title"
            case .alertBody: return "--alert-body"
            case .alertSound: return "--alert-sound"
            case .timestamp: return "--timestamp"
            case .staleDate: return "--stale-date"
            case .dismissalDate: return "--dismissal-date"
            case .relevanceScore: return "--relevance-score"
            case .priority: return "--priority"
            case .expiration: return "--expiration"
            case .apnsID: return "--apns-id"
            case .collapseID: return "--collapse-id"
            case .requestUpdateToken: return "--request-update-token"
            case .inputPushChannel: return "--input-push-channel"
            case .channelID: return "--channel-id"
            }
        }

        /// The JSON key of `POST /v1/build|send|enqueue`, e.g. `contentState`; the alert parts are members of
        /// `alert` (`alert.title`).
        public var jsonKey: String {
            switch self {
            case .attributesType: return "type"
            case .alertTitle: return "alert.title"
            case .alertBody: return "alert.body"
            case .alertSound: return "alert.sound"
            default: return rawValue
            }
        }

        /// The flag's argument in help text, e.g. `UNIX`; nil for a switch (``requestUpdateToken``).
        public var argument: String? {
            switch self {
            case .event: return "start|update|end"
            case .attributesType: return "NAME"
            case .attributes, .contentState: return "JSON"
            case .alertTitle, .alertBody, .alertSound: return "TEXT"
            case .timestamp, .staleDate, .dismissalDate, .expiration: return "UNIX"
            case .relevanceScore: return "X"
            case .priority: return "5|10"
            case .apnsID: return "UUID"
            case .collapseID, .inputPushChannel, .channelID: return "ID"
            case .requestUpdateToken: return nil
            }
        }

        /// One line of help: what the field sets, with its unit.
        public var summary: String {
            switch self {
            case .event: return "the Live Activity event"
            case .attributesType: return "attributes-type (default: the only ActivityAttributes type in the schema)"
            case .attributes: return "start: the type's stored properties, as a JSON object"
            case .contentState: return "the ContentState, as a JSON object (Dates: seconds since 2001-01-01)"
            case .alertTitle: return "aps.alert.title (a start needs title and body)"
            case .alertBody: return "aps.alert.body"
            case .alertSound: return "aps.alert.sound, a sound file in the app bundle"
            case .timestamp: return "aps.timestamp, UNIX seconds (default: now)"
            case .staleDate: return "aps.stale-date, UNIX seconds"
            case .dismissalDate: return "aps.dismissal-date, UNIX seconds (end only)"
            case .relevanceScore: return "aps.relevance-score"
            case .priority: return "apns-priority (default 10)"
            case .expiration: return "apns-expiration, UNIX seconds"
            case .apnsID: return APNsHeaderName.id.rawValue
            case .collapseID: return "apns-collapse-id (at most \(APNsLimits.collapseIDBytes) bytes)"
            case .requestUpdateToken: return "start, iOS 18+: input-push-token: 1"
            case .inputPushChannel: return "start, iOS 18+: subscribe the activity to a broadcast channel"
            case .channelID: return "send an update / end as a broadcast to this channel"
            }
        }
    }

    /// ``Fields`` could not make a push.
    public enum FieldsError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The push would be refused: findings with codes and fixes (a start missing its parts, or the
        /// validator's findings from ``Fields/build(bundleID:schema:naming:)``). Report them as findings (exit 1,
        /// HTTP 422).
        case findings([Finding])
        /// A shape the builder cannot express; `message` reads after the field's name, `fix` is optional.
        /// Report it as a usage error (exit 2, HTTP 400) naming the field.
        case invalidField(Field, String, fix: String? = nil)

        /// The error as one line, naming fields by their JSON keys.
        public var description: String {
            switch self {
            case .findings(let findings):
                return PushBuildError(findings: findings).description
            case .invalidField(let field, let message, let fix):
                return "\(field.jsonKey) \(message)" + (fix.map { " (fix: \($0))" } ?? "")
            }
        }
    }
}
