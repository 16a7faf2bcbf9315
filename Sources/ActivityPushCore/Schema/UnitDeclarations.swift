/// `activity-push.units`: a small checked-in file next to the app's Swift source that tells the schema reader
/// how a type or property is carried in JSON when the reader cannot see it (a custom `init(from:)`, a wrapper
/// from another module), so `check` judges those values instead of skipping them.
///
/// One declaration a line, `NAME SHAPE` (a `:` after the name is allowed, with or without a space; LF or CRLF line
/// endings); `#` starts a comment:
/// ```
/// # type                                   shape
/// EpochSecondsDate                         unix-seconds
/// DeliveryAttributes.ContentState.eta      unix-milliseconds
/// TimerAttributes.ContentState             keyed
/// Money                                    string
/// ```
/// `NAME` is a type's qualified Swift name (`Outer.Inner`) or a type's name followed by `.property` (the Swift
/// property name). `SHAPE` is one of: `unix-seconds`, `unix-milliseconds`, `reference-seconds`, `iso8601` (dates),
/// `string`, `integer` (Int), `number` (Double), `bool`, or `keyed` — the type's custom `init(from:)` reads the
/// same keys synthesized decoding would (CodingKeys applied), so it is judged as if synthesized; combine it
/// with property lines for the properties it converts.
public struct UnitDeclarations: Sendable {
    /// What one declaration says a type or property is in JSON.
    public enum Shape: Sendable, Hashable {
        /// A date in this encoding (`unix-seconds`, `unix-milliseconds`, `reference-seconds`, `iso8601`).
        case date(DateEncoding)
        /// A JSON string.
        case string
        /// A JSON integer (Swift `Int`).
        case integer
        /// A JSON number (Swift `Double`).
        case number
        /// `true` or `false`.
        case bool
        /// The type's custom `init(from:)` reads the keys synthesized decoding would: judge it as synthesized.
        case keyed

        static let words: [(String, Shape)] = DateEncoding.allCases.map { ($0.rawValue, .date($0)) }
            + [("string", .string), ("integer", .integer), ("number", .number), ("bool", .bool), ("keyed", .keyed)]

        /// The value shape this declares; nil for `keyed` (which changes how a type is read, not its shape).
        var valueShape: ValueShape? {
            switch self {
            case .date(let encoding): return encoding == .referenceSeconds ? .date : .customDate(encoding)
            case .string: return .string
            case .integer: return .integer(.int)
            case .number: return .floating(name: "Double")
            case .bool: return .bool
            case .keyed: return nil
            }
        }
    }

    /// One declaration line.
    public struct Entry: Sendable {
        /// The qualified type name (`Outer.Inner`) or `Type.property`, as written.
        public var name: String
        /// The declared shape.
        public var shape: Shape
        /// Where it was declared (file and 1-based line).
        public var location: SwiftSourceLocation
    }

    /// The file name looked for next to the Swift sources.
    public static let fileName = "activity-push.units"

    /// Every declaration read so far, by name.
    public private(set) var entries: [String: Entry] = [:]

    /// No declarations.
    public init() {}

    /// - Throws: ``SchemaReadError`` naming `file:line` for a line that is not `NAME SHAPE`, an unknown shape,
    ///   or a name declared twice.
    public mutating func add(text: String, file: String) throws(SchemaReadError) {
        // "\r\n" is one Character in Swift: split on it too, so CRLF files read line by line.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            // `NAME SHAPE`, `NAME: SHAPE` and `NAME:SHAPE` (names never hold a colon).
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == ":" }).map(String.init)
            if words.isEmpty { continue }
            let location = SwiftSourceLocation(file: file, line: index + 1)
            let known = Shape.words.map(\.0).joined(separator: ", ")
            guard words.count == 2 else {
                throw SchemaReadError(.badUnits, file: file, line: index + 1, "expected `NAME SHAPE` (e.g. `EpochSecondsDate unix-seconds`), got \"\(line.trimmingCharacters(in: .whitespaces))\"",
                                      fix: "one declaration a line; SHAPE is one of \(known)")
            }
            let name = words[0]
            guard let shape = Shape.words.first(where: { $0.0 == words[1] })?.1 else {
                throw SchemaReadError(.badUnits, file: file, line: index + 1, "unknown shape \"\(words[1])\" for \(name)", fix: "use one of \(known)")
            }
            if let earlier = entries[name] {
                throw SchemaReadError(.badUnits, file: file, line: index + 1, "\(name) is already declared at \(earlier.location)", fix: "keep one declaration")
            }
            entries[name] = Entry(name: name, shape: shape, location: location)
        }
    }

    /// The declaration for a qualified type name or `Type.property`, if any.
    public subscript(name: String) -> Entry? { entries[name] }
    /// True when nothing is declared.
    public var isEmpty: Bool { entries.isEmpty }
}
