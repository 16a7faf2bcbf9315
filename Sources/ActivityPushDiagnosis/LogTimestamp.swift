import ActivityPushCore
import Foundation

/// A log timestamp as the capture printed it, reduced to what can be compared: a calendar date when the
/// format has one, the time of day in seconds, and the UTC offset when the format prints it.
///
/// Formats differ: `log` default/syslog/json print `2026-11-24 11:02:05.025401-0800`; compact prints
/// `2026-11-26 07:05:47.880` (no zone); Console.app copy prints `10:15:31.351204-0800` (no date);
/// idevicesyslog prints `Jun 21 13:15:14` (no year, no zone).
public struct LogTimestamp: Sendable, Hashable {
    /// Year, month, day when printed (`year` is nil for idevicesyslog's `Jun 21`).
    public var year: Int?
    /// Month 1–12 when printed.
    public var month: Int?
    /// Day of the month when printed.
    public var day: Int?
    /// Seconds since local midnight, with the printed fraction.
    public var secondsOfDay: Double
    /// Offset from UTC in seconds (`-0800` → -28800), when printed.
    public var utcOffset: Int?

    /// A timestamp from its parts (see the properties for units).
    public init(year: Int?, month: Int?, day: Int?, secondsOfDay: Double, utcOffset: Int?) {
        self.year = year
        self.month = month
        self.day = day
        self.secondsOfDay = secondsOfDay
        self.utcOffset = utcOffset
    }

    /// Earliest and latest instants (UNIX seconds) a timestamp can stand for: years 1 to 9999.
    public static let unixSecondsRange: ClosedRange<Double> = -62_135_596_800 ... 253_402_300_799.999

    /// The UTC calendar date and time of an instant (UNIX seconds); nil when it is not finite or outside
    /// ``unixSecondsRange`` (years 1 to 9999).
    public init?(unixSeconds: Double) {
        guard unixSeconds.isFinite, Self.unixSecondsRange.contains(unixSeconds) else { return nil }
        let days = Int((unixSeconds / 86_400).rounded(.down))
        let (y, m, d) = Self.civil(fromDays: days)
        self.init(year: y, month: m, day: d, secondsOfDay: unixSeconds - Double(days) * 86_400, utcOffset: 0)
    }

    /// UNIX seconds when the date and the offset are both known (`offset` fills a missing offset).
    public func unixSeconds(assumingOffset offset: Int? = nil, assumingDateOf fallback: Double? = nil) -> Double? {
        guard let off = utcOffset ?? offset else { return nil }
        var knownYear = year, knownMonth = month, knownDay = day
        if knownYear == nil || knownMonth == nil || knownDay == nil, let fallback {
            guard fallback.isFinite, Self.unixSecondsRange.contains(fallback) else { return nil }
            // Take the calendar date of the fallback instant in this offset.
            let comps = Self.civil(fromDays: Int(((fallback + Double(off)) / 86_400).rounded(.down)))
            if knownMonth == nil || knownDay == nil { knownMonth = comps.1; knownDay = comps.2 }
            knownYear = knownYear ?? comps.0
        }
        guard let yy = knownYear, let mm = knownMonth, let dd = knownDay else { return nil }
        let days = Self.days(fromCivil: yy, mm, dd)
        return Double(days) * 86_400 + secondsOfDay - Double(off)
    }

