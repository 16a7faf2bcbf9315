import ActivityPushCore
/// A device-log capture layout the reader understands (open set). Detected from the text's structure, never
/// from the file name. Layouts and their sources: `logs/README.md` ("Formats").
public struct DeviceLogFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Console.app, rows selected and copied: `type<TAB>time<TAB>process<TAB>message` (wide copies add
    /// columns between process and message; the message is the last column).
    public static let consoleCopy = DeviceLogFormat(rawValue: "console-copy")
    /// `log stream` / `log show` default style: `Timestamp Thread Type Activity PID TTL process: message`.
    public static let logDefault = DeviceLogFormat(rawValue: "log-default")
    /// `log show|stream --style syslog`: `<timestamp>  <host> <process>[<pid>]: message`.
    public static let logSyslog = DeviceLogFormat(rawValue: "log-syslog")
    /// `--style compact`: `<date> <ms time> <Ty> <process>[<pid>:<tid>] message`.
    public static let logCompact = DeviceLogFormat(rawValue: "log-compact")
    /// `--style json`: preamble lines, then one pretty-printed JSON array of entries.
    public static let logJSON = DeviceLogFormat(rawValue: "log-json")
    /// `--style ndjson`: preamble line, one JSON object per line, optional `{"count":N,"finished":1}` footer.
    public static let logNDJSON = DeviceLogFormat(rawValue: "log-ndjson")
    /// libimobiledevice `idevicesyslog`: `Mon DD HH:MM:SS <device> <process>[<pid>] <Level>: message`.
    public static let idevicesyslog = DeviceLogFormat(rawValue: "idevicesyslog")

    /// Every known format, with the capture command that produces it (for "unknown format" errors).
    public static let known: [(format: DeviceLogFormat, producedBy: String)] = [
        (.consoleCopy, "Console.app Copy (default or wide columns)"),
        (.logDefault, "log stream / log show (default style, also on a .logarchive)"),
        (.logSyslog, "log show --style syslog"),
        (.logCompact, "log show --style compact"),
        (.logJSON, "log show --style json"),
        (.logNDJSON, "log stream|show --style ndjson"),
        (.idevicesyslog, "idevicesyslog"),
    ]

    static let textFormats: [DeviceLogFormat] = [.logDefault, .logSyslog, .logCompact, .consoleCopy, .idevicesyslog]
}

/// Byte ranges of one row's header fields within its line.
struct LogRowHeader {
    var time: Range<Int>
    var process: Range<Int>
    /// Where the message (after any `(library)` / `[subsystem:category]` prefix) starts.
    var messageStart: Int
}

/// Recognises the first line of a row in a text format and finds its fields, on raw bytes (no allocation).
struct LogRowParser {
    let format: DeviceLogFormat
    /// Console copy: number of TAB-separated columns (4 default; more with extra columns enabled).
    var consoleColumns = 4

    func parse(_ l: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        switch format {
        case .logDefault: return parseDefault(l)
        case .logSyslog: return parseSyslog(l)
        case .logCompact: return parseCompact(l)
        case .consoleCopy: return parseConsole(l)
        case .idevicesyslog: return parseIdevice(l)
        default: return nil
        }
    }

    // MARK: shared pieces

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// `YYYY-MM-DD HH:MM:SS` at `i`.
    static func hasDateTime(_ l: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard l.count >= i + 19 else { return false }
        let digitsAt = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        for d in digitsAt where !isDigit(l[i + d]) { return false }
        return l[i + 4] == 45 && l[i + 7] == 45 && (l[i + 10] == 32 || l[i + 10] == 84) && l[i + 13] == 58
            && l[i + 16] == 58
    }

    /// `HH:MM:SS` at `i`.
    static func hasTime(_ l: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard l.count >= i + 8 else { return false }
        return isDigit(l[i]) && isDigit(l[i + 1]) && l[i + 2] == 58 && isDigit(l[i + 3]) && isDigit(l[i + 4])
            && l[i + 5] == 58 && isDigit(l[i + 6]) && isDigit(l[i + 7])
    }

    static func skipSpaces(_ l: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < l.count, l[i] == 32 { i += 1 }
    }

    /// End of the token starting at `i` (next space or end).
    static func tokenEnd(_ l: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        var j = i
        while j < l.count, l[j] != 32 { j += 1 }
        return j
    }

