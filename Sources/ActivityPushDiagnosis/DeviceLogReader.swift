import ActivityPushCore
import Foundation

/// Reads a device-log capture in streaming fashion — chunk by chunk, never the whole file — and hands on the
/// entries of the processes asked for, with multi-line messages joined.
///
/// The format is detected from the first 64 KiB (preamble and header lines are skipped). For the json style the
/// array is split element by element; only elements that mention a wanted process are parsed. Rows of other
/// processes are recognised on raw bytes and dropped without building strings, which keeps a 200 MB log fast
/// and memory flat.
public struct DeviceLogReader {
    /// Longest message handed on (bytes of UTF-8): a longer one is cut and ends in `…[truncated N bytes]`,
    /// so one huge line cannot grow memory or output.
    public static let maxMessageBytes = 65_536
    /// Longest json-style element or ndjson line that is parsed; a longer one is skipped with a warning.
    public static let maxElementBytes = 1 << 20

    /// Processes whose entries are materialised (exact names).
    public var processes: Set<String>
    private var wanted: [[UInt8]]

    /// A reader that materialises the entries of `processes` (default `liveactivitiesd` and `apsd`).
    public init(processes: Set<String> = ["liveactivitiesd", "apsd"]) {
        self.processes = processes
        self.wanted = processes.map { Array($0.utf8) }
    }

