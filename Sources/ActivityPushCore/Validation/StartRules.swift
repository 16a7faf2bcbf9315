import Foundation

/// Push-to-start and alert rules: `missing-alert-for-start`, `silent-start`, `alert-incomplete`, `misplaced-sound`,
/// `missing-attributes-type`, `missing-attributes`, `attributes-not-object`, `start-only-key`,
/// `two-push-inputs`, `invalid-input-push-token`, `invalid-input-push-channel`.
/// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications" (start needs
/// attributes-type, attributes, alert; iOS 18 input-push-token / input-push-channel); device parser [R1] reads
/// alert title/body/sound and builds an alert only when both title and body are present.
extension PushCheck {
    /// `missing-alert-for-start`, `silent-start`, `alert-incomplete`, `misplaced-sound`. On a start, present
    /// `title`/`body` keys count even with empty strings (LoopFollow PR #638 starts activities silently so).
    mutating func checkAlert() {
        if let sound = aps?.member("sound") {
            report(.misplacedSound, at: "aps.sound", sound.keyPosition,
                   "aps.sound is an ordinary-notification key; for a Live Activity the device plays only aps.alert.sound",
                   fix: "move \"sound\" into aps.alert")
        }
        let alert = locate(LiveActivityKeys.alert)
        let isStart = event == .start
        guard let alert else {
            if isStart {
                report(.missingAlertForStart, at: "aps.alert", aps?.position,
                       "a push-to-start without aps.alert is dropped by the device (\"Received start without an alert configuration\") although APNs answers 200",
                       fix: "add \"alert\": {\"title\": \"…\", \"body\": \"…\"} inside aps")
            }
            return
        }
        var missing: [String] = []
        var blank: [String] = []
        if let members = alert.node.value.members {
            for part in ["title", "body"] {
                guard let partNode = members.first(where: { $0.key == part })?.value else { missing.append(part); continue }
                switch partNode.value {
                case .string(let s) where !Self.isBlank(s): continue
                // Present but empty: the device still builds the alert (a start is kept), but shows no text.
                case .string(let s): blank.append(s.isEmpty ? "empty" : "whitespace only")
                case .object(let m) where m.contains(where: { $0.key == "loc-key" }): continue
                default: missing.append(part)
                }
            }
        } else {
            missing = ["title", "body"]
        }
        // Words for blank parts, built only when there are some (the common alert has none).
        let blankText = blank.isEmpty ? "" : blank.count == 2 && blank[0] != blank[1] ? "title \(blank[0]), body \(blank[1])" : "both \(blank[0])"
        if isStart, missing.isEmpty, blank.count == 2 {
            report(.silentStart, at: alert.path, alert.node.position,
                   "aps.alert has title and body, \(blankText): the device keeps the start (the keys are present) and the activity starts without a visible alert",
                   fix: "nothing to fix if a silent start is meant (keep both keys, even empty — without them the start is dropped); otherwise give title and body text")
            return
        }
        if missing.isEmpty, !blank.isEmpty {
            let which = blank.count == 2 ? "title and body, \(blankText)" : (unusablePart(alert) ?? "title or body") + " \(blank[0])"
            // A start with one blank part is kept (both keys are present) and shows the other: nothing to say.
            if !isStart, event != nil {
                report(.alertIncomplete, at: alert.path, alert.node.position,
                       "aps.alert has \(which), so the alert shows no \(blank.count == 2 ? "text" : "text there")",
                       fix: "give aps.alert \"title\" and \"body\" text, or remove the alert")
            }
            return
        }
        guard !missing.isEmpty else { return }
        let what = alert.node.value.members == nil
            ? "aps.alert is \(alert.node.value.kindWithArticle); the device reads only an alert dictionary with title and body"
            : "aps.alert has no usable \(missing.joined(separator: " or ")); the device builds an alert only when both title and body are present (strings or {\"loc-key\", \"loc-args\"})"
        if isStart {
            report(.missingAlertForStart, at: alert.path, alert.node.position,
                   what + ", so this start is dropped",
                   fix: "give aps.alert both \"title\" and \"body\"")
        } else if event != nil {
            report(.alertIncomplete, at: alert.path, alert.node.position, what + ", so no alert is shown",
                   fix: "give aps.alert both \"title\" and \"body\", or remove the alert")
        }
    }