    /// Skips `(library) ` and `[subsystem:category] ` prefixes.
    static func messageStart(_ l: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        if i < l.count, l[i] == 40 /* ( */ {
            var j = i + 1
            while j < l.count, l[j] != 41, l[j] != 32 { j += 1 }
            if j + 1 < l.count, l[j] == 41, l[j + 1] == 32 { i = j + 2 }
        }
        if i < l.count, l[i] == 91 /* [ */ {
            var j = i + 1
            var colon = false
            while j < l.count, l[j] != 93, l[j] != 32 {
                if l[j] == 58 { colon = true }
                j += 1
            }
            if colon, j < l.count, l[j] == 93 {
                i = j + 1
                if i < l.count, l[i] == 32 { i += 1 }
            }
        }
        return min(i, l.count)
    }

    // MARK: formats

    /// `2023-07-19 08:22:51.916784+0300 0x3058     Info        0x0                  599    0    proc: …`
    func parseDefault(_ l: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard Self.hasDateTime(l, at: 0) else { return nil }
        var i = 11
        let timeEnd = Self.tokenEnd(l, i)
        i = timeEnd
        // thread, type, activity, pid, ttl
        for field in 0..<5 {
            Self.skipSpaces(l, &i)
            guard i < l.count else { return nil }
            if field == 0 || field == 2 {
                guard l[i] == 48, i + 1 < l.count, l[i + 1] == 120 else { return nil } // 0x
            }
            i = Self.tokenEnd(l, i)
        }
        Self.skipSpaces(l, &i)
        let pStart = i
        var j = i
        while j + 1 < l.count, !(l[j] == 58 && l[j + 1] == 32) { j += 1 }
        if j + 1 >= l.count {
            // `proc:` at end of line (empty message)
            guard l.count > pStart, l[l.count - 1] == 58 else { return nil }
            return LogRowHeader(time: 0..<timeEnd, process: pStart..<(l.count - 1), messageStart: l.count)
        }
        return LogRowHeader(time: 0..<timeEnd, process: pStart..<j, messageStart: Self.messageStart(l, from: j + 2))
    }

    /// `2026-11-25 08:30:12.549911-0800  localhost liveactivitiesd[143]: (Lib) [sub:cat] message`
    func parseSyslog(_ l: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard Self.hasDateTime(l, at: 0) else { return nil }
        let timeEnd = Self.tokenEnd(l, 11)
        var i = timeEnd
        Self.skipSpaces(l, &i)
        i = Self.tokenEnd(l, i) // host
        Self.skipSpaces(l, &i)
        let pStart = i
        // process[pid]:
        var j = i
        while j < l.count {
            if l[j] == 91 /* [ */ {
                var k = j + 1
                while k < l.count, Self.isDigit(l[k]) { k += 1 }
                if k > j + 1, k + 1 < l.count, l[k] == 93, l[k + 1] == 58 {
                    let ms = k + 2 < l.count && l[k + 2] == 32 ? k + 3 : k + 2
                    return LogRowHeader(time: 0..<timeEnd, process: pStart..<j,
                                        messageStart: Self.messageStart(l, from: ms))
                }
            }
            j += 1
        }
        return nil
    }

    /// `2026-11-26 07:05:47.900 E  liveactivitiesd[143:1d6ab] (SessionCore) [sub:cat] message`
    func parseCompact(_ l: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard Self.hasDateTime(l, at: 0) else { return nil }
        let timeEnd = Self.tokenEnd(l, 11)
        guard timeEnd + 4 < l.count, l[timeEnd] == 32 else { return nil }
        var i = timeEnd + 3 // two type characters
        Self.skipSpaces(l, &i)
        let pStart = i
        var j = i
        while j < l.count {
            if l[j] == 91 {
                var k = j + 1
                while k < l.count, Self.isDigit(l[k]) { k += 1 }
                if k > j + 1, k < l.count, l[k] == 58 {
                    var e = k + 1
                    while e < l.count, l[e] != 93, l[e] != 32 { e += 1 }
                    if e < l.count, l[e] == 93 {
                        let ms = e + 1 < l.count && l[e + 1] == 32 ? e + 2 : e + 1
                        return LogRowHeader(time: 0..<timeEnd, process: pStart..<j,
                                            messageStart: Self.messageStart(l, from: ms))
                    }
                }
            }
            j += 1
        }
        return nil
    }

    static let consoleTypes: [[UInt8]] = ["default", "info", "debug", "error", "fault", "notice", "activity",
                                          "signpost", "warning", "critical"].map { Array($0.utf8) }

