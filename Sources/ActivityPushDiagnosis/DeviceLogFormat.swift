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

    func parse(_ line: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        switch format {
        case .logDefault: return parseDefault(line)
        case .logSyslog: return parseSyslog(line)
        case .logCompact: return parseCompact(line)
        case .consoleCopy: return parseConsole(line)
        case .idevicesyslog: return parseIdevice(line)
        default: return nil
        }
    }

    // MARK: shared pieces

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// `YYYY-MM-DD HH:MM:SS` at `i`.
    static func hasDateTime(_ line: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard line.count >= i + 19 else { return false }
        let digitsAt = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        for digit in digitsAt where !isDigit(line[i + digit]) { return false }
        return line[i + 4] == 45 && line[i + 7] == 45 && (line[i + 10] == 32 || line[i + 10] == 84) && line[i + 13] == 58
            && line[i + 16] == 58
    }

    /// `HH:MM:SS` at `i`.
    static func hasTime(_ line: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard line.count >= i + 8 else { return false }
        return isDigit(line[i]) && isDigit(line[i + 1]) && line[i + 2] == 58 && isDigit(line[i + 3]) && isDigit(line[i + 4])
            && line[i + 5] == 58 && isDigit(line[i + 6]) && isDigit(line[i + 7])
    }

    static func skipSpaces(_ line: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < line.count, line[i] == 32 { i += 1 }
    }

    /// End of the token starting at `i` (next space or end).
    static func tokenEnd(_ line: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        var end = i
        while end < line.count, line[end] != 32 { end += 1 }
        return end
    }

    /// Skips `(library) ` and `[subsystem:category] ` prefixes.
    static func messageStart(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var offset = start
        if offset < line.count, line[offset] == 40 /* ( */ {
            var close = offset + 1
            while close < line.count, line[close] != 41, line[close] != 32 { close += 1 }
            if close + 1 < line.count, line[close] == 41, line[close + 1] == 32 { offset = close + 2 }
        }
        if offset < line.count, line[offset] == 91 /* [ */ {
            var close = offset + 1
            var colon = false
            while close < line.count, line[close] != 93, line[close] != 32 {
                if line[close] == 58 { colon = true }
                close += 1
            }
            if colon, close < line.count, line[close] == 93 {
                offset = close + 1
                if offset < line.count, line[offset] == 32 { offset += 1 }
            }
        }
        return min(offset, line.count)
    }

    // MARK: formats

    /// `2023-07-19 08:22:51.916784+0300 0x3058     Info        0x0                  599    0    proc: …`
    func parseDefault(_ line: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard Self.hasDateTime(line, at: 0) else { return nil }
        var offset = 11
        let timeEnd = Self.tokenEnd(line, offset)
        offset = timeEnd
        // thread, type, activity, pid, ttl
        for field in 0..<5 {
            Self.skipSpaces(line, &offset)
            guard offset < line.count else { return nil }
            if field == 0 || field == 2 {
                guard line[offset] == 48, offset + 1 < line.count, line[offset + 1] == 120 else { return nil } // 0x
            }
            offset = Self.tokenEnd(line, offset)
        }
        Self.skipSpaces(line, &offset)
        let pStart = offset
        var separator = offset
        while separator + 1 < line.count, !(line[separator] == 58 && line[separator + 1] == 32) { separator += 1 }
        if separator + 1 >= line.count {
            // `proc:` at end of line (empty message)
            guard line.count > pStart, line[line.count - 1] == 58 else { return nil }
            return LogRowHeader(time: 0..<timeEnd, process: pStart..<(line.count - 1), messageStart: line.count)
        }
        return LogRowHeader(time: 0..<timeEnd, process: pStart..<separator, messageStart: Self.messageStart(line, from: separator + 2))
    }

    /// `2026-11-25 08:30:12.549911-0800  localhost liveactivitiesd[143]: (Lib) [sub:cat] message`
    func parseSyslog(_ line: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard Self.hasDateTime(line, at: 0) else { return nil }
        let timeEnd = Self.tokenEnd(line, 11)
        var offset = timeEnd
        Self.skipSpaces(line, &offset)
        offset = Self.tokenEnd(line, offset) // host
        Self.skipSpaces(line, &offset)
        let pStart = offset
        // process[pid]:
        var bracket = offset
        while bracket < line.count {
            if line[bracket] == 91 /* [ */ {
                var digitEnd = bracket + 1
                while digitEnd < line.count, Self.isDigit(line[digitEnd]) { digitEnd += 1 }
                if digitEnd > bracket + 1, digitEnd + 1 < line.count, line[digitEnd] == 93, line[digitEnd + 1] == 58 {
                    let ms = digitEnd + 2 < line.count && line[digitEnd + 2] == 32 ? digitEnd + 3 : digitEnd + 2
                    return LogRowHeader(time: 0..<timeEnd, process: pStart..<bracket,
                                        messageStart: Self.messageStart(line, from: ms))
                }
            }
            bracket += 1
        }
        return nil
    }

    /// `2026-11-26 07:05:47.900 E  liveactivitiesd[143:1d6ab] (SessionCore) [sub:cat] message`
    func parseCompact(_ line: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard Self.hasDateTime(line, at: 0) else { return nil }
        let timeEnd = Self.tokenEnd(line, 11)
        guard timeEnd + 4 < line.count, line[timeEnd] == 32 else { return nil }
        var offset = timeEnd + 3 // two type characters
        Self.skipSpaces(line, &offset)
        let pStart = offset
        var bracket = offset
        while bracket < line.count {
            if line[bracket] == 91 {
                var digitEnd = bracket + 1
                while digitEnd < line.count, Self.isDigit(line[digitEnd]) { digitEnd += 1 }
                if digitEnd > bracket + 1, digitEnd < line.count, line[digitEnd] == 58 {
                    var closeBracket = digitEnd + 1
                    while closeBracket < line.count, line[closeBracket] != 93, line[closeBracket] != 32 { closeBracket += 1 }
                    if closeBracket < line.count, line[closeBracket] == 93 {
                        let ms = closeBracket + 1 < line.count && line[closeBracket + 1] == 32 ? closeBracket + 2 : closeBracket + 1
                        return LogRowHeader(time: 0..<timeEnd, process: pStart..<bracket,
                                            messageStart: Self.messageStart(line, from: ms))
                    }
                }
            }
            bracket += 1
        }
        return nil
    }

    static let consoleTypes: [[UInt8]] = ["default", "info", "debug", "error", "fault", "notice", "activity",
                                          "signpost", "warning", "critical"].map { Array($0.utf8) }

    /// `error<TAB>10:15:31.354204-0800<TAB>liveactivitiesd<TAB>message` (+ extra columns before the message).
    func parseConsole(_ line: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        var tab0 = 0
        while tab0 < line.count, tab0 < 12, line[tab0] != 9 { tab0 += 1 }
        guard tab0 < line.count, line[tab0] == 9, tab0 > 0 else { return nil }
        var known = false
        for typeName in Self.consoleTypes where typeName.count == tab0 {
            var same = true
            for index in 0..<tab0 where (line[index] | 0x20) != typeName[index] { same = false; break }
            if same { known = true; break }
        }
        guard known else { return nil }
        let tStart = tab0 + 1
        guard Self.hasTime(line, at: tStart) || Self.hasDateTime(line, at: tStart) else { return nil }
        var tabs: [Int] = [tab0]
        var cursor = tStart
        while cursor < line.count, tabs.count < consoleColumns - 1 {
            if line[cursor] == 9 { tabs.append(cursor) }
            cursor += 1
        }
        guard tabs.count >= 3 else { return nil }
        let time = tStart..<tabs[1]
        let process = (tabs[1] + 1)..<tabs[2]
        return LogRowHeader(time: time, process: process, messageStart: tabs[tabs.count - 1] + 1)
    }

    /// `Jun 21 13:15:14 Device-Name process[pid] <Notice>: message` (also `process(lib)[pid]`).
    func parseIdevice(_ line: UnsafeBufferPointer<UInt8>) -> LogRowHeader? {
        guard line.count > 16, line[0] >= 65, line[0] <= 90, line[3] == 32 else { return nil }
        var offset = 4
        Self.skipSpaces(line, &offset)
        while offset < line.count, Self.isDigit(line[offset]) { offset += 1 }
        guard offset < line.count, line[offset] == 32 else { return nil }
        offset += 1
        guard Self.hasTime(line, at: offset) else { return nil }
        let timeEnd = offset + 8
        offset = timeEnd
        Self.skipSpaces(line, &offset)
        offset = Self.tokenEnd(line, offset) // device name
        Self.skipSpaces(line, &offset)
        let pStart = offset
        var cursor = offset
        while cursor < line.count, line[cursor] != 91, line[cursor] != 40, line[cursor] != 32 { cursor += 1 }
        guard cursor < line.count, line[cursor] == 91 || line[cursor] == 40 else { return nil }
        let pEnd = cursor
        while cursor < line.count, line[cursor] != 93 { cursor += 1 } // to `]` after pid
        guard cursor < line.count else { return nil }
        cursor += 1
        Self.skipSpaces(line, &cursor)
        if cursor < line.count, line[cursor] == 60 /* < */ {
            while cursor < line.count, line[cursor] != 62 { cursor += 1 }
            cursor += 1
        }
        if cursor < line.count, line[cursor] == 58 { cursor += 1 }
        Self.skipSpaces(line, &cursor)
        return LogRowHeader(time: 0..<timeEnd, process: pStart..<pEnd, messageStart: min(cursor, line.count))
    }
}

