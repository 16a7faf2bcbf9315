/// A position in source text: 1-based line and column (columns count Unicode scalars), 0-based byte offset.
public struct SourcePosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, counting Unicode scalars.
    public var column: Int
    /// 0-based byte offset in the UTF-8 text.
    public var offset: Int

    /// A position from its parts.
    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// Line 1, column 1, offset 0: the position of values built in code.
    public static let start = SourcePosition(line: 1, column: 1, offset: 0)
    public var description: String { "\(line):\(column)" }
}

/// A JSON number exactly as written. The lexeme is kept so `1.5` given for an `Int`, `1e3`, or a 13-digit
/// millisecond timestamp are judged as the sender wrote them, not after a lossy conversion to `Double`.
public struct JSONNumber: Sendable, Hashable {
    /// The number's text as it appeared in the source (RFC 8259 grammar, already validated).
    public let lexeme: String

    /// A number from its text; the caller guarantees RFC 8259 number syntax.
    public init(lexeme: String) { self.lexeme = lexeme }
    /// An integer.
    public init(_ value: Int) { self.lexeme = String(value) }
    /// A Double: whole values below 10^15 are written without a fraction, others as Swift prints them.
    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            self.lexeme = String(Int64(value))
        } else {
            self.lexeme = "\(value)"
        }
    }

    /// True when written without fraction or exponent (`42`, `-7`).
    /// (The lexeme is ASCII, so these look at its UTF-8 bytes rather than at Characters.)
    public var isIntegerLexeme: Bool { !lexeme.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) }
    /// True when written with a `.` fraction.
    public var hasFraction: Bool { lexeme.utf8.contains(UInt8(ascii: ".")) }
    /// True when written with an `e`/`E` exponent.
    public var hasExponent: Bool { lexeme.utf8.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) }
    /// The value as a `Double` (`nan` never occurs for a valid lexeme).
    public var doubleValue: Double { Double(lexeme) ?? .nan }
    /// The integer value when the lexeme is an integer that fits in `Int64`.
    public var int64Value: Int64? { isIntegerLexeme ? Int64(lexeme) : nil }
    /// The exact integral value when the number denotes an integer (`3`, `3.0`, `3e2`) within ±2^63, else nil.
    public var integralValue: Int64? {
        if let i = int64Value { return i }
        let d = doubleValue
        guard d.isFinite, d == d.rounded(.towardZero), d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else { return nil }
        return Int64(d)
    }
    /// The value as a whole number for messages: `Int64` text when it fits, else the lexeme.
    package static func wholeText(_ d: Double) -> String {
        guard d.isFinite, d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else { return "\(d)" }
        return String(Int64(d.rounded(.down)))
    }

    /// True when the integer lexeme is negative (`-0` included).
    package var isNegative: Bool { lexeme.utf8.first == UInt8(ascii: "-") }
}

/// One parsed JSON value with the position where it starts.
public struct JSONNode: Sendable, Hashable {
    /// The value.
    public var value: JSONValue
    /// Where the value starts.
    public var position: SourcePosition

    /// A node; values built in code sit at ``SourcePosition/start``.
    public init(_ value: JSONValue, at position: SourcePosition = .start) {
        self.value = value
        self.position = position
    }
}

/// One member of a JSON object, in source order, with the key's own position.
public struct JSONMember: Sendable, Hashable {
    /// The member's name, unescaped.
    public var key: String
    /// Where the key starts.
    public var keyPosition: SourcePosition
    /// The member's value.
    public var value: JSONNode

    /// A member; members built in code sit at ``SourcePosition/start``.
    public init(key: String, keyPosition: SourcePosition = .start, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

/// A JSON value. Objects keep member order and duplicates (duplicates are reported by the reader).
/// Not `indirect`: objects and arrays already hold their children in arrays, so a scalar needs no box of its own.
public enum JSONValue: Sendable, Hashable {
    /// An object: members in source order, duplicates kept.
    case object([JSONMember])
    /// An array.
    case array([JSONNode])
    /// A string, unescaped.
    case string(String)
    /// A number as written (``JSONNumber``).
    case number(JSONNumber)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The JSON kind's name as the validator's messages say it.
    public var kindName: String {
        switch self {
        case .object: return "object"
        case .array: return "array"
        case .string: return "string"
        case .number(let n): return n.isIntegerLexeme ? "integer" : "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }

    /// The kind's name with its article, for messages ("an object", "a string").
    package var kindWithArticle: String {
        let k = kindName
        return (k.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + k
    }

    /// The members when this is an object, else nil.
    public var members: [JSONMember]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// The string when this is a string, else nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number when this is a number, else nil.
    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }
}

extension JSONNode {
    /// The first member named `key` when this node is an object.
    public func member(_ key: String) -> JSONMember? {
        guard case .object(let members) = value else { return nil }
        return members.first(where: { $0.key == key })
    }

    /// The value of the first member named `key` when this node is an object.
    public subscript(key: String) -> JSONNode? { member(key)?.value }
}
