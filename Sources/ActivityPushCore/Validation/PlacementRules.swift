/// Body and placement rules: `invalid-json`, `json-too-deep`, `duplicate-key`, `missing-aps`,
/// `attributes-outside-aps`, `content-state-outside-aps`, `aps-key-outside-aps`, `unknown-aps-key`,
/// `null-value`, `payload-too-large`, `attributes-not-object`, `content-state-not-object`.
extension PushCheck {
    /// The APNs body limit: 4096 bytes for device-token pushes, 5120 for broadcast. Source: Apple, "Sending
    /// notification requests to APNs" and "Sending broadcast push notification requests to APNs" (413 PayloadTooLarge).
    var bodyLimit: Int { APNsLimits.bodyBytes(broadcast: isBroadcast) }

    /// `payload-too-large` on the whole body.
    mutating func checkBodySize(_ size: Int) {
        if size > bodyLimit {
            report(.payloadTooLarge, at: "$", .start,
                   "the body is \(size) bytes; APNs refuses bodies over \(bodyLimit) bytes for \(isBroadcast ? "broadcast" : "Live Activity") pushes (413 PayloadTooLarge)",
                   fix: "remove \(size - bodyLimit) bytes: shorten or downsample content-state, drop whitespace (send compact JSON)")
        }
    }

    /// `payload-too-large` on `content-state` or `attributes` alone (ActivityKit refuses Live Activity data over 4 KB).
    /// Source: Apple, `ActivityAttributes.ContentState` and "Displaying live data with Live Activities".
    mutating func checkPartSizes(bodySize: Int) {
        // A part's compact encoding is never longer than the body it was written in.
        guard bodySize > APNsLimits.liveActivityDataBytes else { return }
        for key in [LiveActivityKeys.contentState, LiveActivityKeys.attributes] {
            guard let loc = locate(key) else { continue }
            let size = JSONWriter.compact(loc.node.value).utf8.count
            if size > APNsLimits.liveActivityDataBytes {
                report(.payloadTooLarge, at: loc.path, loc.node.position,
                       "\(key) alone is \(size) bytes when encoded; ActivityKit refuses Live Activity data over \(APNsLimits.liveActivityDataBytes) bytes",
                       fix: "reduce \(key) by at least \(size - APNsLimits.liveActivityDataBytes) bytes (fewer array elements, shorter strings)")
            }
        }
    }

    /// `invalid-json`, `json-too-deep`, `duplicate-key`.
    mutating func reportJSONProblems(_ problems: [JSONProblem]) {
        for p in problems {
            switch p.kind {
            case .syntax:
                report(.invalidJSON, at: "$", p.position,
                       "not valid JSON: \(p.message); APNs answers 400 or the device cannot read it",
                       fix: "fix the JSON at line \(p.position.line), column \(p.position.column); generate the body with a JSON encoder, not string templates")
            case .tooDeep:
                report(.jsonTooDeep, at: "$", p.position, p.message, fix: "send a flat payload; Live Activity data is small")
            case .duplicateKey:
                report(.duplicateKey, at: p.path, p.position,
                       "\(p.message); decoders disagree on which value wins, so the device may read a different value than you meant",
                       fix: "keep one \"\(p.path.split(separator: ".").last ?? "")\" key")
            }
        }
    }

    /// `missing-aps`.
    mutating func checkAPSPresence() {
        guard let root else { return }
        guard let m = root.member("aps") else {
            let lookalike = root.value.members?.first(where: { ["aps", "apns"].contains(LiveActivityKeys.fold($0.key)) })
            report(.missingAPS, at: "aps", root.position,
                   "the body has no \"aps\" dictionary; the device's Live Activity parser reads everything from aps and drops this push",
                   fix: lookalike.map { "rename \"\($0.key)\" to \"aps\" (lowercase, exactly)" }
                       ?? "wrap timestamp, event, content-state (and for start attributes-type, attributes, alert) in \"aps\": {…}")
            return
        }
        guard m.value.value.members != nil else {
            report(.missingAPS, at: "aps", m.value.position,
                   "\"aps\" is \(m.value.value.kindWithArticle), not a dictionary; the device drops this push",
                   fix: "make aps an object: \"aps\": {\"timestamp\": …, \"event\": …, \"content-state\": {…}}")
            return
        }
        aps = m.value
    }

