import ActivityPushCore

/// What the emulated device did with a push APNs accepted. An open set of strings.
public struct MockDeviceOutcome: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    /// A push-to-start created an activity.
    public static let started = MockDeviceOutcome(rawValue: "started")
    /// An update was applied.
    public static let updated = MockDeviceOutcome(rawValue: "updated")
    /// An end was applied (end is applied even with an old timestamp).
    public static let ended = MockDeviceOutcome(rawValue: "ended")
    /// Dropped without an error: older than the last applied update, or sent to an ended activity.
    public static let ignored = MockDeviceOutcome(rawValue: "ignored")
    /// The device's parser or decoder rejected it, or a budget/subscription rule refused it.
    public static let rejected = MockDeviceOutcome(rawValue: "rejected")
}

/// One reason behind a device outcome: a validator finding code (see findings.md) or a delivery cause
/// (`update-older-than-last-applied`, `update-or-end-sent-to-push-to-start-token`, …).
public struct MockDeviceCause: Sendable, Hashable {
    public var code: String
    /// Dotted JSON path (`aps.attributes.alert_title`), nil for delivery causes.
    public var path: String?
    public var severity: Severity
    public var message: String

    public init(code: String, path: String?, severity: Severity, message: String) {
        self.code = code
        self.path = path
        self.severity = severity
        self.message = message
    }
}

/// The emulated device's verdict on one accepted (200) push.
public struct MockDeviceReport: Sendable, Hashable {
    public var outcome: MockDeviceOutcome
    /// The line `liveactivitiesd` would log (spec §7; `<private>` where the device redacts), nil when no public
    /// source knows one (e.g. a start silently dropped for lack of an alert, an ignored old update).
    public var logLine: String?
    /// Why: the errors that decided the outcome, then the delivery cause.
    public var causes: [MockDeviceCause]
    /// Warnings that did not change the outcome.
    public var warnings: [MockDeviceCause]
    /// For `started`: the update token the mock issued for the new activity (what `pushTokenUpdates` would hand
    /// the app); send updates and ends to it. Mock-made, so it is journaled in full.
    public var activityToken: String?

    public init(outcome: MockDeviceOutcome, logLine: String?, causes: [MockDeviceCause] = [],
                warnings: [MockDeviceCause] = [], activityToken: String? = nil) {
        self.outcome = outcome
        self.logLine = logLine
        self.causes = causes
        self.warnings = warnings
        self.activityToken = activityToken
    }
}
