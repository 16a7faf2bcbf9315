/// What one `liveactivitiesd` log line means: a stable kebab-case name (open set, like ``FindingCode``)
/// plus the catalog mapping the device's log text to it and to the likely causes.
///
/// Source of the texts: `live-activity-push.md` §7 ([R1] decompiled SessionPushNotifications, [R2]
/// blacktop/ipsw-diffs string tables of SessionPushNotifications and SessionCore, [F3] Apple forum thread
/// 799505 for the budget line). The text → cause mapping is inference: the device logs the same generic
/// line for several payload mistakes, so each kind lists every finding code that can produce it.
public struct LogEventKind: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// `missing-usable-attributes`: `liveactivitiesd` logged a line containing "Incoming message does not contain usable attributes".
    public static let missingUsableAttributes: LogEventKind = "missing-usable-attributes"
    /// `unserializable-attributes`: `liveactivitiesd` logged a line containing "Incoming message contains attributes that cannot be serialized to data".
    public static let unserializableAttributes: LogEventKind = "unserializable-attributes"
    /// `missing-event`: `liveactivitiesd` logged a line containing "Incoming message does not contain an event type".
    public static let missingEvent: LogEventKind = "missing-event"
    /// `illegal-event`: `liveactivitiesd` logged a line containing "Incoming message contains an illegal event type".
    public static let illegalEvent: LogEventKind = "illegal-event"
    /// `missing-timestamp`: `liveactivitiesd` logged a line containing "Incoming message does not contain a timestamp".
    public static let missingTimestamp: LogEventKind = "missing-timestamp"
    /// `missing-content-state`: `liveactivitiesd` logged a line containing "Incoming message does not contain a payload".
    public static let missingContentState: LogEventKind = "missing-content-state"
    /// `unserializable-content-state`: `liveactivitiesd` logged a line containing "Incoming message contains a payload that cannot be serialized to data".
    public static let unserializableContentState: LogEventKind = "unserializable-content-state"
    /// `unusable-content-state`: `liveactivitiesd` logged a line containing "Incoming message does not contain a usable payload".
    public static let unusableContentState: LogEventKind = "unusable-content-state"
    /// `two-push-inputs`: `liveactivitiesd` logged a line containing "Incoming message contains two forms of push input".
    public static let twoPushInputs: LogEventKind = "two-push-inputs"
    /// `unsupported-event-for-push-to-start`: `liveactivitiesd` logged a line containing "Unsupported push notification event type for pushToStart subscription".
    public static let unsupportedEventForPushToStart: LogEventKind = "unsupported-event-for-push-to-start"
    /// `unsupported-event-for-activity`: `liveactivitiesd` logged a line containing "Unsupported push notification event type for activity subscription".
    public static let unsupportedEventForActivity: LogEventKind = "unsupported-event-for-activity"
    /// `push-to-start-budget-exceeded`: `liveactivitiesd` logged a line containing "Push-to-start budget exceeded for".
    public static let pushToStartBudgetExceeded: LogEventKind = "push-to-start-budget-exceeded"
    /// `frequent-updates-not-allowed-for-push-to-start`: `liveactivitiesd` logged a line containing "Cannot request frequent updates for push-to-start subscription".
    public static let frequentUpdatesNotAllowed: LogEventKind = "frequent-updates-not-allowed-for-push-to-start"
    /// `subscription-missing`: `liveactivitiesd` logged a line containing "Subscription does not exist".
    public static let subscriptionMissing: LogEventKind = "subscription-missing"
    /// `subscription-invalid`: `liveactivitiesd` logged a line containing "Subscription is invalid".
    public static let subscriptionInvalid: LogEventKind = "subscription-invalid"
    /// `subscription-unexpected-type`: `liveactivitiesd` logged a line containing "Subscription for activity has unexpected type".
    public static let subscriptionUnexpectedType: LogEventKind = "subscription-unexpected-type"
    /// `start-without-alert`: `liveactivitiesd` logged a line containing "Received start without an alert configuration".
    public static let startWithoutAlert: LogEventKind = "start-without-alert"
    /// `start-without-payload`: `liveactivitiesd` logged a line containing "Received start without a payload".
    public static let startWithoutPayload: LogEventKind = "start-without-payload"
    /// `decode-failure-start`: `liveactivitiesd` logged a line containing "Could not create a new activity from push notification".
    public static let decodeFailureStart: LogEventKind = "decode-failure-start"
    /// `decode-failure-update`: `liveactivitiesd` logged a line containing "Could not create an update payload from push notification".
    public static let decodeFailureUpdate: LogEventKind = "decode-failure-update"
    /// "Incoming message could not be parsed" (quoted in a field report; exact origin unknown).
    public static let messageNotParsed: LogEventKind = "message-not-parsed"
    /// `received-push-to-start`: `liveactivitiesd` logged a line containing "Received pushToStart notification for".
    public static let receivedPushToStart: LogEventKind = "received-push-to-start"
    /// `activity-started`: `liveactivitiesd` logged a line reading exactly "Activity started".
    public static let activityStarted: LogEventKind = "activity-started"
}