    /// `attributes-outside-aps`, `content-state-outside-aps`, `aps-key-outside-aps`: Live Activity keys at the root.
    /// The device reads them only inside `aps` (field report, trap 1). Their contents are still judged (at their
    /// root paths) so every cause shows in one run.
    mutating func checkRootKeys() {
        guard let members = root?.value.members else { return }
        for m in members where m.key != "aps" {
            let insideToo = aps?.member(m.key) != nil
            let also = insideToo ? " (aps also has one; the device uses only that)" : ""
            switch m.key {
            case LiveActivityKeys.attributes, LiveActivityKeys.attributesType:
                report(.attributesOutsideAPS, at: m.key, m.keyPosition,
                       "\"\(m.key)\" is at the payload root\(also); the device reads it only inside aps, so the start fails with \"Incoming message does not contain usable attributes\"",
                       fix: "move \"\(m.key)\" into the \"aps\" dictionary")
            case LiveActivityKeys.contentState:
                report(.contentStateOutsideAPS, at: m.key, m.keyPosition,
                       "\"content-state\" is at the payload root\(also); the device reads it only inside aps (\"Incoming message does not contain a payload\")",
                       fix: "move \"content-state\" into the \"aps\" dictionary")
            case _ where LiveActivityKeys.all.contains(m.key) || m.key == "sound":
                report(.apsKeyOutsideAPS, at: m.key, m.keyPosition,
                       "\"\(m.key)\" is a Live Activity aps key but sits at the payload root\(also); the device ignores it there",
                       fix: "move \"\(m.key)\" into the \"aps\" dictionary")
            default:
                continue
            }
        }
    }

    /// `unknown-aps-key`: keys inside `aps` the Live Activity parser does not read, with the likely intended key.
    /// `aps.sound` is `misplaced-sound` (in `checkAlert`).
    mutating func checkAPSKeys() {
        guard let members = aps?.value.members else { return }
        for index in members.indices where !LiveActivityKeys.all.contains(members[index].key) && members[index].key != "sound" {
            let m = members[index]
            if let intended = LiveActivityKeys.intendedKey(for: m.key) {
                let present = aps?.member(intended) != nil
                report(.unknownAPSKey, at: "aps." + m.key, m.keyPosition,
                       "\"\(m.key)\" is not a Live Activity key; the device ignores it" + (present ? "" : " and sees no \"\(intended)\""),
                       fix: present ? "remove \"\(m.key)\"" : "rename \"\(m.key)\" to \"\(intended)\"")
            } else if LiveActivityKeys.ordinaryNotificationKeys.contains(m.key) {
                report(.unknownAPSKey, at: "aps." + m.key, m.keyPosition,
                       "\"\(m.key)\" is an ordinary-notification key; Live Activity pushes do not use it",
                       fix: "remove \"\(m.key)\" from aps")
            } else {
                report(.unknownAPSKey, at: "aps." + m.key, m.keyPosition,
                       "\"\(m.key)\" is not an aps key; APNs and the device ignore custom keys inside aps",
                       fix: "remove it; Live Activity data belongs in content-state (or attributes for a start)")
            }
        }
    }

    /// `content-state-not-object`, `missing-content-state`, and `null-value` inside it.
    /// The device parser rejects a message without content-state on every event, end included ("Incoming message
    /// does not contain a payload"; spec §1.1, project decision).
    mutating func checkContentState() {
        guard aps != nil || root?.member(LiveActivityKeys.contentState) != nil else { return }
        guard let cs = locate(LiveActivityKeys.contentState) else {
            let renamed = aps?.value.members?.first(where: { LiveActivityKeys.intendedKey(for: $0.key) == LiveActivityKeys.contentState })
            report(.missingContentState, at: "aps.content-state", aps?.position,
                   "aps has no \"content-state\"; the device rejects the message (\"Incoming message does not contain a payload\")" + (event == .end ? " — an end needs the final content state too" : ""),
                   fix: renamed.map { "rename \"\($0.key)\" to \"content-state\"" } ?? "add \"content-state\": {…} with the ContentState properties")
            return
        }
        guard cs.node.value.members != nil else {
            report(.contentStateNotObject, at: cs.path, cs.node.position,
                   "content-state is \(cs.node.value.kindWithArticle), not an object; the device cannot decode ContentState from it",
                   fix: "send content-state as a JSON object of the ContentState properties (not a JSON string holding JSON)")
            return
        }
        checkNulls(in: cs.node, path: cs.path)
    }

    /// `null-value`: a JSON null anywhere inside attributes / content-state. A field report saw null break a start
    /// although the property was optional (spec §0), so the fix is always to omit the key.
    mutating func checkNulls(in node: JSONNode, path: String) {
        var components = [path]
        checkNulls(in: node, components: &components)
    }

    private mutating func checkNulls(in node: JSONNode, components: inout [String]) {
        switch node.value {
        case .null:
            let path = components.joined(separator: ".")
            report(.nullValue, at: path, node.position,
                   "null here: a null broke decoding on devices even for an Optional property, so the activity is not started or updated",
                   fix: "omit the key instead of sending null")
        case .object(let members):
            // Index loops: copying each member to look at its kind costs more than the look.
            for index in members.indices where members[index].value.value.isContainerOrNull {
                components.append(members[index].key)
                checkNulls(in: members[index].value, components: &components)
                components.removeLast()
            }
        case .array(let elements):
            for index in elements.indices where elements[index].value.isContainerOrNull {
                components.append(String(index))
                checkNulls(in: elements[index], components: &components)
                components.removeLast()
            }
        default:
            break
        }
    }
}

extension JSONValue {
    var isContainerOrNull: Bool {
        switch self {
        case .object, .array, .null: return true
        default: return false
        }
    }
}
