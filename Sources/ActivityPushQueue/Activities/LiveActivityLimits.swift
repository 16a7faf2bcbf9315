/// Apple's lifetime limits of a Live Activity. Durations in seconds.
///
/// Source: Apple, "Displaying live data with Live Activities" (spec §6.3): an activity is active up to 8 hours,
/// then the system ends it; it stays on the Lock Screen up to 4 more hours (12 hours in all).
public enum LiveActivityLimits {
    /// 8 hours: after this the system ends the activity by itself; ``LiveActivityService`` marks it ended.
    public static let activeSeconds: Double = 8 * 3600
    /// 4 hours more on the Lock Screen after the system ended it.
    public static let lockScreenSeconds: Double = 4 * 3600
    /// The end reason recorded for an activity ended by ``activeSeconds``.
    public static let expiredReason = "apple-8-hour-limit"
}