extension DeviceLogFormat {
    /// Detects the format from the first lines of a capture (preamble and header lines included).
    /// Returns the format and, for a Console copy, its column count; nil when no known layout fits.
    static func detect(lines: [[UInt8]]) -> (DeviceLogFormat, Int)? {
        var significant: [[UInt8]] = []
        for line in lines {
            let text = String(decoding: line.prefix(200), as: UTF8.self)
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("Filtering the log data") || trimmed.hasPrefix("Skipping ") { continue }
            if trimmed.hasPrefix("Timestamp") {
                if trimmed.contains("Thread") && trimmed.contains("Type") { return (.logDefault, 4) }
                if trimmed.contains("(process)[PID]") { return (.logSyslog, 4) }
                if trimmed.contains("Ty ") && trimmed.contains("Process[PID:TID]") { return (.logCompact, 4) }
                continue
            }
            if significant.isEmpty {
                if trimmed.hasPrefix("[") { return (.logJSON, 4) }
                if trimmed.hasPrefix("{") && (trimmed.contains("\"eventMessage\"") || trimmed.contains("\"timestamp\"")
                                        || trimmed.contains("\"messageType\"") || trimmed.contains("\"count\"")) {
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
            let tabCount = line.reduce(0) { $0 + ($1 == 9 ? 1 : 0) }
            if tabCount >= 3 { tabCounts[tabCount + 1, default: 0] += 1 }
        }
        let columns = tabCounts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key ?? 4
        var best: (DeviceLogFormat, Int)?
        for candidate in textFormats {
            let parser = LogRowParser(format: candidate, consoleColumns: columns)
            let hits = significant.reduce(0) { n, line in
                n + (line.withUnsafeBufferPointer { parser.parse($0) } != nil ? 1 : 0)
            }
            if hits > (best?.1 ?? 0) { best = (candidate, hits) }
        }
        guard let (format, hits) = best, hits * 3 >= min(significant.count, 3) else { return nil }
        return (format, columns)
    }
}
