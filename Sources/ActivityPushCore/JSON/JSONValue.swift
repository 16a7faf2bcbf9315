/// A position in source text: 1-based line and column (columns count Unicode scalars), 0-based byte offset.
public struct SourcePosition: Sendable, Hashable, Codable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    public static let start = SourcePosition(line: 1, column: 1, offset: 0)
    public var description: String { "\(line):\(column)" }
}

/// A JSON number exactly as written. The lexeme is kept so `1.5` given for an `Int`, `1e3`, or a 13-digit
/// millisecond timestamp are judged as the sender wrote them, not after a lossy conversion to `Double`.
public struct JSONNumber: Sendable, Hashable {
    /// The number's text as it appeared in the source (RFC 8259 grammar, already validated).
    public let lexeme: String

    public init(lexeme: String) { self.lexeme = lexeme }
    public init(_ value: Int) { self.lexeme = String(value) }
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
    public var hasFraction: Bool { lexeme.utf8.contains(UInt8(ascii: ".")) }
    public var hasExponent: Bool { lexeme.utf8.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) }
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
    public static func wholeText(_ d: Double) -> String {
        guard d.isFinite, d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else { return "\(d)" }
        return String(Int64(d.rounded(.down)))
    }

    /// True when the integer lexeme is negative (`-0` included).
    public var isNegative: Bool { lexeme.utf8.first == UInt8(ascii: "-") }
}

/// One parsed JSON value with the position where it starts.
public struct JSONNode: Sendable, Hashable {
    public var value: JSONValue
    public var position: SourcePosition

    public init(_ value: JSONValue, at position: SourcePosition = .start) {
        self.value = value
        self.position = position
    }
}

/// One member of a JSON object, in source order, with the key's own position.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: JSONNode

    public init(key: String, keyPosition: SourcePosition = .start, value: JSONNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}

/// A JSON value. Objects keep member order and duplicates (duplicates are reported by the reader).
/// Not `indirect`: objects and arrays already hold their children in arrays, so a scalar needs no box of its own.
public enum JSONValue: Sendable, Hashable {
    case object([JSONMember])
    case array([JSONNode])
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
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
    public var kindWithArticle: String {
        let k = kindName
        return (k.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + k
    }

    public var members: [JSONMember]? {
        if case .object(let m) = self { return m }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

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
