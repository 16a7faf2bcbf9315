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

/// Why a log could not be read: a one-line reason naming the input and what to do.
public struct DeviceLogError: Error, Sendable, CustomStringConvertible {
    /// The reason, naming the input and the fix.
    public var description: String
    /// A reason as one line: what could not be read, where, and what to do.
    public init(_ description: String) { self.description = description }
}