    /// Parses the timestamp forms the supported formats print, and the forms `--since` accepts:
    /// `YYYY-MM-DD HH:MM:SS[.fff][±hhmm|Z]`, `YYYY-MM-DDTHH:MM:SS…` (ISO 8601), `HH:MM:SS[.fff][±hhmm]`,
    /// `Mon DD HH:MM:SS`. Returns nil for anything else, and for dates and times that do not exist
    /// (`2026-02-30`, `25:00:00`, offset `+2500`).
    public static func parse(_ text: String) -> LogTimestamp? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var cursor = 0
        func digits(_ n: Int) -> Int? {
            guard cursor + n <= bytes.count else { return nil }
            var value = 0
            for index in 0..<n {
                let byte = bytes[cursor + index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            cursor += n
            return value
        }
        func eat(_ c: UInt8) -> Bool {
            if cursor < bytes.count, bytes[cursor] == c { cursor += 1; return true }
            return false
        }
        var year: Int?, month: Int?, day: Int?
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        if bytes.count >= 4, let mi = months.firstIndex(where: { Array($0.utf8) == Array(bytes[0..<3]) }), bytes[3] == 32 {
            month = mi + 1
            cursor = 4
            while cursor < bytes.count, bytes[cursor] == 32 { cursor += 1 }
            var dayValue = 0, digitCount = 0
            while cursor < bytes.count, bytes[cursor] >= 48, bytes[cursor] <= 57 { dayValue = dayValue * 10 + Int(bytes[cursor] - 48); cursor += 1; digitCount += 1 }
            guard digitCount > 0, eat(32) else { return nil }
            day = dayValue
        } else if bytes.count >= 10, bytes[4] == 45 /* - */ {
            guard let parsedYear = digits(4), eat(45), let parsedMonth = digits(2), eat(45), let parsedDay = digits(2) else { return nil }
            year = parsedYear; month = parsedMonth; day = parsedDay
            guard eat(32) || eat(84) /* T */ else { return nil }
            while eat(32) {}
        }
        guard let hh = digits(2), eat(58), let mm = digits(2), eat(58), let ss = digits(2) else { return nil }
        var seconds = Double(hh * 3600 + mm * 60 + ss)
        if eat(46) || eat(44) {
            var scale = 0.1
            while cursor < bytes.count, bytes[cursor] >= 48, bytes[cursor] <= 57 {
                seconds += Double(bytes[cursor] - 48) * scale
                scale /= 10
                cursor += 1
            }
        }
        var offset: Int?
        while eat(32) {}
        if cursor < bytes.count {
            if bytes[cursor] == 90 /* Z */ {
                offset = 0
                cursor += 1
            } else if bytes[cursor] == 43 || bytes[cursor] == 45 {
                let sign = bytes[cursor] == 45 ? -1 : 1
                cursor += 1
                guard let oh = digits(2) else { return nil }
                _ = eat(58)
                let om = digits(2) ?? 0
                guard om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard cursor == bytes.count else { return nil }
        guard hh < 24, mm < 60, ss <= 60 else { return nil }  // 60: a leap second
        if let knownMonth = month {
            guard (1...12).contains(knownMonth), let knownDay = day, knownDay >= 1, knownDay <= Self.daysInMonth(knownMonth, year: year) else { return nil }
        }
        if let off = offset, abs(off) > 18 * 3600 { return nil }
        return LogTimestamp(year: year, month: month, day: day, secondsOfDay: seconds, utcOffset: offset)
    }

    /// True when `self` is not earlier than `other`. Compares instants when both can be placed on the UTC
    /// line, else calendar date + time of day as printed (wall clock), else the time of day alone.
    public func isAtOrAfter(_ other: LogTimestamp) -> Bool {
        if let mine = unixSeconds(assumingOffset: other.utcOffset), let theirs = other.unixSeconds(assumingOffset: utcOffset) {
            return mine >= theirs
        }
        if let ownMonth = month, let ownDay = day, let om = other.month, let od = other.day {
            if (ownMonth, ownDay) != (om, od) { return (ownMonth, ownDay) > (om, od) }
        }
        return secondsOfDay >= other.secondsOfDay
    }

    /// Days in `month` (1…12); February has 29 when the year is not known.
    static func daysInMonth(_ month: Int, year: Int?) -> Int {
        switch month {
        case 2:
            guard let knownYear = year else { return 29 }
            return (knownYear % 4 == 0 && knownYear % 100 != 0) || knownYear % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian).
    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let shiftedYear = m <= 2 ? y0 - 1 : y0
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yoe = shiftedYear - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let shiftedDays = z0 + 719_468
        let era = (shiftedDays >= 0 ? shiftedDays : shiftedDays - 146_096) / 146_097
        let doe = shiftedDays - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
