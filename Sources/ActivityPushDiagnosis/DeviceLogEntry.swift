import ActivityPushCore
/// One log entry (a row plus its continuation lines) from a device log capture, as the reader hands it on.
/// Only entries of the processes the analyzer looks at are materialised (see ``DeviceLogReader``).
public struct DeviceLogEntry: Sendable, Hashable {
    /// The timestamp exactly as the capture printed it.
    public var time: String
    /// The emitting process (`liveactivitiesd`, `apsd`…).
    public var process: String
    /// The message without the `(library)` and `[subsystem:category]` prefixes; continuation lines joined
    /// with `\n`; `<private>` kept as printed.
    public var message: String
    /// 1-based line of the entry's first line (text formats and ndjson); nil for the json style.
    public var line: Int?
    /// 0-based position in the array (json style); nil otherwise.
    public var index: Int?

    /// An entry with the given fields (the reader makes them; tests and tools may too).
    public init(time: String, process: String, message: String, line: Int?, index: Int?) {
        self.time = time
        self.process = process
        self.message = message
        self.line = line
        self.index = index
    }
}

/// Why a log, a send journal or an audited folder could not be read: a ``Kind`` to branch on, the input (and
/// line) it concerns, the reason and the fix, kept apart; ``description`` joins them as `reason; fix`.
public struct DeviceLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public let rawValue: String
        /// A kind by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// `not-found`: no such file.
        public static let notFound = Kind(rawValue: "not-found")
        /// `unreadable`: the input exists but cannot be opened or read.
        public static let unreadable = Kind(rawValue: "unreadable")
        /// `is-directory`: a folder (e.g. a `.logarchive`) where a text log is expected.
        public static let isDirectory = Kind(rawValue: "is-directory")
        /// `not-a-directory`: the audit was given a file where a folder is expected.
        public static let notADirectory = Kind(rawValue: "not-a-directory")
        /// `empty`: the log has no content.
        public static let empty = Kind(rawValue: "empty")
        /// `unknown-format`: the text matches none of the capture formats.
        public static let unknownFormat = Kind(rawValue: "unknown-format")
        /// `compressed`: gzip data; decompress it first.
        public static let compressed = Kind(rawValue: "compressed")
        /// `binary`: zip, property list or other binary data, not a text log.
        public static let binary = Kind(rawValue: "binary")
        /// `not-utf8`: not UTF-8 text.
        public static let notUTF8 = Kind(rawValue: "not-utf8")
        /// `no-readable-element`: a json-style log in which no element could be read.
        public static let noReadableElement = Kind(rawValue: "no-readable-element")
        /// `bad-journal-line`: a send-journal line is not an object, or its `time` is missing or invalid; ``line`` is set.
        public static let badJournalLine = Kind(rawValue: "bad-journal-line")
    }

    /// What went wrong.
    public var kind: Kind
    /// The file, folder or input name concerned.
    public var input: String?
    /// 1-based line in ``input`` (journal lines).
    public var line: Int?
    /// What is wrong, naming the input (and line); without the fix.
    public var reason: String
    /// What to do (export the log as text, decompress it first, …), when there is something to do.
    public var fix: String?

    /// An error of `kind` about `input` (at `line`): its `reason` and, apart, its `fix`.
    public init(_ kind: Kind, input: String? = nil, line: Int? = nil, _ reason: String, fix: String? = nil) {
        self.kind = kind
        self.input = input
        self.line = line
        self.reason = reason
        self.fix = fix
    }

    /// `reason[; fix]`: one line naming the input and what to do.
    public var description: String { reason + (fix.map { "; \($0)" } ?? "") }
}
