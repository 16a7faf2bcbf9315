/// A problem the strict JSON reader found. Syntax errors stop reading; duplicate keys do not.
public struct JSONProblem: Sendable, Hashable {
    /// What kind of problem it is; syntax and depth problems stop reading.
    public enum Kind: String, Sendable, Hashable {
        /// Not RFC 8259 JSON (trailing comma, comment, NaN, bad escape, invalid UTF-8…). Reading stopped here.
        case syntax
        /// The same key twice in one object (RFC 8259 §4 says names SHOULD be unique; decoders disagree on which wins).
        case duplicateKey
        /// Nesting deeper than the reader's limit. Reading stopped here.
        case tooDeep
    }

    /// The kind of problem.
    public var kind: Kind
    /// A one-line description (what was found, what was expected).
    public var message: String
    /// Where the problem is in the text.
    public var position: SourcePosition
    /// Dotted path of the offending key or value (`$` for the root).
    public var path: String
}

/// The result of reading one JSON text: the tree (nil when a syntax error stopped reading) and every problem.
public struct JSONDocument: Sendable {
    /// The tree; nil when a syntax or depth problem stopped reading.
    public var root: JSONNode?
    /// Every problem found, in text order.
    public var problems: [JSONProblem]
}

/// A strict RFC 8259 reader that keeps every value's line:column and every number's lexeme.
///
/// Foundation's `JSONSerialization` accepts trailing commas and other extensions on some platforms and loses
/// positions and number spelling, so it cannot judge a payload; this reader can. It never traps: nesting deeper
/// than `maxDepth` is reported as ``JSONProblem/Kind/tooDeep``.
public enum JSONReader {
    /// Deepest nesting read by default (256 levels of objects and arrays).
    public static let defaultMaxDepth = 256

    /// Reads UTF-8 `bytes` as one JSON text; nesting deeper than `maxDepth` is a ``JSONProblem/Kind/tooDeep`` problem.
    public static func read(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) -> JSONDocument {
        read(bytes, maxDepth: maxDepth, knownStrings: nil)
    }

    /// Reads with a table of strings the caller expects (a validator's keys): the same document, built faster.
    package static func read(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, knownStrings: JSONKeyTable?) -> JSONDocument {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(buffer, maxDepth: maxDepth, knownStrings: knownStrings)
            return parser.parseDocument()
        }
    }

    /// Reads `text` as one JSON text (as the byte version reads its UTF-8).
    public static func read(_ text: String, maxDepth: Int = defaultMaxDepth) -> JSONDocument {
        read(Array(text.utf8), maxDepth: maxDepth)
    }
}

private struct ParseStop: Error {}

/// One step of the path to the value being read: an object key or an array index. Joined into the dotted
/// path (`aps.alert.title`, `stops.0`) only when a problem is reported.
private enum PathStep {
    case key(String)
    case index(Int)
}

/// Where an open object's key is in the input, and whether those bytes are the key itself (ASCII, no escapes).
private struct KeySpan {
    var start: Int
    var count: Int
    var plain: Bool
}

