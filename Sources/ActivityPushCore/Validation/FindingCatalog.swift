/// Every finding code the validator can report, with its default severity and a one-line summary — the
/// list `findings.md` specifies (plus a few added codes, marked). Used for SARIF rule metadata and docs.
public enum FindingCatalog {
    /// One finding code with its default severity and summary.
    public struct Entry: Sendable {
        /// The code.
        public let code: FindingCode
        /// The severity the validator reports it with (`--strict` may raise some warnings).
        public let severity: Severity
        /// One sentence: what the mistake is.
        public let summary: String
    }

    /// Every code, grouped as `findings.md` lists them.
    public static let entries: [Entry] = [
        // Body and placement
        .init(code: .invalidJSON, severity: .error, summary: "The body is not strict RFC 8259 JSON."),
        .init(code: .jsonTooDeep, severity: .error, summary: "The body nests deeper than the reader's limit (added code)."),
        .init(code: .duplicateKey, severity: .error, summary: "The same key appears twice in one object."),
        .init(code: .missingAPS, severity: .error, summary: "No `aps` object."),
        .init(code: .attributesNotObject, severity: .error, summary: "`attributes` is not a JSON object."),
        .init(code: .contentStateNotObject, severity: .error, summary: "`content-state` is not a JSON object."),
        .init(code: .attributesOutsideAPS, severity: .error, summary: "`attributes` or `attributes-type` at the payload root instead of inside `aps`."),
        .init(code: .contentStateOutsideAPS, severity: .error, summary: "`content-state` at the payload root instead of inside `aps`."),
        .init(code: .apsKeyOutsideAPS, severity: .error, summary: "A Live Activity `aps` key at the payload root."),
        .init(code: .unknownAPSKey, severity: .warning, summary: "A key inside `aps` that Live Activities do not use."),
        .init(code: .nullValue, severity: .error, summary: "JSON null inside `attributes` / `content-state`."),
        .init(code: .payloadTooLarge, severity: .error, summary: "Body over 4096 bytes (5120 broadcast), or content-state / attributes alone over 4096."),
        // Events and times
        .init(code: .missingEvent, severity: .error, summary: "No `aps.event`."),
        .init(code: .invalidEvent, severity: .error, summary: "`aps.event` is not start, update or end."),
        .init(code: .missingTimestamp, severity: .error, summary: "No `aps.timestamp`."),
        .init(code: .invalidTimestamp, severity: .error, summary: "`timestamp`, `stale-date` or `dismissal-date` is not a number."),
        .init(code: .timestampInMilliseconds, severity: .error, summary: "An `aps` time looks like milliseconds; APNs times are UNIX seconds."),
        .init(code: .timestampStale, severity: .warning, summary: "`timestamp` more than 10 minutes before now."),
        .init(code: .timestampInFuture, severity: .warning, summary: "`timestamp` more than 10 minutes after now."),
        .init(code: .timestampNotInteger, severity: .warning, summary: "`timestamp`, `stale-date` or `dismissal-date` has a fractional part; Apple uses whole UNIX seconds."),
        .init(code: .missingContentState, severity: .error, summary: "No `aps.content-state`."),
        .init(code: .dismissalDateIgnored, severity: .warning, summary: "`dismissal-date` on start / update has no effect."),
        .init(code: .dismissalDateReferenceEpoch, severity: .warning, summary: "`dismissal-date` looks like seconds since 2001-01-01 and removes the activity at once (added code)."),
        .init(code: .staleDateInPast, severity: .error, summary: "`stale-date` before now (error on start, warning otherwise)."),
        .init(code: .relevanceScoreInvalid, severity: .error, summary: "`relevance-score` is not a finite number."),
        // Push-to-start
        .init(code: .missingAttributesType, severity: .error, summary: "A start without `aps.attributes-type`."),
        .init(code: .missingAttributes, severity: .error, summary: "A start without `aps.attributes`."),
        .init(code: .attributesTypeMismatch, severity: .error, summary: "No `ActivityAttributes` type of that exact name."),
        .init(code: .missingAlertForStart, severity: .error, summary: "A start without an `aps.alert` holding both title and body."),
        .init(code: .silentStart, severity: .warning, summary: "A start whose alert title and body are present but empty: it starts without a visible alert."),
        .init(code: .alertIncomplete, severity: .warning, summary: "An update / end alert without title or body."),
        .init(code: .misplacedSound, severity: .warning, summary: "`aps.sound` instead of `aps.alert.sound`."),
        .init(code: .startOnlyKey, severity: .warning, summary: "A start-only key on update / end."),
        .init(code: .twoPushInputs, severity: .error, summary: "Both `input-push-token` and `input-push-channel`."),
        .init(code: .invalidInputPushToken, severity: .error, summary: "`input-push-token` is not 1."),
        .init(code: .invalidInputPushChannel, severity: .error, summary: "`input-push-channel` is not a base64 string."),
        // Schema
        .init(code: .missingRequiredKey, severity: .error, summary: "A stored property decoding needs is absent."),
        .init(code: .unknownAttributeKey, severity: .error, summary: "A key in `attributes` the type does not store."),
        .init(code: .unknownContentStateKey, severity: .warning, summary: "A key in `content-state` the type does not store."),
        .init(code: .typeMismatch, severity: .error, summary: "The JSON kind does not decode into the Swift type."),
        .init(code: .integerOutOfRange, severity: .error, summary: "An integer outside the Swift type's range."),
        .init(code: .enumValueInvalid, severity: .error, summary: "Not one of the enum's raw values."),
        .init(code: .dateNotNumeric, severity: .error, summary: "A `Date` given as a string."),
        .init(code: .fcmEnvelopeInvalid, severity: .error, summary: "An FCM message whose `apns` is missing or not an object, whose `apns.headers` is not an object, or a header value that is not a string (FCM answers 400)."),
        .init(code: .fcmMissingLiveActivityToken, severity: .error, summary: "An FCM message without `apns.live_activity_token`: FCM sends an ordinary notification and sets no apns-push-type / apns-topic."),
        .init(code: .dateNotReferenceEpoch, severity: .error, summary: "A `Date` given in UNIX seconds (decodes ~31 years late)."),
        .init(code: .customDateImplausible, severity: .warning, summary: "A date the app decodes itself (UNIX seconds / milliseconds) that decodes but looks like another unit (milliseconds as seconds, seconds as milliseconds, seconds since 2001)."),
        .init(code: .schemaUnresolved, severity: .info, summary: "A type the schema reader cannot resolve; its values are not judged."),
        // Headers
        .init(code: .missingPushType, severity: .error, summary: "No `apns-push-type` header."),
        .init(code: .wrongPushType, severity: .error, summary: "`apns-push-type` is not `liveactivity`."),
        .init(code: .missingTopic, severity: .error, summary: "No `apns-topic` header."),
        .init(code: .wrongTopicSuffix, severity: .error, summary: "`apns-topic` does not end with `.push-type.liveactivity`."),
        .init(code: .invalidPriority, severity: .error, summary: "`apns-priority` not 5 or 10 (broadcast: 1, 5, 10)."),
        .init(code: .expirationZeroForStart, severity: .warning, summary: "A start with `apns-expiration: 0`."),
        .init(code: .invalidExpiration, severity: .error, summary: "`apns-expiration` is not UNIX seconds (added code; APNs: BadExpirationDate)."),
        .init(code: .invalidAPNsID, severity: .error, summary: "`apns-id` is not a UUID (added code; APNs: BadMessageId)."),
        .init(code: .collapseIDTooLong, severity: .error, summary: "`apns-collapse-id` over 64 bytes (added code; APNs: BadCollapseId)."),
        .init(code: .startViaBroadcast, severity: .error, summary: "`event: start` on a broadcast request."),
        .init(code: .missingChannelID, severity: .error, summary: "A broadcast request without `apns-channel-id`."),
        .init(code: .missingExpiration, severity: .error, summary: "A broadcast request without `apns-expiration`."),
        .init(code: .missingPriority, severity: .error, summary: "A broadcast request without `apns-priority` (added code)."),
        .init(code: .topicOnBroadcast, severity: .error, summary: "`apns-topic` on a broadcast request."),
        .init(code: .unknownHeader, severity: .warning, summary: "An `apns-*` request header APNs does not define."),
    ]

