import ActivityPushCore
import COpenSSL

/// Plays the phone's `liveactivitiesd` for pushes APNs accepted: runs the validator, then keeps per-token
/// state (push-to-start tokens, activities with their last applied timestamp, ended activities, the
/// push-to-start budget) and decides `started` / `updated` / `ended` / `ignored` / `rejected`.
///
/// Not thread-safe on its own: `MockAPNsState` calls it under its lock.
struct DeviceEmulator {
    let validator: Validator
    let pushToStartBudget: Int
    let pushToStartWindow: Double

    private enum TokenKind { case pushToStart, activity }
    private struct Activity {
        var lastTimestamp: Double
        var ended: Bool
    }
    private var kinds: [String: TokenKind] = [:]
    private var starts: [String: [Double]] = [:]
    private var activities: [String: Activity] = [:]
    private var channelActivities: [String: Activity] = [:]

    init(schema: ActivitySchema?, pushToStartBudget: Int, pushToStartWindow: Double) {
        validator = Validator(schema: schema)
        self.pushToStartBudget = pushToStartBudget
        self.pushToStartWindow = pushToStartWindow
    }

    /// Device-token push (`/3/device/<token>`) that APNs answered 200.
    mutating func deliver(body: [UInt8], headers: APNsHeaders, token: String, bundleID: String, now: Double) -> MockDeviceReport {
        let (event, timestamp, parsed) = Self.read(body)
        let report = validator.check(body: body, headers: headers, nowUnixSeconds: now)
        if let rejection = Self.parserRejection(report: report, event: event, timestamp: timestamp, parsed: parsed) {
            return rejection
        }
        let warnings = Self.warnings(report)
        let misread = Self.misreadCauses(report)
        guard let event, let timestamp else { return MockDeviceReport(outcome: .rejected, logLine: nil) }
        switch event {
        case "start":
            if kinds[token] == .activity {
                return MockDeviceReport(outcome: .rejected,
                                        logLine: "Unsupported push notification event type for activity subscription: start",
                                        causes: misread + [Self.delivery("start-sent-to-activity-update-token",
                                            "a start was sent to an activity's update token; starts go to the push-to-start token")],
                                        warnings: warnings)
            }
            kinds[token] = .pushToStart
            var recent = (starts[token] ?? []).filter { now - $0 < pushToStartWindow }
            if recent.count >= pushToStartBudget {
                starts[token] = recent
                return MockDeviceReport(outcome: .rejected,
                                        logLine: "Push-to-start budget exceeded for \(bundleID)::pushToStart; not starting activity",
                                        causes: misread + [Self.delivery("too-many-push-to-start-in-short-time",
                                            "\(recent.count) starts to this token within \(Int(pushToStartWindow)) s; the on-device push-to-start budget (about \(pushToStartBudget)) is not raisable")],
                                        warnings: warnings)
            }
            recent.append(now)
            starts[token] = recent
            let activityToken = Self.newActivityToken()
            kinds[activityToken] = .activity
            activities[activityToken] = Activity(lastTimestamp: timestamp, ended: false)
            return MockDeviceReport(outcome: .started, logLine: "Received pushToStart notification for <private>",
                                    causes: misread, warnings: warnings, activityToken: activityToken)
        case "update", "end":
            if kinds[token] == .pushToStart {
                return MockDeviceReport(outcome: .rejected,
                                        logLine: "Unsupported push notification event type for pushToStart subscription: \(event)",
                                        causes: misread + [Self.delivery("update-or-end-sent-to-push-to-start-token",
                                            "an \(event) was sent to a push-to-start token; send it to the activity's update token (pushTokenUpdates)")],
                                        warnings: warnings)
            }
            // A token first seen with update/end belongs to an activity the app started itself (Activity.request).
            kinds[token] = .activity
            var activity = activities[token] ?? Activity(lastTimestamp: -.infinity, ended: false)
            let result = Self.apply(event: event, timestamp: timestamp, to: &activity, misread: misread, warnings: warnings)
            activities[token] = activity
            return result
        default:
            return MockDeviceReport(outcome: .rejected, logLine: "Incoming message contains an illegal event type",
                                    causes: [MockDeviceCause(code: "invalid-event", path: "aps.event", severity: .error,
                                                             message: "event '\(event)' is not start, update or end")])
        }
    }

