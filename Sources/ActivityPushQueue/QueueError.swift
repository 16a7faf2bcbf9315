/// A queue operation failed: the database could not be opened or a statement failed, or an input was wrong.
/// `description` names what failed and, where there is one, the fix; ``kind`` says which class of failure it is,
/// so a worker can decide (wait for the database, stop claiming) without reading the message.
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
        /// Two concurrent transactions collided (PostgreSQL SQLSTATE 23505 unique_violation, 40P01
        /// deadlock_detected, 40001 serialization_failure): two claims picked pushes to one token; the claim
        /// is retried.
        package static let conflict = Kind(rawValue: "conflict")
    }

    /// The class of the failure; ``isTransient`` is derived from it.
    public var kind: Kind
    /// What failed (the file, server with password masked, field or token number) and the fix where there is one.
    public var description: String

    /// Makes an error with its message and class (``Kind/failed`` unless given).
    public init(_ description: String, kind: Kind = .failed) {
        self.description = description
        self.kind = kind
    }

    /// True for failures that may pass by themselves (disk freed, server back): worth retrying with backoff.
    public var isTransient: Bool { kind == .diskFull || kind == .unavailable }
}
