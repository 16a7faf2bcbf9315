/// The `aps` keys Live Activities use, and spellings people write instead.
/// Source: Apple, "Generating a remote notification" (Live Activity keys) and "Starting and updating Live
/// Activities with ActivityKit push notifications"; spec §1.1.
enum LiveActivityKeys {
    static let timestamp = "timestamp"
    static let event = "event"
    static let contentState = "content-state"
    static let attributesType = "attributes-type"
    static let attributes = "attributes"
    static let alert = "alert"
    static let staleDate = "stale-date"
    static let dismissalDate = "dismissal-date"
    static let relevanceScore = "relevance-score"
    static let inputPushToken = "input-push-token"
    static let inputPushChannel = "input-push-channel"

    /// Every key the device's Live Activity parser reads inside `aps`.
    static let all: Set<String> = [timestamp, event, contentState, attributesType, attributes, alert, staleDate,
                                   dismissalDate, relevanceScore, inputPushToken, inputPushChannel]

    /// Ordinary-notification `aps` keys: valid for alerts, not read for Live Activities.
    static let ordinaryNotificationKeys: Set<String> = ["badge", "category", "content-available", "mutable-content",
                                                         "thread-id", "interruption-level", "filter-criteria",
                                                         "target-content-id", "sound"]

    /// The Live Activity key a misspelt key most likely meant (`events` → `event`, `state-date` → `stale-date`,
    /// `contentState` → `content-state`), or nil.
    static func intendedKey(for key: String) -> String? {
        let folded = fold(key)
        // Longer than every key name plus the edits allowed: nothing to compare (keeps a long key linear).
        guard folded.utf8.count <= longestFoldedKey + 2 else { return nil }
        for (k, foldedKey) in foldedKeys where foldedKey == folded { return k }
        // Plural / singular and one-edit typos.
        var best: (String, Int)? = nil
        for (k, foldedKey) in foldedKeys {
            guard let distance = editDistance(folded, foldedKey, atMost: 2) else { continue }
            if distance < (best?.1 ?? Int.max) { best = (k, distance) }
        }
        if let best, best.1 <= (folded.count > 6 ? 2 : 1) { return best.0 }
        return nil
    }

    /// Each key with its folded form, in a fixed order.
    static let foldedKeys: [(key: String, folded: String)] = all.sorted().map { ($0, fold($0)) }
    /// UTF-8 length of the longest folded key name (`inputpushchannel`).
    static let longestFoldedKey = foldedKeys.map(\.folded.utf8.count).max() ?? 0

    /// Lowercased with `-`, `_` and spaces removed: `content_state`, `contentState`, `Content-State` all fold equal.
    static func fold(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != " " }.map(Character.init))
    }

    /// Alert-like keys people smuggle into `attributes` (field report): they belong in `aps.alert`.
    static func isAlertLike(_ key: String) -> Bool {
        let folded = fold(key)
        if ["alert", "message", "sound", "lockey", "locargs"].contains(folded) { return true }
        return folded.hasPrefix("alert") || folded.hasPrefix("notification") || folded.hasPrefix("push")
            || folded.hasSuffix("title") || folded.hasSuffix("body")
    }

    /// The `aps.alert` sub-key an alert-like key maps to.
    static func alertTarget(for key: String) -> String {
        let folded = fold(key)
        if folded.contains("subtitle") { return "aps.alert.subtitle" }
        if folded.contains("title") { return "aps.alert.title" }
        if folded.contains("sound") { return "aps.alert.sound" }
        return "aps.alert.body"
    }
}

/// The Levenshtein distance when it is at most `limit`, else nil. Strings whose lengths differ by more than
/// `limit` are answered without the quadratic table, so a 4 KB key compared with Apple's short key names costs
/// nothing (a fuzzed payload of long keys took 0.8 s before).
///
/// Only the diagonal band of width `2 × limit + 1` is computed, and a row whose every cell is over the limit
/// ends the search: comparing a key with Apple's eleven key names costs about as much as reading it.
func editDistance(_ a: String, _ b: String, atMost limit: Int) -> Int? {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    guard abs(a.count - b.count) <= limit else { return nil }
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    let over = limit + 1  // any value past the limit
    var previous = [Int](repeating: over, count: b.count + 1)
    var current = previous
    for column in 0...min(b.count, limit) { previous[column] = column }
    for row in 1...a.count {
        let low = max(1, row - limit), high = min(b.count, row + limit)
        current[low - 1] = low == 1 ? min(row, over) : over
        var rowMinimum = current[low - 1]
        for column in low...high {
            let substitution = previous[column - 1] + (a[row - 1] == b[column - 1] ? 0 : 1)
            let value = min(previous[column] + 1, current[column - 1] + 1, substitution, over)
            current[column] = value
            rowMinimum = min(rowMinimum, value)
        }
        if high < b.count { current[high + 1] = over }
        if rowMinimum > limit { return nil }
        swap(&previous, &current)
    }
    return previous[b.count] <= limit ? previous[b.count] : nil
}

/// Levenshtein distance (small strings only).
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count)
    var cur = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = Swift.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&prev, &cur)
    }
    return prev[b.count]
}