    /// Broadcast push (`/4/broadcasts/apps/<bundle>`) that APNs answered 200: every activity subscribed to the
    /// channel gets it; the mock keeps one such activity per channel.
    mutating func broadcast(body: [UInt8], headers: APNsHeaders, channelID: String, now: Double) -> MockDeviceReport {
        let (event, timestamp, parsed) = Self.read(body)
        let report = validator.check(body: body, headers: headers, nowUnixSeconds: now)
        if let rejection = Self.parserRejection(report: report, event: event, timestamp: timestamp, parsed: parsed) {
            return rejection
        }
        let warnings = Self.warnings(report)
        let misread = Self.misreadCauses(report)
        guard let event, let timestamp else { return MockDeviceReport(outcome: .rejected, logLine: nil) }
        if event == "start" {
            return MockDeviceReport(outcome: .rejected, logLine: "Unsupported push notification event type for activity subscription: start",
                                    causes: [MockDeviceCause(code: "start-via-broadcast", path: "aps.event", severity: .error,
                                                             message: "broadcast channels cannot start Live Activities; start with a push-to-start token and input-push-channel")],
                                    warnings: warnings)
        }
        var activity = channelActivities[channelID] ?? Activity(lastTimestamp: -.infinity, ended: false)
        let result = Self.apply(event: event, timestamp: timestamp, to: &activity, misread: misread, warnings: warnings)
        channelActivities[channelID] = activity
        return result
    }

    private static func apply(event: String, timestamp: Double, to activity: inout Activity,
                              misread: [MockDeviceCause], warnings: [MockDeviceCause]) -> MockDeviceReport {
        if activity.ended {
            return MockDeviceReport(outcome: .ignored, logLine: nil,
                                    causes: misread + [delivery("token-of-ended-or-unknown-activity",
                                        "the activity already ended; pushes after an end are ignored")], warnings: warnings)
        }
        if event == "end" {
            activity.ended = true
            activity.lastTimestamp = max(activity.lastTimestamp, timestamp)
            return MockDeviceReport(outcome: .ended, logLine: nil, causes: misread, warnings: warnings)
        }
        if timestamp < activity.lastTimestamp {
            return MockDeviceReport(outcome: .ignored, logLine: nil,
                                    causes: misread + [delivery("update-older-than-last-applied",
                                        "timestamp \(format(timestamp)) is older than the last applied \(format(activity.lastTimestamp)); send the current time")],
                                    warnings: warnings)
        }
        activity.lastTimestamp = timestamp
        return MockDeviceReport(outcome: .updated, logLine: nil, causes: misread, warnings: warnings)
    }

    // MARK: parser emulation

    /// `aps.event`, `aps.timestamp`, and whether the body was strict JSON with an `aps` object.
    private static func read(_ body: [UInt8]) -> (String?, Double?, Bool) {
        let doc = JSONReader.read(body)
        guard doc.problems.isEmpty, let root = doc.root, let aps = root["aps"], aps.value.members != nil else { return (nil, nil, false) }
        let event = aps["event"]?.value.stringValue
        let ts = aps["timestamp"]?.value.numberValue?.doubleValue
        return (event, ts.flatMap { $0.isFinite ? $0 : nil }, true)
    }

