import Foundation

/// APNs request header rules: `missing-push-type`, `wrong-push-type`, `missing-topic`, `wrong-topic-suffix`,
/// `invalid-priority`, `expiration-zero-for-start`, `invalid-expiration`, `invalid-apns-id`,
/// `collapse-id-too-long`, `missing-channel-id`, `missing-expiration`, `missing-priority`, `topic-on-broadcast`,
/// `unknown-header`.
/// (`start-via-broadcast` needs the event and is reported in `Validator.swift`.)
/// Source: Apple, "Sending notification requests to APNs", "Sending broadcast push notification requests to
/// APNs"; spec §2.2–§2.3.
extension PushCheck {
    /// Runs after the body rules (`Validator.run` defers it), so `event` is already known.
    mutating func checkHeaders(_ h: APNsHeaders) {
        let broadcast = isBroadcast
        switch h.pushType {
        case nil where envelope?.hasLiveActivityToken == true:
            break  // FCM sets apns-push-type itself for a Live Activity token
        case nil:
            report(.missingPushType, at: "headers.apns-push-type", nil,
                   "no apns-push-type header; Live Activity pushes must say liveactivity or APNs treats them as alerts and the device ignores them",
                   fix: "add the header apns-push-type: liveactivity")
        case let v? where v == "liveactivity" || (broadcast && v.lowercased() == "liveactivity"):
            break
        case let v?:
            report(.wrongPushType, at: "headers.apns-push-type", nil,
                   "apns-push-type is \"\(v)\"; Live Activity pushes need \"liveactivity\" (APNs answers 400 InvalidPushType or the device ignores the push)",
                   fix: "set apns-push-type: liveactivity")
        }
        if broadcast {
            if let topic = h.topic {
                report(.topicOnBroadcast, at: "headers.apns-topic", nil,
                       "a broadcast request carries the bundle id in its path; apns-topic \"\(topic)\" is not used (APNs: TopicDisallowed)",
                       fix: "remove the apns-topic header from broadcast requests")
            }
            if (h.channelID ?? "").isEmpty {
                report(.missingChannelID, at: "headers.apns-channel-id", nil,
                       "a broadcast request needs apns-channel-id (APNs: MissingChannelId)",
                       fix: "set apns-channel-id to the base64 channel ID from channel creation")
            }
            if h.expiration == nil {
                report(.missingExpiration, at: "headers.apns-expiration", nil,
                       "broadcast requests require apns-expiration",
                       fix: "set apns-expiration: 0 (required for channels with storage policy 0), or a UNIX time for policy 1")
            }
            if h.priority == nil {
                report(.missingPriority, at: "headers.apns-priority", nil,
                       "broadcast requests require apns-priority (10, 5 or 1)",
                       fix: "set apns-priority: 10 (or 5 to save budget)")
            }
        } else {
            switch h.topic {
            case nil where envelope?.hasLiveActivityToken == true:
                break  // FCM sets apns-topic (bundle id + .push-type.liveactivity) itself
            case nil:
                report(.missingTopic, at: "headers.apns-topic", nil,
                       "no apns-topic; with token auth APNs requires it (400 MissingTopic)",
                       fix: "set apns-topic: <bundle id>.push-type.liveactivity")
            case let topic? where !topic.hasSuffix(LiveActivityPush.topicSuffix):
                let suggestion = topic.lowercased().hasSuffix(LiveActivityPush.topicSuffix)
                    ? String(topic.dropLast(LiveActivityPush.topicSuffix.count)) + LiveActivityPush.topicSuffix
                    : topic + LiveActivityPush.topicSuffix
                report(.wrongTopicSuffix, at: "headers.apns-topic", nil,
                       "apns-topic \"\(topic)\" lacks the .push-type.liveactivity suffix; APNs answers 400 DeviceTokenNotForTopic for Live Activity tokens",
                       fix: "set apns-topic: \(suggestion)")
            default:
                break
            }
        }
        if let p = h.priority {
            let allowed = broadcast ? ["10", "5", "1"] : ["10", "5"]
            if !allowed.contains(p.trimmingCharacters(in: .whitespaces)) {
                report(.invalidPriority, at: "headers.apns-priority", nil,
                       "apns-priority \"\(p)\" is not \(allowed.joined(separator: " or ")) (APNs: BadPriority)",
                       fix: "use 10 (immediate, counts against the hourly Live Activity budget) or 5 (does not)")
            }
        }
        if let e = h.expiration {
            if let v = Int64(e.trimmingCharacters(in: .whitespaces)), v >= 0 {
                if v == 0, !broadcast, event == .start {
                    report(.expirationZeroForStart, at: "headers.apns-expiration", nil,
                           "apns-expiration 0 means deliver now or never: a phone offline for a moment never gets this start",
                           fix: "set apns-expiration to now + a few minutes in UNIX seconds, e.g. \(JSONNumber.wholeText((now ?? Date().timeIntervalSince1970) + 600))")
                }
                if Double(v) >= Self.millisecondsThreshold {
                    report(.invalidExpiration, at: "headers.apns-expiration", nil,
                           "apns-expiration \(v) looks like milliseconds; it is UNIX seconds",
                           fix: "divide by 1000: \(v / 1000)")
                }
            } else {
                report(.invalidExpiration, at: "headers.apns-expiration", nil,
                       "apns-expiration \"\(e)\" is not a whole number of UNIX seconds (APNs: BadExpirationDate)",
                       fix: "send UNIX seconds, or 0 to deliver once without storing")
            }
        }
        if let id = h.apnsID, !UUIDText.isValid(id) {
            report(.invalidAPNsID, at: "headers.apns-id", nil,
                   "apns-id \"\(id)\" is not a UUID (APNs: BadMessageId)",
                   fix: "send a canonical lowercase UUID such as \(UUID().uuidString.lowercased()), or omit apns-id")
        }
        checkUnknownHeaders(h)
        if let c = h.collapseID, c.utf8.count > APNsLimits.collapseIDBytes {
            report(.collapseIDTooLong, at: "headers.apns-collapse-id", nil,
                   "apns-collapse-id is \(c.utf8.count) bytes; APNs allows \(APNsLimits.collapseIDBytes) (BadCollapseId)",
                   fix: "shorten it to at most \(APNsLimits.collapseIDBytes) bytes, e.g. a hash of the activity id")
        }
    }