/// One row of the line → kind → causes table.
public struct LogLinePattern: Sendable {
    /// How a pattern's text is compared with a log message.
    public enum Match: Sendable {
        /// The message contains this text (the process filter keeps look-alikes from other processes out).
        case contains(String)
        /// The message is exactly this text (short lines that could otherwise appear inside longer ones).
        case exactly(String)
    }

    /// The kind a matching line has.
    public let kind: LogEventKind
    /// The text that identifies the line.
    public let match: Match
    /// Finding codes a payload can carry that make the device print this line.
    public let payloadCauses: [FindingCode]
    /// Causes no payload rule can see (token kind, budget, subscription state) — `findings.md` "Delivery causes".
    public let deliveryCauses: [String]
    /// True for lines that report success or progress, not a rejection.
    public var isInformational: Bool { payloadCauses.isEmpty && deliveryCauses.isEmpty }

    /// Payload causes then delivery causes, as `likely_causes` lists them.
    public var likelyCauses: [String] { payloadCauses.map(\.rawValue) + deliveryCauses }

    func matches(_ message: String) -> Bool {
        switch match {
        case .contains(let text): return message.contains(text)
        case .exactly(let text): return message == text || message.hasPrefix(text + ":")
        }
    }
}

/// The catalog of `liveactivitiesd` lines the analyzer recognises (spec §7, `logs/README.md` table).
public enum LogLineCatalog {
    private static let schemaDecode: [FindingCode] = [
        "missing-required-key", "type-mismatch", "enum-value-invalid", "date-not-numeric", "null-value",
    ]
    private static let tokenCauses = ["token-of-ended-or-unknown-activity", "stale-push-to-start-token"]

    /// Ordered: the first pattern that matches a message wins.
    public static let patterns: [LogLinePattern] = [
        .init(kind: .missingUsableAttributes, match: .contains("Incoming message does not contain usable attributes"),
              payloadCauses: ["attributes-outside-aps", "missing-attributes", "missing-attributes-type",
                              "attributes-not-object", "attributes-type-mismatch", "unknown-attribute-key"]
                  + schemaDecode, deliveryCauses: []),
        .init(kind: .unserializableAttributes,
              match: .contains("Incoming message contains attributes that cannot be serialized to data"),
              payloadCauses: ["attributes-not-object"], deliveryCauses: []),
        .init(kind: .missingEvent, match: .contains("Incoming message does not contain an event type"),
              payloadCauses: ["missing-event", "aps-key-outside-aps", "invalid-event"], deliveryCauses: []),
        .init(kind: .illegalEvent, match: .contains("Incoming message contains an illegal event type"),
              payloadCauses: ["invalid-event"], deliveryCauses: []),
        .init(kind: .missingTimestamp, match: .contains("Incoming message does not contain a timestamp"),
              payloadCauses: ["missing-timestamp", "aps-key-outside-aps", "invalid-timestamp"], deliveryCauses: []),
        .init(kind: .unusableContentState, match: .contains("Incoming message does not contain a usable payload"),
              payloadCauses: ["missing-content-state", "content-state-not-object"], deliveryCauses: []),
        .init(kind: .missingContentState, match: .contains("Incoming message does not contain a payload"),
              payloadCauses: ["missing-content-state", "content-state-outside-aps", "unknown-aps-key",
                              "content-state-not-object"], deliveryCauses: []),
        .init(kind: .unserializableContentState,
              match: .contains("Incoming message contains a payload that cannot be serialized to data"),
              payloadCauses: ["content-state-not-object"], deliveryCauses: []),
        .init(kind: .twoPushInputs, match: .contains("Incoming message contains two forms of push input"),
              payloadCauses: ["two-push-inputs"], deliveryCauses: []),
        .init(kind: .messageNotParsed, match: .contains("Incoming message could not be parsed"),
              payloadCauses: schemaDecode + ["attributes-type-mismatch", "unknown-attribute-key",
                                             "missing-content-state", "content-state-not-object"],
              deliveryCauses: []),
        .init(kind: .unsupportedEventForPushToStart,
              match: .contains("Unsupported push notification event type for pushToStart subscription"),
              payloadCauses: [], deliveryCauses: ["update-or-end-sent-to-push-to-start-token"]),
        .init(kind: .unsupportedEventForActivity,
              match: .contains("Unsupported push notification event type for activity subscription"),
              payloadCauses: [], deliveryCauses: ["start-sent-to-activity-update-token"]),
        .init(kind: .pushToStartBudgetExceeded, match: .contains("Push-to-start budget exceeded for"),
              payloadCauses: [], deliveryCauses: ["too-many-push-to-start-in-short-time"]),
        .init(kind: .frequentUpdatesNotAllowed,
              match: .contains("Cannot request frequent updates for push-to-start subscription"),
              payloadCauses: [], deliveryCauses: ["frequent-updates-requested-for-push-to-start"]),
        .init(kind: .subscriptionMissing, match: .contains("Subscription does not exist"),
              payloadCauses: [], deliveryCauses: tokenCauses),
        .init(kind: .subscriptionInvalid, match: .contains("Subscription is invalid"),
              payloadCauses: [], deliveryCauses: tokenCauses),
        .init(kind: .subscriptionUnexpectedType, match: .contains("Subscription for activity has unexpected type"),
              payloadCauses: [], deliveryCauses: tokenCauses),
        .init(kind: .startWithoutAlert, match: .contains("Received start without an alert configuration"),
              payloadCauses: ["missing-alert-for-start", "unknown-attribute-key", "aps-key-outside-aps",
                              "alert-incomplete"], deliveryCauses: []),
        .init(kind: .startWithoutPayload, match: .contains("Received start without a payload"),
              payloadCauses: ["missing-content-state", "content-state-outside-aps", "unknown-aps-key"],
              deliveryCauses: []),
        .init(kind: .decodeFailureStart, match: .contains("Could not create a new activity from push notification"),
              payloadCauses: schemaDecode + ["attributes-type-mismatch", "unknown-attribute-key"], deliveryCauses: []),
        .init(kind: .decodeFailureUpdate,
              match: .contains("Could not create an update payload from push notification"),
              payloadCauses: schemaDecode, deliveryCauses: []),
        .init(kind: .receivedPushToStart, match: .contains("Received pushToStart notification for"),
              payloadCauses: [], deliveryCauses: []),
        .init(kind: .activityStarted, match: .exactly("Activity started"), payloadCauses: [], deliveryCauses: []),
    ]