    /// Reads `chunks` (each call returns the next bytes, nil at the end) and calls `onEntry` for every entry of a
    /// wanted process, in order. Returns the detected format.
    ///
    /// `onWarning` gets one line per part of the log that could not be read — a json-style element that is not
    /// JSON, a log that ends inside an element or before the closing `]` (a capture cut short), an element or
    /// ndjson line over ``maxElementBytes`` — naming its position; reading goes on.
    /// - Throws: ``DeviceLogError`` for binary or compressed input, for a layout no known format fits
    ///   (the message lists the known formats), when no json-style element at all could be read, or any
    ///   error `chunks` throws.
    @discardableResult
    public func read(name: String, chunks: () throws -> [UInt8]?,
                     onWarning: (String) -> Void = { _ in },
                     onEntry: (DeviceLogEntry) throws -> Void) throws -> DeviceLogFormat {
        // 1. Sample for detection.
        var sample: [UInt8] = []
        var ended = false
        while sample.count < 65_536 {
            guard let chunk = try chunks() else { ended = true; break }
            sample += chunk
        }
        try Self.rejectBinary(sample, name: name)
        let sampleLines = Self.splitLines(sample.prefix(65_536), max: 200)
        guard let (format, columns) = DeviceLogFormat.detect(lines: sampleLines) else {
            if sample.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) {
                throw DeviceLogError(.empty, input: name, "\(name): the log is empty")
            }
            let known = DeviceLogFormat.known.map { "\($0.format) (\($0.producedBy))" }.joined(separator: ", ")
            throw DeviceLogError(.unknownFormat, input: name, "\(name): unknown log format (first line: \"\(Self.preview(sampleLines.first ?? []))\")", fix: "capture it in one of the known formats: \(known)")
        }
        var pending: [UInt8]? = sample
        let next: () throws -> [UInt8]? = {
            if let held = pending { pending = nil; return held }
            if ended { return nil }
            return try chunks()
        }
        switch format {
        case .logJSON: try readJSONArray(next, name: name, onWarning: onWarning, onEntry: onEntry)
        case .logNDJSON: try readNDJSON(next, name: name, onWarning: onWarning, onEntry: onEntry)
        default: try readText(next, parser: LogRowParser(format: format, consoleColumns: columns), onEntry: onEntry)
        }
        return format
    }

    /// Reads a file (or standard input for `-`) in 1 MiB chunks.
    @discardableResult
    public func read(path: String, onWarning: (String) -> Void = { _ in },
                     onEntry: (DeviceLogEntry) throws -> Void) throws -> DeviceLogFormat {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw DeviceLogError(.notFound, input: path, "\(path): no such file")
            }
            if isDir.boolValue {
                throw DeviceLogError(.isDirectory, input: path, "\(path): is a directory", fix: "for a .logarchive run `log show --archive \(path) --style ndjson > log.ndjson` on a Mac and pass that file")
            }
            guard let opened = FileHandle(forReadingAtPath: path) else { throw DeviceLogError(.unreadable, input: path, "\(path): cannot be opened for reading") }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        return try read(name: path == "-" ? "standard input" : path, chunks: {
            do {
                guard let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else { return nil }
                return [UInt8](data)
            } catch {
                throw DeviceLogError(.unreadable, input: path, "\(path): read failed: \(error.localizedDescription)")
            }
        }, onWarning: onWarning, onEntry: onEntry)
    }

    // MARK: - Text formats

    private func readText(_ next: () throws -> [UInt8]?, parser: LogRowParser,
                          onEntry: (DeviceLogEntry) throws -> Void) throws {
        var current: (time: String, process: String, message: [UInt8], dropped: Int, line: Int)?
        var lineNumber = 0
        func flush() throws {
            if let collected = current {
                try onEntry(DeviceLogEntry(time: collected.time, process: collected.process,
                                           message: Self.capped(collected.message, dropped: collected.dropped),
                                           line: collected.line, index: nil))
            }
            current = nil
        }
        func append(_ bytes: UnsafeBufferPointer<UInt8>, dropped: Int) {
            let room = max(0, Self.maxMessageBytes - current!.message.count)
            let take = min(room, bytes.count)
            current!.message += UnsafeBufferPointer(rebasing: bytes[0..<take])
            current!.dropped += bytes.count - take + dropped
        }
        try forEachLine(next, maxLine: Self.maxMessageBytes) { line, dropped in
            lineNumber += 1
            if let header = parser.parse(line) {
                try flush()
                let proc = UnsafeBufferPointer(rebasing: line[header.process])
                guard wanted.contains(where: { Self.equal(proc, $0) }) else { return }
                current = (String(decoding: UnsafeBufferPointer(rebasing: line[header.time]), as: UTF8.self),
                           String(decoding: proc, as: UTF8.self), [], 0, lineNumber)
                append(UnsafeBufferPointer(rebasing: line[header.messageStart...]), dropped: dropped)
            } else if current != nil {
                if Self.isPreambleOrFooter(line) { return }
                [UInt8(10)].withUnsafeBufferPointer { append($0, dropped: 0) }
                Self.continuation(line, format: parser.format).withUnsafeBufferPointer { append($0, dropped: dropped) }
            }
        }
        try flush()
    }

    /// A continuation line's text: Console copies may start it with TABs (empty columns); idevicesyslog indents.
    private static func continuation(_ line: UnsafeBufferPointer<UInt8>, format: DeviceLogFormat) -> [UInt8] {
        var textStart = 0
        if format == .consoleCopy || format == .idevicesyslog {
            while textStart < line.count, line[textStart] == 9 || (format == .idevicesyslog && line[textStart] == 32) { textStart += 1 }
        }
        return Array(UnsafeBufferPointer(rebasing: line[textStart...]))
    }

    private static func isPreambleOrFooter(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        startsWith(line, "Filtering the log data") || startsWith(line, "Skipping ")
            || startsWith(line, "Log      - Default:") || startsWith(line, "Timestamp  ")
            || startsWith(line, "Activity - Create:") || startsWith(line, "----------")
    }

    // MARK: - ndjson

    private func readNDJSON(_ next: () throws -> [UInt8]?, name: String, onWarning: (String) -> Void,
                            onEntry: (DeviceLogEntry) throws -> Void) throws {
        var lineNumber = 0
        try forEachLine(next, maxLine: Self.maxElementBytes) { line, dropped in
            lineNumber += 1
            var offset = 0
            while offset < line.count, line[offset] == 32 || line[offset] == 9 { offset += 1 }
            guard offset < line.count, line[offset] == 123 /* { */, mentionsWanted(line) else { return }
            if dropped > 0 {
                onWarning("\(name):\(lineNumber): line is longer than \(Self.maxElementBytes) bytes (\(line.count + dropped)); skipped")
                return
            }
            switch Self.parseElement(Array(line), line: lineNumber, index: nil) {
            case .entry(let entry): if processes.contains(entry.process) { try onEntry(entry) }
            case .notJSON(let why): onWarning("\(name):\(lineNumber): line is not JSON (\(why)); skipped")
            case .noMessage: break
            }
        }
    }

    // MARK: - json (one array, streamed element by element)

    private func readJSONArray(_ next: () throws -> [UInt8]?, name: String, onWarning: (String) -> Void,
                               onEntry: (DeviceLogEntry) throws -> Void) throws {
        var inArray = false
        var closed = false
        var depth = 0
        var inString = false
        var escaped = false
        var element: [UInt8] = []
        var elementBytes = 0  // the element's full size (it is kept only up to maxElementBytes)
        var index = 0
        var good = 0
        var problems = 0
        var atLineStart = true
        var skippingLine = false
        var garbageAt: Int?  // index of the element before which stray text was seen
        func warn(_ message: String) {
            problems += 1
            onWarning("\(name): \(message)")
        }
        func finishElement() throws {
            defer {
                element.removeAll(keepingCapacity: element.count <= 1 << 16)
                elementBytes = 0
                index += 1
            }
            if elementBytes > Self.maxElementBytes {
                warn("element \(index) is larger than \(Self.maxElementBytes) bytes (\(elementBytes)); skipped")
                return
            }
            let wantedHere = element.withUnsafeBufferPointer { mentionsWanted($0) }
            guard wantedHere else {
                // Cheap shape check on elements not parsed: an object starts with a key or is empty.
                var offset = 1
                while offset < element.count, element[offset] == 32 || element[offset] == 10 || element[offset] == 13 || element[offset] == 9 { offset += 1 }
                if element.first == 123, offset < element.count, element[offset] != 34, element[offset] != 125 {
                    warn("element \(index) is not JSON (\"\(Self.preview(Array(element.prefix(40))))\"); skipped")
                } else {
                    good += 1
                }
                return
            }
            switch Self.parseElement(element, line: nil, index: index) {
            case .entry(let entry):
                good += 1
                if processes.contains(entry.process) { try onEntry(entry) }
            case .noMessage: good += 1
            case .notJSON(let why): warn("element \(index) is not JSON (\(why)); skipped")
            }
        }
        while let chunk = try next() {
            try chunk.withUnsafeBufferPointer { buf in
                var offset = 0
                var elementStart = depth >= 1 ? 0 : -1
                func keep(_ upTo: Int) {  // bytes [elementStart, upTo) of this chunk belong to the element
                    let length = upTo - max(elementStart, 0)
                    guard length > 0 else { return }
                    let room = max(0, Self.maxElementBytes + 1 - element.count)
                    let from = max(elementStart, 0)
                    element += UnsafeBufferPointer(rebasing: buf[from..<(from + min(length, room))])
                    elementBytes += length
                }
                while offset < buf.count {
                    let byte = buf[offset]
                    if !inArray {
                        // Preamble lines ("Filtering…", "Skipping…") until the line that opens the array; after
                        // the closing `]`, anything but white space is reported once.
                        if closed {
                            if byte != 32 && byte != 10 && byte != 13 && byte != 9 && garbageAt == nil {
                                garbageAt = index
                                warn("text after the closing ']' of the array; ignored")
                            }
                            offset += 1
                            continue
                        }
                        if atLineStart { skippingLine = byte != 91 }
                        atLineStart = byte == 10
                        if !skippingLine, byte == 91 { inArray = true }
                        offset += 1
                        continue
                    }
                    if inString {
                        if escaped { escaped = false } else if byte == 92 { escaped = true } else if byte == 34 { inString = false }
                        offset += 1
                        continue
                    }
                    switch byte {
                    case 34:
                        inString = true
                        if depth == 0, garbageAt != index {  // a bare string element
                            garbageAt = index
                            warn("stray text before element \(index) (a value that is not an object); ignored")
                        }
                    case 123, 91:
                        if depth == 0 { elementStart = offset }
                        depth += 1
                    case 125, 93:
                        if depth == 0 {
                            if byte == 93 { inArray = false; closed = true; atLineStart = false; skippingLine = true }
                            else if garbageAt != index {
                                garbageAt = index
                                warn("stray '}' before element \(index); ignored")
                            }
                            break
                        }
                        depth -= 1
                        if depth == 0 {
                            keep(offset + 1)
                            elementStart = -1
                            try finishElement()
                        }
                    case 32, 10, 13, 9, 44: break
                    default:
                        if depth == 0, garbageAt != index {
                            garbageAt = index
                            warn("stray text before element \(index) (\"\(Self.preview(Array(buf[offset..<min(buf.count, offset + 40)])))\"); ignored")
                        }
                    }
                    offset += 1
                }
                if depth >= 1, elementStart >= 0 { keep(buf.count) }
            }
        }
        if depth > 0 || inString {
            warn("the log ends inside element \(index) (a capture cut short?); that element is not read")
        } else if inArray {
            warn("the log ends before the closing ']' of the array (a capture cut short?)")
        }
        if good == 0, problems > 0 {
            throw DeviceLogError(.noReadableElement, input: name, "\(name): no element of the json-style log could be read (\(problems) problem(s), see the warnings above)", fix: "export it again with `log show --style json`")
        }
    }

    /// What one json-style element or ndjson line holds.
    enum ParsedElement {
        case entry(DeviceLogEntry)
        /// A JSON object without a message (footer, statistics).
        case noMessage
        case notJSON(String)
    }

    static func parseElement(_ bytes: [UInt8], line: Int?, index: Int?) -> ParsedElement {
        if let parsed = entry(fromJSON: bytes, line: line, index: index) { return .entry(parsed) }
        let doc = JSONReader.read(bytes)
        guard doc.root != nil, doc.problems.isEmpty else {
            return .notJSON(doc.problems.first.map { "\($0.message) at column \($0.position.column)" } ?? "not JSON")
        }
        return .noMessage
    }

    /// Builds an entry from one `log --style json|ndjson` object. nil for footers and objects without a message.
    static func entry(fromJSON bytes: [UInt8], line: Int?, index: Int?) -> DeviceLogEntry? {
        // Fast path: read only the four top-level string fields needed; fall back to the full reader.
        if let fields = bytes.withUnsafeBufferPointer({ TopLevelStringFields.scan($0) }) {
            guard let message = fields.message else { return nil }
            var process = fields.process ?? ""
            if process.isEmpty, let path = fields.imagePath { process = String(path.split(separator: "/").last ?? "") }
            return DeviceLogEntry(time: fields.timestamp ?? "", process: process, message: capped(message), line: line, index: index)
        }
        guard let root = JSONReader.read(bytes).root, let message = root["eventMessage"]?.value.stringValue else {
            return nil
        }
        var process = root["process"]?.value.stringValue ?? ""
        if process.isEmpty, let path = root["processImagePath"]?.value.stringValue {
            process = String(path.split(separator: "/").last ?? "")
        }
        let time = root["timestamp"]?.value.stringValue ?? ""
        return DeviceLogEntry(time: time, process: process, message: capped(message), line: line, index: index)
    }

    // MARK: - Bytes

    /// Calls `body` for each line (without `\n` / `\r\n`), across chunk boundaries. A line longer than `maxLine`
    /// bytes is handed on cut to `maxLine` bytes with the number of bytes dropped (memory stays flat).
    private func forEachLine(_ next: () throws -> [UInt8]?, maxLine: Int,
                             _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        var carry: [UInt8] = []
        var dropped = 0
        func hold(_ part: UnsafeBufferPointer<UInt8>) {
            let take = min(part.count, max(0, maxLine - carry.count))
            carry += UnsafeBufferPointer(rebasing: part[0..<take])
            dropped += part.count - take
        }
        while let chunk = try next() {
            try chunk.withUnsafeBufferPointer { buf in
                var start = 0
                var offset = 0
                let length = buf.count
                while offset < length {
                    if buf[offset] == 10 {
                        if carry.isEmpty && dropped == 0 && offset - start <= maxLine {
                            try body(Self.dropCR(UnsafeBufferPointer(rebasing: buf[start..<offset])), 0)
                        } else {
                            hold(UnsafeBufferPointer(rebasing: buf[start..<offset]))
                            try carry.withUnsafeBufferPointer { try body(Self.dropCR($0), dropped) }
                            carry.removeAll(keepingCapacity: carry.count <= 1 << 16)
                            dropped = 0
                        }
                        start = offset + 1
                    }
                    offset += 1
                }
                if start < length { hold(UnsafeBufferPointer(rebasing: buf[start..<length])) }
            }
        }
        if !carry.isEmpty { try carry.withUnsafeBufferPointer { try body(Self.dropCR($0), dropped) } }
    }

    /// A message as handed on: trailing white space trimmed, cut to ``maxMessageBytes`` (at a character
    /// boundary) with `…[truncated N bytes]` when longer (`dropped`: bytes already cut before decoding).
    static func capped(_ bytes: [UInt8], dropped: Int) -> String {
        var keep = bytes.count
        var cut = dropped
        if keep > maxMessageBytes {
            cut += keep - maxMessageBytes
            keep = maxMessageBytes
        }
        if cut > 0 {  // do not split a UTF-8 sequence
            while keep > 0, keep < bytes.count, bytes[keep] & 0xC0 == 0x80 { keep -= 1; cut += 1 }
        }
        let text = trimTrailing(String(decoding: bytes[0..<keep], as: UTF8.self))
        return cut > 0 ? text + "…[truncated \(cut) bytes]" : text
    }

    static func capped(_ message: String) -> String {
        message.utf8.count > maxMessageBytes ? capped(Array(message.utf8), dropped: 0) : trimTrailing(message)
    }

    private static func dropCR(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if let last = b.last, last == 13 { return UnsafeBufferPointer(rebasing: b[0..<(b.count - 1)]) }
        return b
    }

    private func mentionsWanted(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        wanted.contains { Self.contains(b, $0) }
    }

    static func contains(_ hay: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        let needleCount = needle.count, hayCount = hay.count
        guard needleCount > 0, hayCount >= needleCount else { return false }
        let first = needle[0]
        var offset = 0
        while offset <= hayCount - needleCount {
            if hay[offset] == first {
                var matched = 1
                while matched < needleCount, hay[offset + matched] == needle[matched] { matched += 1 }
                if matched == needleCount { return true }
            }
            offset += 1
        }
        return false
    }

    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] { return false }
        return true
    }

    static func startsWith(_ a: UnsafeBufferPointer<UInt8>, _ s: String) -> Bool {
        let prefix = Array(s.utf8)
        guard a.count >= prefix.count else { return false }
        for index in 0..<prefix.count where a[index] != prefix[index] { return false }
        return true
    }

    static func splitLines(_ bytes: ArraySlice<UInt8>, max: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var cur: [UInt8] = []
        for byte in bytes {
            if byte == 10 {
                if cur.last == 13 { cur.removeLast() }
                out.append(cur)
                cur = []
                if out.count >= max { return out }
            } else {
                cur.append(byte)
            }
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }

    static func trimTrailing(_ s: String) -> String {
        var trimmed = Substring(s)
        while let last = trimmed.last, last == " " || last == "\n" || last == "\r" || last == "\t" { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    private static func preview(_ line: [UInt8]) -> String {
        String(decoding: line.prefix(60), as: UTF8.self).replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\"", with: "'")
    }

    /// Binary, compressed or non-UTF-8 input gets one clear line.
    static func rejectBinary(_ sample: [UInt8], name: String) throws {
        if sample.starts(with: [0x1f, 0x8b]) {
            throw DeviceLogError(.compressed, input: name, "\(name): gzip-compressed", fix: "decompress it first (gunzip), or for a sysdiagnose tarball run `log show --archive system_logs.logarchive` on a Mac")
        }
        if sample.starts(with: [0x50, 0x4b, 0x03, 0x04]) || sample.starts(with: Array("bplist".utf8)) {
            throw DeviceLogError(.binary, input: name, "\(name): binary file (zip / property list), not a text log", fix: "export the log as text (Console.app Copy, or `log show … > file`)")
        }
        if let nul = sample.firstIndex(of: 0) {
            throw DeviceLogError(.binary, input: name, "\(name): binary data (NUL byte at offset \(nul)), not a text log", fix: "for a .tracev3 or .logarchive run `log show --archive … > file` on a Mac")
        }
        // Invalid UTF-8 in the sample (ignoring a sequence cut at the sample's end).
        var probe = sample[...]
        if sample.count >= 65_536 {  // drop only a sequence the sample's end cuts short
            var lead = probe.endIndex - 1
            while lead > probe.startIndex, probe.endIndex - lead < 4, probe[lead] & 0xC0 == 0x80 { lead -= 1 }
            if lead >= probe.startIndex, probe[lead] >= 0xC0 {
                let need = probe[lead] >= 0xF0 ? 4 : probe[lead] >= 0xE0 ? 3 : 2
                if probe.endIndex - lead < need { probe = probe[..<lead] }
            }
        }
        if String(bytes: probe, encoding: .utf8) == nil {
            throw DeviceLogError(.notUTF8, input: name, "\(name): not UTF-8 text (binary data?)", fix: "export the log as text first")
        }
    }
}