    /// The `apns-*` request headers APNs defines (``APNsHeaderName/requestHeaders``), by name.
    static let knownAPNsHeaders: [String] = APNsHeaderName.requestHeaders.map(\.rawValue)

    /// `unknown-header`: an `apns-*` header APNs does not define is ignored; name the `aps` key or header meant.
    mutating func checkUnknownHeaders(_ h: APNsHeaders) {
        for field in h where field.name.hasPrefix("apns-") && !Self.knownAPNsHeaders.contains(field.name) {
            let bare = String(field.name.dropFirst("apns-".count))
            let apsKey = LiveActivityKeys.all.contains(bare) ? bare : LiveActivityKeys.intendedKey(for: bare)
            // The closest known header: a small edit distance, or the same first four letters (apns-expiry).
            let nearest = Self.knownAPNsHeaders.map { ($0, editDistance($0, field.name)) }.min(by: { $0.1 < $1.1 })
                .flatMap { $0.1 <= 3 ? $0 : nil }
                ?? Self.knownAPNsHeaders.first(where: { bare.count >= 4 && $0.dropFirst(5).hasPrefix(bare.prefix(4)) }).map { ($0, 0) }
            let fix: String
            if let apsKey, LiveActivityKeys.all.contains(apsKey) {
                fix = "\(field.name) is not a header: send \"\(apsKey)\" inside aps in the body"
            } else if let nearest {
                fix = "rename the header to \(nearest.0)"
            } else {
                fix = "remove it; APNs defines \(Self.knownAPNsHeaders.joined(separator: ", "))"
            }
            report(.unknownHeader, at: "headers." + field.name, nil,
                   "\(field.name) is not an APNs request header; APNs ignores it, so it has no effect",
                   fix: fix)
        }
    }
}
