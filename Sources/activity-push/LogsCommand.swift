import ActivityPushCore
import ActivityPushDiagnosis
import Foundation

/// `activity-push logs [FILE|-] [--since TIME] [--bundle-id ID] [--journal FILE] [--attributes PATH]...
///                     [--format text|json]`
/// Exit: 0 no rejection found, 1 at least one rejection, 2 unreadable input / unknown format / usage.
enum LogsOptions {
    static let since = Option<LogTimestamp>(
        "--since", valueName: "TIME",
        help: "skip entries before TIME (2026-11-24 11:02:00[-0800], ISO 8601, HH:MM:SS or UNIX seconds)"
    ) { text, flag in
        let forms = "use 2026-11-24 11:02:00, 2026-11-24T19:02:00Z or 11:02:00"
        if !text.isEmpty, text.allSatisfy({ "0123456789.+-eE".contains($0) }), let unixSeconds = Double(text) {
            guard let timestamp = LogTimestamp(unixSeconds: unixSeconds) else {
                throw UsageError(.badValue, option: flag, "\(flag): \(text) is out of range as UNIX seconds (years 1 to 9999)", fix: forms)
            }
            return timestamp
        }
        guard let timestamp = LogTimestamp.parse(text) else {
            throw UsageError(.badValue, option: flag, "\(flag): cannot read '\(text)' (or no such date)", fix: forms)
        }
        return timestamp
    }
    static let bundleID = Option<String>(
        "--bundle-id", valueName: "ID", help: "keep events of this bundle (events whose bundle the log does not reveal are kept)")
    static let journal = Option<String>(
        "--journal", valueName: "FILE",
        help: "send journal (NDJSON, one SendJournalEntry per line): pair each rejection with the\n"
            + "push sent just before it and re-check that payload")
    static let attributes = Option<String>(
        "--attributes", valueName: "PATH",
        help: "the app's ActivityAttributes Swift source (file or folder) for the re-check", repeatable: true)
    static let format = Option<OutputFormat>.format([.text, .json], default: .text)
}

