/// A queue operation failed: the database could not be opened or a statement failed, or an input was wrong.
/// ``kind`` says which class of failure it is, so a worker can decide (wait for the database, stop claiming)
/// without reading the message; ``location`` and ``tokenNumber`` say where; ``fix`` says what to do, kept apart
/// from the ``reason``. ``description`` joins them: `reason[; fix]`, e.g.
/// `SQLite q.db: disk full (step: database or disk is full); free space on that filesystem`.
public struct QueueError: Error, Sendable, CustomStringConvertible {
    /// The class of a failure. An open set of names.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name (`failed`, `disk-full`, `unavailable`, or another).
        public var rawValue: String
        /// Makes a kind from its name; any string is accepted (an open set).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The ``rawValue``.
        public var description: String { rawValue }
        /// A statement or input failed (the default).
        public static let failed = Kind(rawValue: "failed")
        /// The disk (or the PostgreSQL server's disk) is full: SQLite `SQLITE_FULL`, PostgreSQL SQLSTATE 53100.
        /// Nothing was written; retrying only helps once space is freed.
        public static let diskFull = Kind(rawValue: "disk-full")
        /// The database server cannot be reached or closed the connection (PostgreSQL restart, network).
        /// The connection is re-established on the next call.
        public static let unavailable = Kind(rawValue: "unavailable")
        /// Another process held the write lock longer than the busy timeout (SQLite `SQLITE_BUSY`/`SQLITE_LOCKED`,
        /// common on a loaded machine with several workers on one file). Nothing was written; try again.
        public static let busy = Kind(rawValue: "busy")
        /// `invalid-input`: what was to be enqueued is wrong (a token that is not hex, a broadcast given device
        /// tokens, a device push given none); retrying the same input fails the same way.
        public static let invalidInput = Kind(rawValue: "invalid-input")
        /// Two concurrent transactions collided (PostgreSQL SQLSTATE 23505 unique_violation, 40P01
        /// deadlock_detected, 40001 serialization_failure): two claims picked pushes to one token; the claim
        /// is retried.
        package static let conflict = Kind(rawValue: "conflict")
    }

    /// The class of the failure; ``isTransient`` is derived from it.
    public var kind: Kind
    /// The database concerned: the SQLite file path or the PostgreSQL server with its password masked.
    public var location: String?
    /// 1-based position of the offending token in the list given to enqueue (``Kind/invalidInput``).
    public var tokenNumber: Int?
    /// What failed, naming the file, server, field or token number where that reads better; without the fix.
    public var reason: String
    /// What to do, when there is something to do.
    public var fix: String?

    /// Makes an error with its reason and class (``Kind/failed`` unless given). Passwords in `reason`, `location`
    /// and `fix` (URL userinfo, `password=` parameter or keyword) are masked (``CredentialRedaction``).
    public init(_ reason: String, kind: Kind = .failed, location: String? = nil, tokenNumber: Int? = nil,
                fix: String? = nil) {
        // Every queue message passes here: mask database passwords once, for all of them.
        self.reason = CredentialRedaction.redact(reason)
        self.kind = kind
        self.location = location.map(CredentialRedaction.redact)
        self.tokenNumber = tokenNumber
        self.fix = fix.map(CredentialRedaction.redact)
    }

    /// `reason[; fix]`: one line naming what failed and what to do.
    public var description: String { reason + (fix.map { "; \($0)" } ?? "") }

    /// True for failures that may pass by themselves (disk freed, server back, lock released): worth retrying with
    /// backoff.
    public var isTransient: Bool { kind == .diskFull || kind == .unavailable || kind == .busy }
}