    /// The entry of `code`, nil for a code this version does not know.
    public static func entry(_ code: FindingCode) -> Entry? { entries.first(where: { $0.code == code }) }
}

extension FindingCode {
    /// `invalid-json` (error): The body is not strict RFC 8259 JSON.
    public static let invalidJSON: FindingCode = "invalid-json"
    /// `json-too-deep` (error): The body nests deeper than the reader's limit (added code).
    public static let jsonTooDeep: FindingCode = "json-too-deep"
    /// `duplicate-key` (error): The same key appears twice in one object.
    public static let duplicateKey: FindingCode = "duplicate-key"
    /// `missing-aps` (error): No `aps` object.
    public static let missingAPS: FindingCode = "missing-aps"
    /// `attributes-not-object` (error): `attributes` is not a JSON object.
    public static let attributesNotObject: FindingCode = "attributes-not-object"
    /// `content-state-not-object` (error): `content-state` is not a JSON object.
    public static let contentStateNotObject: FindingCode = "content-state-not-object"
    /// `attributes-outside-aps` (error): `attributes` or `attributes-type` at the payload root instead of inside `aps`.
    public static let attributesOutsideAPS: FindingCode = "attributes-outside-aps"
    /// `content-state-outside-aps` (error): `content-state` at the payload root instead of inside `aps`.
    public static let contentStateOutsideAPS: FindingCode = "content-state-outside-aps"
    /// `aps-key-outside-aps` (error): A Live Activity `aps` key at the payload root.
    public static let apsKeyOutsideAPS: FindingCode = "aps-key-outside-aps"
    /// `unknown-aps-key` (warning): A key inside `aps` that Live Activities do not use.
    public static let unknownAPSKey: FindingCode = "unknown-aps-key"
    /// `null-value` (error): JSON null inside `attributes` / `content-state`.
    public static let nullValue: FindingCode = "null-value"
    /// `payload-too-large` (error): Body over 4096 bytes (5120 broadcast), or content-state / attributes alone over 4096.
    public static let payloadTooLarge: FindingCode = "payload-too-large"
    /// `missing-event` (error): No `aps.event`.
    public static let missingEvent: FindingCode = "missing-event"
    /// `invalid-event` (error): `aps.event` is not start, update or end.
    public static let invalidEvent: FindingCode = "invalid-event"
    /// `missing-timestamp` (error): No `aps.timestamp`.
    public static let missingTimestamp: FindingCode = "missing-timestamp"
    /// `invalid-timestamp` (error): `timestamp`, `stale-date` or `dismissal-date` is not a number.
    public static let invalidTimestamp: FindingCode = "invalid-timestamp"
    /// `timestamp-in-milliseconds` (error): An `aps` time looks like milliseconds; APNs times are UNIX seconds.
    public static let timestampInMilliseconds: FindingCode = "timestamp-in-milliseconds"
    /// `timestamp-stale` (warning): `timestamp` more than 10 minutes before now.
    public static let timestampStale: FindingCode = "timestamp-stale"
    /// `timestamp-in-future` (warning): `timestamp` more than 10 minutes after now.
    public static let timestampInFuture: FindingCode = "timestamp-in-future"
    /// `missing-content-state` (error): No `aps.content-state`.
    public static let missingContentState: FindingCode = "missing-content-state"
    /// `dismissal-date-ignored` (warning): `dismissal-date` on start / update has no effect.
    public static let dismissalDateIgnored: FindingCode = "dismissal-date-ignored"
    /// `dismissal-date-reference-epoch` (warning): `dismissal-date` looks like seconds since 2001-01-01 and removes the activity at once (added code).
    public static let dismissalDateReferenceEpoch: FindingCode = "dismissal-date-reference-epoch"
    /// `stale-date-in-past` (error): `stale-date` before now (error on start, warning otherwise).
    public static let staleDateInPast: FindingCode = "stale-date-in-past"
    /// `relevance-score-invalid` (error): `relevance-score` is not a finite number.
    public static let relevanceScoreInvalid: FindingCode = "relevance-score-invalid"
    /// `missing-attributes-type` (error): A start without `aps.attributes-type`.
    public static let missingAttributesType: FindingCode = "missing-attributes-type"
    /// `missing-attributes` (error): A start without `aps.attributes`.
    public static let missingAttributes: FindingCode = "missing-attributes"
    /// `attributes-type-mismatch` (error): No `ActivityAttributes` type of that exact name.
    public static let attributesTypeMismatch: FindingCode = "attributes-type-mismatch"
    /// `missing-alert-for-start` (error): A start without an `aps.alert` holding both title and body.
    public static let missingAlertForStart: FindingCode = "missing-alert-for-start"
    /// `alert-incomplete` (warning): An update / end alert without title or body.
    public static let alertIncomplete: FindingCode = "alert-incomplete"
    /// `silent-start` (warning): a push-to-start whose alert keys are present with empty strings starts silently.
    public static let silentStart: FindingCode = "silent-start"
    /// `timestamp-not-integer` (warning): `timestamp`, `stale-date` or `dismissal-date` has a fractional part; Apple uses whole UNIX seconds.
    public static let timestampNotInteger: FindingCode = "timestamp-not-integer"
    /// `unknown-header` (warning): an `apns-*` request header APNs does not define; names the `aps` key or header meant.
    public static let unknownHeader: FindingCode = "unknown-header"
    /// `misplaced-sound` (warning): `aps.sound` instead of `aps.alert.sound`.
    public static let misplacedSound: FindingCode = "misplaced-sound"
    /// `start-only-key` (warning): A start-only key on update / end.
    public static let startOnlyKey: FindingCode = "start-only-key"
    /// `two-push-inputs` (error): Both `input-push-token` and `input-push-channel`.
    public static let twoPushInputs: FindingCode = "two-push-inputs"
    /// `invalid-input-push-token` (error): `input-push-token` is not 1.
    public static let invalidInputPushToken: FindingCode = "invalid-input-push-token"
    /// `invalid-input-push-channel` (error): `input-push-channel` is not a base64 string.
    public static let invalidInputPushChannel: FindingCode = "invalid-input-push-channel"
    /// `missing-required-key` (error): A stored property decoding needs is absent.
    public static let missingRequiredKey: FindingCode = "missing-required-key"
    /// `unknown-attribute-key` (error): A key in `attributes` the type does not store.
    public static let unknownAttributeKey: FindingCode = "unknown-attribute-key"
    /// `unknown-content-state-key` (warning): A key in `content-state` the type does not store.
    public static let unknownContentStateKey: FindingCode = "unknown-content-state-key"
    /// `type-mismatch` (error): The JSON kind does not decode into the Swift type.
    public static let typeMismatch: FindingCode = "type-mismatch"
    /// `integer-out-of-range` (error): An integer outside the Swift type's range.
    public static let integerOutOfRange: FindingCode = "integer-out-of-range"
    /// `enum-value-invalid` (error): Not one of the enum's raw values.
    public static let enumValueInvalid: FindingCode = "enum-value-invalid"
    /// `date-not-numeric` (error): A `Date` given as a string.
    public static let dateNotNumeric: FindingCode = "date-not-numeric"
    /// `date-not-reference-epoch` (error): A `Date` given in UNIX seconds (decodes ~31 years late).
    public static let dateNotReferenceEpoch: FindingCode = "date-not-reference-epoch"
    /// `custom-date-implausible` (warning): a date in the app's own unit that decodes but lands far from now in a
    /// way that suggests the wrong unit (milliseconds sent as seconds, seconds as milliseconds, seconds since 2001).
    public static let customDateImplausible: FindingCode = "custom-date-implausible"
    /// `fcm-envelope-invalid` (error): an FCM message whose `apns` is missing or not an object, whose
    /// `apns.headers` is not an object, or a header value that is not a string (FCM answers 400 INVALID_ARGUMENT).
    public static let fcmEnvelopeInvalid: FindingCode = "fcm-envelope-invalid"
    /// `fcm-missing-live-activity-token` (error): an FCM message without `apns.live_activity_token`; FCM then
    /// sends an ordinary notification and does not set `apns-push-type` / `apns-topic`.
    public static let fcmMissingLiveActivityToken: FindingCode = "fcm-missing-live-activity-token"
    /// `schema-unresolved` (info): A type the schema reader cannot resolve; its values are not judged.
    public static let schemaUnresolved: FindingCode = "schema-unresolved"
    /// `missing-push-type` (error): No `apns-push-type` header.
    public static let missingPushType: FindingCode = "missing-push-type"
    /// `wrong-push-type` (error): `apns-push-type` is not `liveactivity`.
    public static let wrongPushType: FindingCode = "wrong-push-type"
    /// `missing-topic` (error): No `apns-topic` header.
    public static let missingTopic: FindingCode = "missing-topic"
    /// `wrong-topic-suffix` (error): `apns-topic` does not end with `.push-type.liveactivity`.
    public static let wrongTopicSuffix: FindingCode = "wrong-topic-suffix"
    /// `invalid-priority` (error): `apns-priority` not 5 or 10 (broadcast: 1, 5, 10).
    public static let invalidPriority: FindingCode = "invalid-priority"
    /// `expiration-zero-for-start` (warning): A start with `apns-expiration: 0`.
    public static let expirationZeroForStart: FindingCode = "expiration-zero-for-start"
    /// `invalid-expiration` (error): `apns-expiration` is not UNIX seconds (added code; APNs: BadExpirationDate).
    public static let invalidExpiration: FindingCode = "invalid-expiration"
    /// `invalid-apns-id` (error): `apns-id` is not a UUID (added code; APNs: BadMessageId).
    public static let invalidAPNsID: FindingCode = "invalid-apns-id"
    /// `collapse-id-too-long` (error): `apns-collapse-id` over 64 bytes (added code; APNs: BadCollapseId).
    public static let collapseIDTooLong: FindingCode = "collapse-id-too-long"
    /// `start-via-broadcast` (error): `event: start` on a broadcast request.
    public static let startViaBroadcast: FindingCode = "start-via-broadcast"
    /// `missing-channel-id` (error): A broadcast request without `apns-channel-id`.
    public static let missingChannelID: FindingCode = "missing-channel-id"
    /// `missing-expiration` (error): A broadcast request without `apns-expiration`.
    public static let missingExpiration: FindingCode = "missing-expiration"
    /// `missing-priority` (error): A broadcast request without `apns-priority` (added code).
    public static let missingPriority: FindingCode = "missing-priority"
    /// `topic-on-broadcast` (error): `apns-topic` on a broadcast request.
    public static let topicOnBroadcast: FindingCode = "topic-on-broadcast"
}