    /// Log line per finding code, in the order the device parser meets them ([R1]); `nil` line means a known
    /// silent drop (no public source quotes a line).
    private static let parserLines: [(codes: Set<String>, line: String?)] = [
        (["invalid-json", "duplicate-key", "missing-aps"], "Incoming message could not be parsed"),
        (["missing-content-state", "content-state-not-object", "content-state-outside-aps"], "Incoming message does not contain a payload"),
        (["missing-event"], "Incoming message does not contain an event type"),
        (["invalid-event"], "Incoming message contains an illegal event type"),
        (["missing-timestamp", "invalid-timestamp"], "Incoming message does not contain a timestamp"),
        (["two-push-inputs"], "Incoming message contains two forms of push input"),
        (["missing-attributes-type", "missing-attributes", "attributes-not-object", "attributes-outside-aps",
          "attributes-type-mismatch"], "Incoming message does not contain usable attributes"),
        (["unknown-attribute-key", "missing-required-key", "type-mismatch", "integer-out-of-range", "enum-value-invalid",
          "date-not-numeric", "null-value", "invalid-input-push-token", "invalid-input-push-channel"], "Incoming message could not be parsed"),
        (["missing-alert-for-start"], nil),
    ]

    /// Errors the device does not reject on, but mis-reads (a UNIX date read as 2001-based lands ~31 years late).
    private static let misreadCodes: Set<String> = ["date-not-reference-epoch", "timestamp-in-milliseconds", "stale-date-in-past",
                                                    "relevance-score-invalid"]

    private static func parserRejection(report: ValidationReport, event: String?, timestamp: Double?, parsed: Bool) -> MockDeviceReport? {
        let errors = report.errors.filter { !$0.path.hasPrefix("headers.") && !misreadCodes.contains($0.code.rawValue) }
        if !errors.isEmpty {
            let codes = Set(errors.map(\.code.rawValue))
            let line = parserLines.first(where: { !$0.codes.isDisjoint(with: codes) }).flatMap { $0.line }
            return MockDeviceReport(outcome: .rejected, logLine: line, causes: errors.map(cause), warnings: warnings(report))
        }
        // The validator found nothing, but the device still cannot read it (belt and braces).
        if !parsed {
            return MockDeviceReport(outcome: .rejected, logLine: "Incoming message could not be parsed",
                                    causes: [MockDeviceCause(code: "missing-aps", path: "aps", severity: .error,
                                                             message: "the body is not a JSON object with an aps object")])
        }
        if event == nil {
            return MockDeviceReport(outcome: .rejected, logLine: "Incoming message does not contain an event type",
                                    causes: [MockDeviceCause(code: "missing-event", path: "aps.event", severity: .error,
                                                             message: "aps.event is missing or not a string")])
        }
        if timestamp == nil {
            return MockDeviceReport(outcome: .rejected, logLine: "Incoming message does not contain a timestamp",
                                    causes: [MockDeviceCause(code: "missing-timestamp", path: "aps.timestamp", severity: .error,
                                                             message: "aps.timestamp is missing or not a number")])
        }
        return nil
    }

    private static func cause(_ f: Finding) -> MockDeviceCause {
        MockDeviceCause(code: f.code.rawValue, path: f.path, severity: f.severity, message: f.message)
    }

    private static func warnings(_ r: ValidationReport) -> [MockDeviceCause] {
        r.findings.filter { $0.severity != .error }.map(cause)
    }

    private static func misreadCauses(_ r: ValidationReport) -> [MockDeviceCause] {
        r.errors.filter { misreadCodes.contains($0.code.rawValue) && !$0.path.hasPrefix("headers.") }.map(cause)
    }

    private static func delivery(_ code: String, _ message: String) -> MockDeviceCause {
        MockDeviceCause(code: code, path: nil, severity: .error, message: message)
    }

    private static func format(_ t: Double) -> String {
        t == t.rounded() && abs(t) < 1e15 ? String(Int64(t)) : String(t)
    }

    /// 32 random bytes as 64 lowercase hex digits, like an activity update token.
    private static func newActivityToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        if RAND_bytes(&bytes, 32) != 1 {
            for i in 0..<32 { bytes[i] = UInt8.random(in: 0...255) }
        }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}

import Foundation