    /// Each pattern's text as UTF-8, for matching on bytes (String.contains is slow on Linux).
    private static let needles: [(bytes: [UInt8], exact: Bool)] = patterns.map { pattern in
        switch pattern.match {
        case .contains(let text): return (Array(text.utf8), false)
        case .exactly(let text): return (Array(text.utf8), true)
        }
    }

    /// The pattern a `liveactivitiesd` message matches, or nil for lines the analyzer does not report.
    public static func pattern(for message: String) -> LogLinePattern? {
        var text = message
        return text.withUTF8 { buf in
            for (index, needle) in needles.enumerated() {
                if needle.exact {
                    if buf.count == needle.bytes.count || (buf.count > needle.bytes.count && buf[needle.bytes.count] == 58),
                       buf.starts(with: needle.bytes) { return patterns[index] }
                } else if DeviceLogReader.contains(buf, needle.bytes) {
                    return patterns[index]
                }
            }
            return nil
        }
    }

    /// The pattern of a kind, or nil for a kind this catalog does not know.
    public static func pattern(of kind: LogEventKind) -> LogLinePattern? {
        patterns.first(where: { $0.kind == kind })
    }

    /// The bundle id when the line itself names it: the budget line (`… for <bundle>::pushToStart; …`) or a
    /// revealed `Received pushToStart notification for <bundle>`. Redacted values (`<private>`) give nil.
    public static func bundle(in message: String, kind: LogEventKind) -> String? {
        let marker: String
        switch kind {
        case .pushToStartBudgetExceeded: marker = "budget exceeded for "
        case .receivedPushToStart: marker = "notification for "
        default: return nil
        }
        guard let markerRange = message.utf8.firstRange(of: marker.utf8) else { return nil }
        let rest = message.utf8[markerRange.upperBound...]
        var end = rest.endIndex
        var index = rest.startIndex
        while index < rest.endIndex {
            let byte = rest[index]
            if byte == 59 || byte == 10 || byte == 44 || byte == 32 { end = index; break } // ; newline , space
            if byte == 58, rest.index(after: index) < rest.endIndex, rest[rest.index(after: index)] == 58 { end = index; break } // ::
            index = rest.index(after: index)
        }
        let value = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        guard !value.isEmpty, !value.hasPrefix("<") else { return nil }
        return value
    }

}

import ActivityPushCore
import Foundation