/// The reader proper: one pass over the bytes (no Foundation), building the tree bottom-up. Open containers keep
/// their members and elements on scratch stacks and get exactly sized arrays when they close.
private struct Parser: ~Copyable {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let knownStrings: JSONKeyTable?
    var index = 0
    var line = 1
    var lineStart = 0
    /// UTF-8 continuation bytes seen so far, and at the start of the current line, so columns count scalars.
    var continuationBytes = 0
    var continuationAtLineStart = 0
    var depth = 0
    var path: [PathStep] = { var steps: [PathStep] = []; steps.reserveCapacity(16); return steps }()
    var problems: [JSONProblem] = []
    var openMembers = JSONScratchStack<JSONMember>(capacity: 32)
    var openElements = JSONScratchStack<JSONNode>(capacity: 16)
    var openKeySpans = JSONScratchStack<KeySpan>(capacity: 32)
    /// Set by `parseString`: the string just read is its bytes verbatim (ASCII, no escapes).
    var lastStringWasPlain = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, knownStrings: JSONKeyTable?) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.knownStrings = knownStrings
    }

    var position: SourcePosition { position(at: index) }

    func position(at offset: Int) -> SourcePosition {
        SourcePosition(line: line, column: offset - lineStart - (continuationBytes - continuationAtLineStart) + 1,
                       offset: offset)
    }

    var pathString: String {
        guard !path.isEmpty else { return "$" }
        return path.map { step -> String in
            switch step {
            case .key(let key): return key
            case .index(let index): return String(index)
            }
        }.joined(separator: ".")
    }

    mutating func parseDocument() -> JSONDocument {
        do {
            if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
                try fail("the text is UTF-16 (byte order mark \(String(bytes[0], radix: 16, uppercase: true)) \(String(bytes[1], radix: 16, uppercase: true))); JSON sent to APNs must be UTF-8 — convert it, e.g. iconv -f UTF-16 -t UTF-8")
            }
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                try fail("a byte order mark (U+FEFF) starts the text; RFC 8259 §8.1 forbids it in JSON sent over a network")
            }
            skipWhitespace()
            if index >= bytes.count { try fail("the text is empty; expected a JSON value") }
            let root = try parseValue()
            skipWhitespace()
            if index < bytes.count {
                try fail("unexpected \(describe(bytes[index])) after the JSON value; a document holds exactly one value")
            }
            return JSONDocument(root: root, problems: problems)
        } catch {
            return JSONDocument(root: nil, problems: problems)
        }
    }

    mutating func fail(_ message: String, at offset: Int? = nil, kind: JSONProblem.Kind = .syntax) throws -> Never {
        problems.append(JSONProblem(kind: kind, message: message, position: position(at: offset ?? index), path: pathString))
        throw ParseStop()
    }

    func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        // Compact JSON has no whitespace: decide that with one comparison before the loop.
        if index < bytes.count, bytes[index] > 0x20 { return }
        skipWhitespaceRun()
    }

    mutating func skipWhitespaceRun() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
                continuationAtLineStart = continuationBytes
            default:
                return
            }
        }
    }

    mutating func parseValue() throws -> JSONNode {
        let start = position
        guard index < bytes.count else { try fail("the text ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(try parseObject(), at: start)
        case UInt8(ascii: "["): return JSONNode(try parseArray(), at: start)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(.number(try parseNumber()), at: start)
        case UInt8(ascii: "t"): try expectLiteral("true"); return JSONNode(.bool(true), at: start)
        case UInt8(ascii: "f"): try expectLiteral("false"); return JSONNode(.bool(false), at: start)
        case UInt8(ascii: "n"): try expectLiteral("null"); return JSONNode(.null, at: start)
        case UInt8(ascii: "T"), UInt8(ascii: "F"): try fail("JSON literals are lowercase: write true, false or null")
        case UInt8(ascii: "N") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "U"):
            try fail("JSON literals are lowercase: write null")
        case UInt8(ascii: "N"): try fail("NaN is not a JSON number; send a finite number or omit the key")
        case UInt8(ascii: "I"): try fail("Infinity is not a JSON number; send a finite number or omit the key")
        case UInt8(ascii: "'"): try fail("strings must use double quotes (\"), not single quotes")
        case UInt8(ascii: "/"): try fail("comments are not allowed in JSON (RFC 8259); remove them")
        case UInt8(ascii: "+"): try fail("a JSON number may not start with '+'; remove it")
        case UInt8(ascii: "."): try fail("a JSON number needs a digit before '.' (write 0.5, not .5)")
        case UInt8(ascii: "]"), UInt8(ascii: "}"):
            // What came before the closer says the fix: a comma (trailing comma) or a colon (a key without a value).
            var before = index - 1
            while before >= 0, bytes[before] == 0x20 || bytes[before] == 0x0A || bytes[before] == 0x0D || bytes[before] == 0x09 {
                before -= 1
            }
            let previous: UInt8? = before >= 0 ? bytes[before] : nil
            if previous == UInt8(ascii: ",") {
                try fail("expected a value before \(describe(bytes[index])); remove the trailing comma")
            } else if previous == UInt8(ascii: ":") {
                try fail("expected a value before \(describe(bytes[index])); give the key a value (or remove the key)")
            } else {
                try fail("expected a value before \(describe(bytes[index]))")
            }
        default: try fail("expected a JSON value, found \(describe(bytes[index]))")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        let wordBytes = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard index + count <= bytes.count, (0..<count).allSatisfy({ bytes[index + $0] == wordBytes[$0] }) else {
            try fail("expected '\(word)'; JSON literals are lowercase true, false and null")
        }
        index += count
    }

    mutating func enter() throws {
        depth += 1
        if depth > maxDepth {
            try fail("nesting is deeper than \(maxDepth) levels; no Live Activity payload needs this", kind: .tooDeep)
        }
    }

    mutating func parseObject() throws -> JSONValue {
        try enter()
        index += 1
        let base = openMembers.count
        var memberCount = 0
        var seen: Set<String>? = nil
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([])
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { try fail("the text ends inside an object; a '}' is missing") }
            if bytes[index] == UInt8(ascii: "}") {
                try fail("trailing comma before '}'; remove the last ','")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "/") { try fail("comments are not allowed in JSON (RFC 8259); remove them") }
                try fail("expected a key in double quotes, found \(describe(bytes[index]))")
            }
            let keyPosition = position
            let key = try parseString()
            let span = KeySpan(start: keyPosition.offset + 1, count: index - 2 - keyPosition.offset, plain: lastStringWasPlain)
            var duplicate = false
            if memberCount < 12 {
                duplicate = isDuplicate(key, span, base: base)
                if memberCount == 11 {
                    seen = openMembers.withElements(from: base) { open in Set(open.map(\.key)) }
                    seen!.insert(key)
                }
            } else {
                duplicate = !seen!.insert(key).inserted
            }
            path.append(.key(key))
            if duplicate {
                problems.append(JSONProblem(kind: .duplicateKey,
                                            message: "key \"\(key)\" appears more than once in this object",
                                            position: keyPosition, path: pathString))
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                if index >= bytes.count { try fail("the text ends after a key; expected ':'") }
                try fail("expected ':' after the key, found \(describe(bytes[index]))")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            path.removeLast()
            openMembers.push(JSONMember(key: key, keyPosition: keyPosition, value: value))
            openKeySpans.push(span)
            memberCount += 1
            skipWhitespace()
            guard index < bytes.count else { try fail("the text ends inside an object; a '}' is missing") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                openKeySpans.pop(to: base)
                return .object(openMembers.popArray(from: base))
            default:
                try fail("expected ',' or '}' after a member, found \(describe(bytes[index]))")
            }
        }
    }

    /// Whether an earlier key of the open object equals `key` as `String ==` decides (canonical equivalence).
    /// Two plain ASCII keys are equal exactly when their bytes are, so those are compared in the input; any other
    /// pair (an escape, or non-ASCII: U+212A KELVIN SIGN equals "K") is compared as strings.
    func isDuplicate(_ key: String, _ span: KeySpan, base: Int) -> Bool {
        openKeySpans.withElements(from: base) { spans in
            openMembers.withElements(from: base) { members in
                for index in 0..<spans.count {
                    if span.plain && spans[index].plain {
                        if spans[index].count == span.count,
                           JSONKeyTable.equal(UnsafeBufferPointer(rebasing: bytes[spans[index].start..<spans[index].start + span.count]),
                                              UnsafeBufferPointer(rebasing: bytes[span.start..<span.start + span.count])) {
                            return true
                        }
                    } else if members[index].key == key {
                        return true
                    }
                }
                return false
            }
        }
    }

    mutating func parseArray() throws -> JSONValue {
        try enter()
        index += 1
        let base = openElements.count
        var elementCount = 0
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        while true {
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                try fail("trailing comma before ']'; remove the last ','")
            }
            path.append(.index(elementCount))
            let element = try parseValue()
            openElements.push(element)
            elementCount += 1
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { try fail("the text ends inside an array; a ']' is missing") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(openElements.popArray(from: base))
            default:
                try fail("expected ',' or ']' after an array element, found \(describe(bytes[index]))")
            }
        }
    }

    mutating func parseNumber() throws -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            if index < bytes.count, bytes[index] == UInt8(ascii: "I") {
                try fail("-Infinity is not a JSON number; send a finite number or omit the key")
            }
            try fail("expected a digit after '-'")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                try fail("leading zeros are not allowed in JSON numbers", at: start)
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { try fail("expected a digit after '.' in a number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { try fail("expected a digit in the number's exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let lexeme = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(lexeme: lexeme)
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    mutating func parseString() throws -> String {
        let quote = index
        index += 1
        let start = index
        // Fast path: no escapes, ASCII or valid UTF-8. Plain ASCII runs are skipped eight bytes at a time.
        var sawNonASCII = false
        while index < bytes.count {
            if index + 8 <= bytes.count {
                let plain = JSONPlainBytes.plainASCIIPrefix(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                index += plain
                if plain == 8 { continue }
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                lastStringWasPlain = !sawNonASCII
                if !sawNonASCII {
                    if let known = knownStrings?.string(for: slice) { return known }
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    try fail("the string is not valid UTF-8; RFC 8259 §8.1 requires UTF-8", at: quote)
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 {
                if byte == 0x0A { try fail("the string is not closed before the end of the line (a '\"' is missing, or a raw newline must be written \\n)", at: quote) }
                try fail("control character \(describe(byte)) inside a string must be escaped", at: index)
            }
            if byte >= 0x80 {
                sawNonASCII = true
                if byte & 0xC0 == 0x80 { continuationBytes += 1 }
            }
            index += 1
        }
        if index >= bytes.count { try fail("the string is not closed; a '\"' is missing", at: quote) }
        return try parseEscapedString(quote: quote, start: start)
    }

    /// The rest of a string from its first backslash (`index`); kept apart so the common path stays small.
    @inline(never)
    mutating func parseEscapedString(quote: Int, start: Int) throws -> String {
        lastStringWasPlain = false
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    try fail("the string is not valid UTF-8; RFC 8259 §8.1 requires UTF-8", at: quote)
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            try fail("a UTF-16 high surrogate \\u\(String(scalar, radix: 16)) must be followed by a low surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { try fail("expected a UTF-16 low surrogate after \\u\(String(scalar, radix: 16))") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        try fail("a lone UTF-16 low surrogate \\u\(String(scalar, radix: 16)) is not a character")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    try fail("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'; JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: index - 2)
                }
            default:
                if byte < 0x20 { try fail("control character \(describe(byte)) inside a string must be escaped") }
                if byte & 0xC0 == 0x80 { continuationBytes += 1 }
                out.append(byte)
                index += 1
            }
        }
        try fail("the string is not closed; a '\"' is missing", at: quote)
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { try fail("\\u must be followed by four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digitValue: UInt32
            switch byte {
            case 0x30...0x39: digitValue = UInt32(byte - 0x30)
            case 0x41...0x46: digitValue = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digitValue = UInt32(byte - 0x61 + 10)
            default: try fail("\\u must be followed by four hex digits")
            }
            value = value * 16 + digitValue
            index += 1
        }
        return value
    }
}