    /// `error<TAB>10:15:31.354204-0800<TAB>liveactivitiesd<TAB>message` (+ extra columns before the message).
    func parseConsole(_ l: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        var tab0 = 0
        while tab0 < l.count, tab0 < 12, l[tab0] != 9 { tab0 += 1 }
        guard tab0 < l.count, l[tab0] == 9, tab0 > 0 else { return nil }
        var known = false
        for t in Self.consoleTypes where t.count == tab0 {
            var same = true
            for k in 0..<tab0 where (l[k] | 0x20) != t[k] { same = false; break }
            if same { known = true; break }
        }
        guard known else { return nil }
        let tStart = tab0 + 1
        guard Self.hasTime(l, at: tStart) || Self.hasDateTime(l, at: tStart) else { return nil }
        var tabs: [Int] = [tab0]
        var j = tStart
        while j < l.count, tabs.count < consoleColumns - 1 {
            if l[j] == 9 { tabs.append(j) }
            j += 1
        }
        guard tabs.count >= 3 else { return nil }
        let time = tStart..<tabs[1]
        let process = (tabs[1] + 1)..<tabs[2]
        return LogRowHeader(time: time, process: process, messageStart: tabs[tabs.count - 1] + 1)
    }

    /// `Jun 21 13:15:14 Device-Name process[pid] <Notice>: message` (also `process(lib)[pid]`).
    func parseIdevice(_ l: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard l.count > 16, l[0] >= 65, l[0] <= 90, l[3] == 32 else { return nil }
        var i = 4
        Self.skipSpaces(l, &i)
        while i < l.count, Self.isDigit(l[i]) { i += 1 }
        guard i < l.count, l[i] == 32 else { return nil }
        i += 1
        guard Self.hasTime(l, at: i) else { return nil }
        let timeEnd = i + 8
        i = timeEnd
        Self.skipSpaces(l, &i)
        i = Self.tokenEnd(l, i) // device name
        Self.skipSpaces(l, &i)
        let pStart = i
        var j = i
        while j < l.count, l[j] != 91, l[j] != 40, l[j] != 32 { j += 1 }
        guard j < l.count, l[j] == 91 || l[j] == 40 else { return nil }
        let pEnd = j
        while j < l.count, l[j] != 93 { j += 1 } // to `]` after pid
        guard j < l.count else { return nil }
        j += 1
        Self.skipSpaces(l, &j)
        if j < l.count, l[j] == 60 /* < */ {
            while j < l.count, l[j] != 62 { j += 1 }
            j += 1
        }
        if j < l.count, l[j] == 58 { j += 1 }
        Self.skipSpaces(l, &j)
        return LogRowHeader(time: 0..<timeEnd, process: pStart..<pEnd, messageStart: min(j, l.count))
    }
}

extension DeviceLogFormat {
    /// Detects the format from the first lines of a capture (preamble and header lines included).
    /// Returns the format and, for a Console copy, its column count; nil when no known layout fits.
    static func detect(lines: [[UInt8]]) -> (DeviceLogFormat, Int)? {
        var significant: [[UInt8]] = []
        for line in lines {
            let s = String(decoding: line.prefix(200), as: UTF8.self)
            let t = s.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("Filtering the log data") || t.hasPrefix("Skipping ") { continue }
            if t.hasPrefix("Timestamp") {
                if t.contains("Thread") && t.contains("Type") { return (.logDefault, 4) }
                if t.contains("(process)[PID]") { return (.logSyslog, 4) }
                if t.contains("Ty ") && t.contains("Process[PID:TID]") { return (.logCompact, 4) }
                continue
            }
            if significant.isEmpty {
                if t.hasPrefix("[") { return (.logJSON, 4) }
                if t.hasPrefix("{") && (t.contains("\"eventMessage\"") || t.contains("\"timestamp\"")
                                        || t.contains("\"messageType\"") || t.contains("\"count\"")) {
                    return (.logNDJSON, 4)
                }
            }
            significant.append(line)
            if significant.count >= 40 { break }
        }
        guard !significant.isEmpty else { return nil }
        // Console copy: the column count is the most common TAB count among rows.
        var tabCounts: [Int: Int] = [:]
        for line in significant {
            let n = line.reduce(0) { $0 + ($1 == 9 ? 1 : 0) }
            if n >= 3 { tabCounts[n + 1, default: 0] += 1 }
        }
        let columns = tabCounts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key ?? 4
        var best: (DeviceLogFormat, Int)?
        for f in textFormats {
            let parser = LogRowParser(format: f, consoleColumns: columns)
            let hits = significant.reduce(0) { n, line in
                n + (line.withUnsafeBufferPointer { parser.parse($0) } != nil ? 1 : 0)
            }
            if hits > (best?.1 ?? 0) { best = (f, hits) }
        }
        guard let (format, hits) = best, hits * 3 >= min(significant.count, 3) else { return nil }
        return (format, columns)
    }
}