    /// An alert text the device shows nothing for: empty or whitespace only.
    static func isBlank(_ text: String) -> Bool { text.allSatisfy(\.isWhitespace) }

    /// The first of the alert's `title` / `body` that is a blank string.
    private func unusablePart(_ alert: Located) -> String? {
        ["title", "body"].first { part in
            guard case .string(let s)? = alert.node.value.members?.first(where: { $0.key == part })?.value.value else { return false }
            return Self.isBlank(s)
        }
    }

    /// `missing-attributes-type`, `missing-attributes`, `attributes-not-object`, `start-only-key`,
    /// `two-push-inputs`, `invalid-input-push-token`, `invalid-input-push-channel`.
    mutating func checkStartKeys() {
        let startOnly = [LiveActivityKeys.attributesType, LiveActivityKeys.attributes,
                         LiveActivityKeys.inputPushToken, LiveActivityKeys.inputPushChannel]
        if let event, event != .start {
            for key in startOnly {
                guard let loc = locate(key) else { continue }
                report(.startOnlyKey, at: loc.path, loc.keyPosition,
                       "\"\(key)\" is read only on a start; on \(event) the device ignores it",
                       fix: "remove \"\(key)\" from \(event) pushes")
            }
        }
        if event == .start {
            if let attributesType = locate(LiveActivityKeys.attributesType) {
                if attributesType.node.value.stringValue == nil {
                    report(.missingAttributesType, at: attributesType.path, attributesType.node.position,
                           "attributes-type is \(attributesType.node.value.kindWithArticle); it must be the ActivityAttributes type's name as a string (\"Incoming message does not contain usable attributes\")",
                           fix: "send \"attributes-type\": \"<YourActivityAttributes type name>\"")
                }
            } else {
                report(.missingAttributesType, at: "aps.attributes-type", aps?.position,
                       "a start without aps.attributes-type: the device cannot tell which ActivityAttributes type to create (\"Incoming message does not contain usable attributes\")",
                       fix: "add \"attributes-type\": \"<YourActivityAttributes type name>\" inside aps")
            }
            if locate(LiveActivityKeys.attributes) == nil {
                report(.missingAttributes, at: "aps.attributes", aps?.position,
                       "a start without aps.attributes: the device cannot decode the activity's static attributes (\"Incoming message does not contain usable attributes\")",
                       fix: "add \"attributes\": {…} with the ActivityAttributes type's stored properties inside aps")
            }
        }
        if let attributes = locate(LiveActivityKeys.attributes) {
            if attributes.node.value.members == nil {
                report(.attributesNotObject, at: attributes.path, attributes.node.position,
                       "attributes is \(attributes.node.value.kindWithArticle), not an object (\"Incoming message contains attributes that cannot be serialized to data\")",
                       fix: "send attributes as a JSON object of the type's stored properties (not a JSON string holding JSON)")
            } else {
                checkNulls(in: attributes.node, path: attributes.path)
            }
        }
        let token = locate(LiveActivityKeys.inputPushToken)
        let channel = locate(LiveActivityKeys.inputPushChannel)
        if let token, let channel {
            report(.twoPushInputs, at: channel.path, channel.keyPosition,
                   "both input-push-token and input-push-channel are set; the device rejects the start (\"Incoming message contains two forms of push input\")",
                   fix: "keep one: input-push-token: 1 for a per-activity update token, or input-push-channel for a broadcast channel")
            _ = token
        }
        if let token, token.node.value.numberValue?.integralValue != 1 {
            report(.invalidInputPushToken, at: token.path, token.node.position,
                   "input-push-token must be the number 1; the device accepts no other value",
                   fix: "send \"input-push-token\": 1")
        }
        if let channel {
            if let s = channel.node.value.stringValue, Self.isBase64(s) {
                // fine
            } else {
                report(.invalidInputPushChannel, at: channel.path, channel.node.position,
                       "input-push-channel must be the base64 channel ID APNs returned in apns-channel-id when the channel was created",
                       fix: "send the channel ID string exactly as returned by POST /1/apps/<bundle>/channels")
            }
        }
    }

    static func isBase64(_ s: String) -> Bool { ChannelIDSpelling.isBase64(s) }
}
