import Foundation

/// Reads a device-log capture in streaming fashion — chunk by chunk, never the whole file — and hands on the
/// entries of the processes asked for, with multi-line messages joined.
///
/// The format is detected from the first 64 KiB (preamble and header lines are skipped). For the json style the
/// array is split element by element; only elements that mention a wanted process are parsed. Rows of other
/// processes are recognised on raw bytes and dropped without building strings, which keeps a 200 MB log fast
/// and memory flat.
public struct DeviceLogReader {
    /// Processes whose entries are materialised (exact names).
    public var processes: Set<String>
    private var wanted: [[UInt8]]

    public init(processes: Set<String> = ["liveactivitiesd", "apsd"]) {
        self.processes = processes
        self.wanted = processes.map { Array($0.utf8) }
    }

    /// Reads `chunks` (each call returns the next bytes, nil at the end) and calls `onEntry` for every entry of a
    /// wanted process, in order. Returns the detected format.
    /// - Throws: ``DeviceLogError`` for binary or compressed input and for a layout no known format fits
    ///   (the message lists the known formats), or any error `chunks` throws.
    @discardableResult
    public func read(name: String, chunks: () throws -> [UInt8]?,
                     onEntry: (DeviceLogEntry) throws -> Void) throws -> DeviceLogFormat {
        // 1. Sample for detection.
        var sample: [UInt8] = []
        var ended = false
        while sample.count < 65_536 {
            guard let c = try chunks() else { ended = true; break }
            sample += c
        }
        try Self.rejectBinary(sample, name: name)
        let sampleLines = Self.splitLines(sample.prefix(65_536), max: 200)
        guard let (format, columns) = DeviceLogFormat.detect(lines: sampleLines) else {
            if sample.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) {
                throw DeviceLogError("\(name): the log is empty")
            }
            let known = DeviceLogFormat.known.map { "\($0.format) (\($0.producedBy))" }.joined(separator: ", ")
            throw DeviceLogError("\(name): unknown log format (first line: \"\(Self.preview(sampleLines.first ?? []))\"); known formats: \(known)")
        }
        var pending: [UInt8]? = sample
        let next: () throws -> [UInt8]? = {
            if let p = pending { pending = nil; return p }
            if ended { return nil }
            return try chunks()
        }
        switch format {
        case .logJSON: try readJSONArray(next, onEntry: onEntry)
        case .logNDJSON: try readNDJSON(next, onEntry: onEntry)
        default: try readText(next, parser: LogRowParser(format: format, consoleColumns: columns), onEntry: onEntry)
        }
        return format
    }

    /// Reads a file (or standard input for `-`) in 1 MiB chunks.
    @discardableResult
    public func read(path: String, onEntry: (DeviceLogEntry) throws -> Void) throws -> DeviceLogFormat {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw DeviceLogError("\(path): no such file")
            }
            if isDir.boolValue {
                throw DeviceLogError("\(path): is a directory; for a .logarchive run `log show --archive \(path) --style ndjson > log.ndjson` on a Mac and pass that file")
            }
            guard let h = FileHandle(forReadingAtPath: path) else { throw DeviceLogError("\(path): cannot be opened for reading") }
            handle = h
        }
        defer { if path != "-" { try? handle.close() } }
        return try read(name: path == "-" ? "standard input" : path, chunks: {
            do {
                guard let d = try handle.read(upToCount: 1 << 20), !d.isEmpty else { return nil }
                return [UInt8](d)
            } catch {
                throw DeviceLogError("\(path): read failed: \(error.localizedDescription)")
            }
        }, onEntry: onEntry)
    }

    // MARK: - Text formats

    private func readText(_ next: () throws -> [UInt8]?, parser: LogRowParser,
                          onEntry: (DeviceLogEntry) throws -> Void) throws {
        var current: (time: String, process: String, message: [UInt8], line: Int)?
        var lineNumber = 0
        func flush() throws {
            if let c = current {
                try onEntry(DeviceLogEntry(time: c.time, process: c.process,
                                           message: Self.trimTrailing(String(decoding: c.message, as: UTF8.self)),
                                           line: c.line, index: nil))
            }
            current = nil
        }
        try forEachLine(next) { line in
            lineNumber += 1
            if let h = parser.parse(line) {
                try flush()
                let proc = UnsafeBufferPointer(rebasing: line[h.process])
                guard wanted.contains(where: { Self.equal(proc, $0) }) else { return }
                current = (String(decoding: UnsafeBufferPointer(rebasing: line[h.time]), as: UTF8.self),
                           String(decoding: proc, as: UTF8.self),
                           Array(UnsafeBufferPointer(rebasing: line[h.messageStart...])), lineNumber)
            } else if current != nil {
                if Self.isPreambleOrFooter(line) { return }
                current!.message.append(10)
                current!.message += Self.continuation(line, format: parser.format)
            }
        }
        try flush()
    }

    /// A continuation line's text: Console copies may start it with TABs (empty columns); idevicesyslog indents.
    private static func continuation(_ line: UnsafeBufferPointer<UInt8>, format: DeviceLogFormat) -> [UInt8] {
        var i = 0
        if format == .consoleCopy || format == .idevicesyslog {
            while i < line.count, line[i] == 9 || (format == .idevicesyslog && line[i] == 32) { i += 1 }
        }
        return Array(UnsafeBufferPointer(rebasing: line[i...]))
    }

    private static func isPreambleOrFooter(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        startsWith(line, "Filtering the log data") || startsWith(line, "Skipping ")
            || startsWith(line, "Log      - Default:") || startsWith(line, "Timestamp  ")
            || startsWith(line, "Activity - Create:") || startsWith(line, "----------")
    }

    // MARK: - ndjson

    private func readNDJSON(_ next: () throws -> [UInt8]?, onEntry: (DeviceLogEntry) throws -> Void) throws {
        var lineNumber = 0
        try forEachLine(next) { line in
            lineNumber += 1
            var i = 0
            while i < line.count, line[i] == 32 || line[i] == 9 { i += 1 }
            guard i < line.count, line[i] == 123 /* { */, mentionsWanted(line) else { return }
            if let e = Self.entry(fromJSON: Array(line), line: lineNumber, index: nil), processes.contains(e.process) {
                try onEntry(e)
            }
        }
    }

    // MARK: - json (one array, streamed element by element)

    private func readJSONArray(_ next: () throws -> [UInt8]?, onEntry: (DeviceLogEntry) throws -> Void) throws {
        var inArray = false
        var depth = 0
        var inString = false
        var escaped = false
        var element: [UInt8] = []
        var index = 0
        var atLineStart = true
        var skippingLine = false
        while let chunk = try next() {
            try chunk.withUnsafeBufferPointer { buf in
                var i = 0
                var elementStart = depth >= 1 ? 0 : -1
                while i < buf.count {
                    let c = buf[i]
                    if !inArray {
                        // Preamble lines ("Filtering…", "Skipping…") until the line that opens the array.
                        if atLineStart { skippingLine = c != 91 }
                        atLineStart = c == 10
                        if !skippingLine, c == 91 { inArray = true }
                        i += 1
                        continue
                    }
                    if inString {
                        if escaped { escaped = false } else if c == 92 { escaped = true } else if c == 34 { inString = false }
                        i += 1
                        continue
                    }
                    switch c {
                    case 34: inString = true
                    case 123, 91:
                        if depth == 0 { elementStart = i }
                        depth += 1
                    case 125, 93:
                        if depth == 0 {
                            if c == 93 { inArray = false; atLineStart = false; skippingLine = true }
                            break
                        }
                        depth -= 1
                        if depth == 0 {
                            element += UnsafeBufferPointer(rebasing: buf[max(elementStart, 0)...i])
                            elementStart = -1
                            if element.withUnsafeBufferPointer({ mentionsWanted($0) }),
                               let e = Self.entry(fromJSON: element, line: nil, index: index),
                               processes.contains(e.process) {
                                try onEntry(e)
                            }
                            element.removeAll(keepingCapacity: true)
                            index += 1
                        }
                    default: break
                    }
                    i += 1
                }
                if depth >= 1, elementStart >= 0 {
                    element += UnsafeBufferPointer(rebasing: buf[elementStart...])
                }
            }
        }
    }

    /// Builds an entry from one `log --style json|ndjson` object. nil for footers and objects without a message.
    static func entry(fromJSON bytes: [UInt8], line: Int?, index: Int?) -> DeviceLogEntry? {
        // Fast path: read only the four top-level string fields needed; fall back to the full reader.
        if let f = bytes.withUnsafeBufferPointer({ TopLevelStringFields.scan($0) }) {
            guard let message = f.message else { return nil }
            var process = f.process ?? ""
            if process.isEmpty, let path = f.imagePath { process = String(path.split(separator: "/").last ?? "") }
            return DeviceLogEntry(time: f.timestamp ?? "", process: process, message: trimTrailing(message), line: line, index: index)
        }
        guard let root = JSONReader.read(bytes).root, let message = root["eventMessage"]?.value.stringValue else {
            return nil
        }
        var process = root["process"]?.value.stringValue ?? ""
        if process.isEmpty, let path = root["processImagePath"]?.value.stringValue {
            process = String(path.split(separator: "/").last ?? "")
        }
        let time = root["timestamp"]?.value.stringValue ?? ""
        return DeviceLogEntry(time: time, process: process, message: trimTrailing(message), line: line, index: index)
    }

    // MARK: - Bytes

    /// Calls `body` for each line (without `\n` / `\r\n`), across chunk boundaries.
    private func forEachLine(_ next: () throws -> [UInt8]?,
                             _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var carry: [UInt8] = []
        while let chunk = try next() {
            try chunk.withUnsafeBufferPointer { buf in
                var start = 0
                var i = 0
                let n = buf.count
                while i < n {
                    if buf[i] == 10 {
                        if carry.isEmpty {
                            try body(Self.dropCR(UnsafeBufferPointer(rebasing: buf[start..<i])))
                        } else {
                            carry += UnsafeBufferPointer(rebasing: buf[start..<i])
                            try carry.withUnsafeBufferPointer { try body(Self.dropCR($0)) }
                            carry.removeAll(keepingCapacity: true)
                        }
                        start = i + 1
                    }
                    i += 1
                }
                if start < n { carry += UnsafeBufferPointer(rebasing: buf[start..<n]) }
            }
        }
        if !carry.isEmpty { try carry.withUnsafeBufferPointer { try body(Self.dropCR($0)) } }
    }

    private static func dropCR(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if let last = b.last, last == 13 { return UnsafeBufferPointer(rebasing: b[0..<(b.count - 1)]) }
        return b
    }

    private func mentionsWanted(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        wanted.contains { Self.contains(b, $0) }
    }

    static func contains(_ hay: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        let n = needle.count, m = hay.count
        guard n > 0, m >= n else { return false }
        let first = needle[0]
        var i = 0
        while i <= m - n {
            if hay[i] == first {
                var k = 1
                while k < n, hay[i + k] == needle[k] { k += 1 }
                if k == n { return true }
            }
            i += 1
        }
        return false
    }

    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    static func startsWith(_ a: UnsafeBufferPointer<UInt8>, _ s: String) -> Bool {
        let b = Array(s.utf8)
        guard a.count >= b.count else { return false }
        for i in 0..<b.count where a[i] != b[i] { return false }
        return true
    }

    static func splitLines(_ bytes: ArraySlice<UInt8>, max: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var cur: [UInt8] = []
        for b in bytes {
            if b == 10 {
                if cur.last == 13 { cur.removeLast() }
                out.append(cur)
                cur = []
                if out.count >= max { return out }
            } else {
                cur.append(b)
            }
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }

    static func trimTrailing(_ s: String) -> String {
        var t = Substring(s)
        while let l = t.last, l == " " || l == "\n" || l == "\r" || l == "\t" { t = t.dropLast() }
        return String(t)
    }

    private static func preview(_ line: [UInt8]) -> String {
        String(decoding: line.prefix(60), as: UTF8.self).replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\"", with: "'")
    }

    /// Binary, compressed or non-UTF-8 input gets one clear line.
    static func rejectBinary(_ sample: [UInt8], name: String) throws {
        if sample.starts(with: [0x1f, 0x8b]) {
            throw DeviceLogError("\(name): gzip-compressed; decompress it first (gunzip), or for a sysdiagnose tarball run `log show --archive system_logs.logarchive` on a Mac")
        }
        if sample.starts(with: [0x50, 0x4b, 0x03, 0x04]) || sample.starts(with: Array("bplist".utf8)) {
            throw DeviceLogError("\(name): binary file (zip / property list), not a text log; export the log as text (Console.app Copy, or `log show … > file`)")
        }
        if let nul = sample.firstIndex(of: 0) {
            throw DeviceLogError("\(name): binary data (NUL byte at offset \(nul)), not a text log; for a .tracev3 or .logarchive run `log show --archive … > file` on a Mac")
        }
        // Invalid UTF-8 in the sample (ignoring a sequence cut at the sample's end).
        var probe = sample[...]
        if sample.count >= 65_536 {
            var cut = 0
            while cut < 4, let last = probe.last, last >= 0x80 { probe = probe.dropLast(); cut += 1 }
        }
        if String(bytes: probe, encoding: .utf8) == nil {
            throw DeviceLogError("\(name): not UTF-8 text (binary data?); export the log as text first")
        }
    }
}