let logsCommand = Command(
    name: "logs",
    summary: "find Live Activity rejections in a device log (Console, log show/stream, idevicesyslog)",
    synopsis: ["[FILE|-] [options]"],
    groups: [OptionGroup(LogsOptions.since, LogsOptions.bundleID, LogsOptions.journal, LogsOptions.attributes,
                         LogsOptions.format)],
    notes: """
    FILE: a device log capture (default: standard input); the format is detected:
          \(DeviceLogFormat.known.map(\.producedBy).joined(separator: "; "))
    exit: 0 no rejection, 1 rejections found, 2 unreadable input or unknown format
    """
) { arguments in
    let format = try arguments.defaultedValue(LogsOptions.format)
    let since = try arguments.value(LogsOptions.since)
    let bundleID = try arguments.value(LogsOptions.bundleID)
    let journalPath = try arguments.value(LogsOptions.journal)
    let attributePaths = try arguments.values(LogsOptions.attributes)
    guard arguments.positionals.count <= 1 else { throw UsageError(.badArguments, "one log file at a time (got \(arguments.positionals.count))") }
    let path = arguments.positionals.first ?? "-"

    var pairing: RejectionPairing?
    if let journalPath {
        let journal: [SendJournalEntry]
        // Read whole, so capped: a journal covering one log capture is far below it.
        let bytes = try Inputs.bytes(journalPath, limit: Inputs.readLimit)
        do { journal = try SendJournalEntry.readJournal(bytes: bytes, file: journalPath) } catch let error as DeviceLogError {
            throw UsageError(refused: error, option: "--journal", file: error.input)
        }
        var schema: ActivitySchema?
        if !attributePaths.isEmpty {
            schema = try Inputs.schema(attributePaths)
        }
        pairing = RejectionPairing(journal: journal, validator: Validator(schema: schema))
    } else if !attributePaths.isEmpty {
        throw UsageError(.conflictingOptions, option: "--attributes", "--attributes is used with --journal (to re-check the paired payloads)")
    }

    let out = BufferedStdout()
    var analyzer = LiveActivityLogAnalyzer(since: since, bundleID: bundleID)
    var count = 0
    var rejections = 0
    var unreadable = 0
    do {
        if format == .json { out.write("[") }
        var isFolder: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw UsageError(.unreadableInput, file: path, "\(path): is a directory",
                             fix: "for a .logarchive run `log show --archive \(path) --style ndjson > log.ndjson` on a Mac and pass that file")
        }
        // Opened here so a FIFO with no writer is refused after a wait, not waited on forever; read in chunks.
        let input = FileHandle(fileDescriptor: try Inputs.openForReading(path), closeOnDealloc: path != "-")
        try DeviceLogReader().read(name: Inputs.displayName(path), chunks: {
            do {
                guard let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty else { return nil }
                return [UInt8](chunk)
            } catch {
                throw DeviceLogError(.unreadable, input: path, "\(Inputs.displayName(path)): read failed: \(error.localizedDescription)")
            }
        }, onWarning: { warning in
            unreadable += 1
            printError("activity-push logs: warning: \(warning)")
        }) { entry in
            guard var event = analyzer.event(for: entry) else { return }
            if let pairing { event.pairing = pairing.pair(event) }
            if event.isRejection { rejections += 1 }
            if format == .json {
                out.write(count == 0 ? "\n" : ",\n")
                out.append { event.appendJSON(to: &$0) }
            } else {
                out.write(textLines(event))
            }
            count += 1
        }
        if format == .json {
            out.write(count == 0 ? "]\n" : "\n]\n")
        } else {
            out.write(count == 0 ? "no Live Activity events from liveactivitiesd in this log"
                                 : "\(count) Live Activity event(s), \(rejections) rejection(s)")
            out.write(unreadable == 0 ? "\n" : "; \(unreadable) part(s) of the log could not be read (warnings on stderr)\n")
        }
        out.flush()
        if unreadable > 0 {
            printError("activity-push logs: \(unreadable) part(s) of the log could not be read; the events above may be incomplete")
        }
    } catch let error as DeviceLogError {
        out.discard()
        throw UsageError(refused: error, file: error.input)
    }
    return rejections > 0 ? 1 : 0
}

private func textLines(_ event: LiveActivityLogEvent) -> String {
    let location = event.index.map { "#\($0)" } ?? event.line.map { "line \($0)" } ?? ""
    var text = "\(event.time)  \(event.kind)  (\(location))\n    \(event.process): \(event.message.replacingOccurrences(of: "\n", with: "\n    "))\n"
    if let bundle = event.bundle { text += "    bundle: \(bundle)\n" }
    if let pattern = LogLineCatalog.pattern(of: event.kind), !pattern.isInformational {
        if !pattern.payloadCauses.isEmpty {
            text += "    likely payload causes: \(pattern.payloadCauses.map(\.rawValue).joined(separator: ", "))\n"
        }
        if !pattern.deliveryCauses.isEmpty { text += "    likely delivery causes: \(pattern.deliveryCauses.joined(separator: ", "))\n" }
    }
    if let pairing = event.pairing {
        text += "    \(pairing.summary(at: event.time))\n"
        for finding in pairing.causes {
            text += "      \(finding.code) \(finding.path): \(finding.message)\(finding.fix.map { " — fix: \($0)" } ?? "")\n"
        }
    }
    return text
}

/// Collects output and writes it to stdout in large blocks (events stream out as they are found).
final class BufferedStdout {
    private var buffer: [UInt8] = []
    private var wroteAny = false
    func write(_ text: String) {
        buffer += text.utf8
        if buffer.count >= 1 << 16 { flush() }
    }
    /// Lets a writer append bytes directly.
    func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= 1 << 16 { flush() }
    }
    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
        wroteAny = true
    }
    /// Drops unwritten output (an error cut the run short).
    func discard() { buffer.removeAll() }
}
