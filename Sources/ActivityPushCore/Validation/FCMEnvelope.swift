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
        headers = apns["headers"]?.value.members
    }

    /// `apns.headers` as APNs request headers (numbers and booleans as their text), with each name's position.
    var requestHeaders: (APNsHeaders, [String: SourcePosition])? {
        guard let headers else { return nil }
        var result = APNsHeaders()
        var positions: [String: SourcePosition] = [:]
        for member in headers {
            switch member.value.value {
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
