/// Encoding a typed value (``ActivityAttributes`` or its `ContentState`) failed: a ``Kind`` to branch on, the
/// type concerned, the reason and the fix, kept apart.
///
/// ``description`` is `cannot encode <Type>: <reason>; <fix>`.
public struct ActivityEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public let rawValue: String
        /// A kind by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// `encoder-threw`: `JSONEncoder` threw (an `Encodable` implementation threw, or a non-finite Double).
        public static let encoderThrew = Kind(rawValue: "encoder-threw")
        /// `unreadable-output`: `JSONEncoder` produced bytes the JSON reader cannot read (a top-level fragment).
        public static let unreadableOutput = Kind(rawValue: "unreadable-output")
    }

    /// What went wrong.
    public var kind: Kind
    /// The Swift type that was encoded (`String(describing:)`).
    public var typeName: String
    /// What is wrong (the encoder's own error for ``Kind/encoderThrew``).
    public var reason: String
    /// What to do.
    public var fix: String

    /// An error of `kind` for `typeName`.
    package init(_ kind: Kind, typeName: String, _ reason: String, fix: String) {
        self.kind = kind
        self.typeName = typeName
        self.reason = reason
        self.fix = fix
    }

    /// `cannot encode <Type>: <reason>; <fix>`.
    public var description: String { "cannot encode \(typeName): \(reason); \(fix)" }
}
