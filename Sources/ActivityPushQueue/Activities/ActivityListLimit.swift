/// How many activities one listing (`GET /v1/activities?limit=`, `activity-push activities list --limit`) may
/// return: the one check both fronts use (issue 11: the CLI took `--limit 0` while the API answered 400).
public enum ActivityListLimit {
    /// Without `limit`.
    public static let defaultLimit = 50
    /// The most one listing returns.
    public static let maximum = 500

    /// `limit` when it is 1…``maximum``.
    /// - Throws: ``ActivityError`` 400 on `limit` naming the range.
    public static func checked(_ limit: Int) throws(ActivityError) -> Int {
        guard (1...maximum).contains(limit) else {
            throw .badRequest("limit", "must be 1…\(maximum), got \(limit)",
                              fix: "give a whole number from 1 to \(maximum) (default \(defaultLimit)); page with state= for more")
        }
        return limit
    }

    /// `limit` as text (the query string): a whole number, then ``checked(_:)``.
    /// - Throws: ``ActivityError`` 400 on `limit`.
    public static func parse(_ text: String) throws(ActivityError) -> Int {
        guard let number = Int(text) else {
            throw .badRequest("limit", "expected a whole number 1…\(maximum), got '\(text)'", fix: "e.g. limit=\(defaultLimit)")
        }
        return try checked(number)
    }
}
