/// A Firebase Cloud Messaging HTTP v1 message that carries a Live Activity push: `{"message": {…}}` or the
/// message object itself, whose `apns` object holds `live_activity_token`, `headers` (APNs request headers,
/// string values) and `payload` (the APNs body). FCM sends `payload` to APNs re-encoded as compact JSON and
/// sets `apns-push-type` and `apns-topic` itself for Live Activity tokens.
/// Source: Firebase, "Send Live Activity updates" / REST `projects.messages` (`ApnsConfig`); every Firebase
/// Admin SDK sends Live Activities this way.
struct FCMEnvelope {
    /// Dotted path of the `apns` object: `message.apns` or `apns`.
    let apnsPath: String
    let apns: JSONNode
    /// `apns.payload`, when present.
    let payload: JSONMember?
    /// `apns.headers`, when present and an object.
    let headers: [JSONMember]?
    /// `apns.headers` when present but not an object.
    let malformedHeaders: JSONMember?
    /// `apns.live_activity_token` is a non-empty string: only then does FCM send to the Live Activity and set
    /// `apns-push-type` and `apns-topic` itself.
    let hasLiveActivityToken: Bool

    /// The envelope around a body, or nil when the body is an APNs payload (it has `aps`) or no FCM message.
    /// Costs one member lookup on an ordinary payload.
    init?(root: JSONNode) {
        guard let members = root.value.members, !members.contains(where: { $0.key == "aps" }) else { return nil }
        if let message = members.first(where: { $0.key == "message" })?.value, let apns = message["apns"],
           apns.value.members != nil {
            apnsPath = "message.apns"
            self.apns = apns
        } else if let apns = members.first(where: { $0.key == "apns" })?.value, apns.value.members != nil {
            apnsPath = "apns"
            self.apns = apns
        } else {
            return nil
        }
        payload = apns.member("payload")
        let headersMember = apns.member("headers")
        headers = headersMember?.value.value.members
        malformedHeaders = headersMember.flatMap { $0.value.value.members == nil ? $0 : nil }
        if case .string(let token)? = apns["live_activity_token"]?.value, !token.isEmpty { hasLiveActivityToken = true } else { hasLiveActivityToken = false }
    }

    /// An FCM message (`{"message": …}`, or an object with `token`/`topic`/`notification` and an `apns` key) whose
    /// `apns` is missing or not an object: where and what to say. nil for anything else (then the body is judged
    /// as a bare APNs payload). Runs only when the body has no `aps`.
    static func brokenMessage(root: JSONNode) -> (path: String, position: SourcePosition, message: String, fix: String)? {
        guard let members = root.value.members, !members.contains(where: { $0.key == "aps" }) else { return nil }
        let fix = "put the APNs body in message.apns.payload ({\"aps\": {\"timestamp\": …, \"event\": …, \"content-state\": {…}}}) and the activity's push token in message.apns.live_activity_token"
        let message: JSONNode
        let prefix: String
        if let m = members.first(where: { $0.key == "message" })?.value, m.value.members != nil {
            message = m
            prefix = "message."
        } else if members.contains(where: { ["apns", "token", "topic", "notification", "android", "webpush"].contains($0.key) }) {
            message = root
            prefix = ""
        } else {
            return nil
        }
        if let apns = message.member("apns") {
            return (prefix + "apns", apns.value.position,
                    "\(prefix)apns is \(apns.value.value.kindWithArticle), not an object; FCM refuses the message (400 INVALID_ARGUMENT) and no Live Activity push is sent", fix)
        }
        let notification = message["notification"] != nil ? " (its notification is an ordinary alert, not a Live Activity update)" : ""
        return (prefix + "apns.payload", message.position,
                "this FCM message has no \(prefix)apns, so FCM sends APNs no Live Activity body\(notification)", fix)
    }

    /// `apns.headers` as APNs request headers (numbers and booleans as their text), with each name's position.
    var requestHeaders: (APNsHeaders, [String: SourcePosition])? {
        guard let headers else { return nil }
        var result = APNsHeaders()
        var positions: [String: SourcePosition] = [:]
        for member in headers {
            switch member.value.value {
            // Non-string values are reported (`fcm-envelope-invalid`: FCM answers 400) and judged as their text.
            case .string(let s): result[member.key] = s
            case .number(let n): result[member.key] = n.lexeme
            case .bool(let b): result[member.key] = b ? "true" : "false"
            default: continue
            }
            positions[member.key.lowercased()] = member.keyPosition
        }
        return (result, positions)
    }

    /// A finding's path on the bare payload rewritten into the envelope (`aps.event` →
    /// `message.apns.payload.aps.event`, `$` → `message.apns.payload`, `headers.apns-priority` →
    /// `message.apns.headers.apns-priority`).
    func envelopePath(_ path: String) -> String {
        if path == "$" { return apnsPath + ".payload" }
        if path.hasPrefix("headers.") { return apnsPath + "." + path }
        return apnsPath + ".payload." + path
    }
}
