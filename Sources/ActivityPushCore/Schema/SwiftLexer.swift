/// One token of Swift source, as the declaration parser needs it. String literals, comments and regex
/// literals are consumed whole so braces inside them never confuse brace matching.
struct SwiftToken: Sendable {
    enum Kind: UInt8, Sendable {
        case identifier      // also keywords; backticks stripped from `text`
        case number
        case string          // a whole string literal (any form)
        case pound           // `#if`, `#else`, `#available`… (text without the `#`)
        case attribute       // `@name` (text without the `@`)
        case punct           // one character: ( ) [ ] { } , : ; . ? ! < > = & - …
        case arrow           // `->`
        case op              // any other run of operator characters
    }
    var kind: Kind
    /// Byte offsets into the file's UTF-8 text.
    var start: Int
    var end: Int
    /// 1-based line of the token's first byte.
    var line: Int
    /// True when a line break separates this token from the previous one.
    var newlineBefore: Bool
    /// True when whitespace, a line break or a comment separates this token from the previous one.
    var spaceBefore: Bool
    /// For identifiers, numbers, pound keywords and attributes: the name (numbers: their text).
    var text: String
    /// For `.punct`: the character.
    var char: UInt8
}

/// A syntax problem that stops reading: unterminated literal or comment, or unbalanced brackets.
struct SwiftSyntaxError: Error, Sendable {
    var line: Int
    var message: String
    /// The fix when it is not "correct the syntax" (a reader limit).
    var fix: String? = nil
}

/// A hand-written Swift lexer over UTF-8 bytes: enough of the language for declaration-level reading.
struct SwiftLexer {
    private let source: [UInt8]
    private var cursor = 0
    private var line = 1
    private var tokens: [SwiftToken] = []

    static func tokenize(_ bytes: [UInt8]) throws(SwiftSyntaxError) -> [SwiftToken] {
        var lexer = SwiftLexer(bytes: bytes)
        try lexer.run()
        return lexer.tokens
    }

    private init(bytes: [UInt8]) {
        source = bytes
        tokens.reserveCapacity(bytes.count / 4)
    }

    private func peek(_ k: Int = 0) -> UInt8 {
        let j = cursor + k
        return j < source.count ? source[j] : 0
    }

    private static func isIdentStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F || byte >= 0x80
    }

    private static func isIdentBody(_ byte: UInt8) -> Bool {
        isIdentStart(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Byte classes: 1 = single-character punctuation, 2 = other operator character.
    private static let byteClass: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for byte in "/-+*%|^~".utf8 { table[Int(byte)] = 2 }
        for byte in "()[]{},:;.?!<>=&".utf8 { table[Int(byte)] = 1 }
        return table
    }()

    private static func isPunctuation(_ byte: UInt8) -> Bool { byteClass[Int(byte)] == 1 }
    private static func isOperatorChar(_ byte: UInt8) -> Bool { byteClass[Int(byte)] != 0 }

    private mutating func run() throws(SwiftSyntaxError) {
        var newline = true
        var space = true
        while cursor < source.count {
            let byte = source[cursor]
            switch byte {
            case 0x0A:
                line += 1; cursor += 1; newline = true; space = true; continue
            case 0x20, 0x09, 0x0D, 0x0B, 0x0C:
                cursor += 1; space = true; continue
            case 0x2F where peek(1) == 0x2F:  // line comment
                while cursor < source.count && source[cursor] != 0x0A { cursor += 1 }
                space = true; continue
            case 0x2F where peek(1) == 0x2A:  // block comment, nested
                try skipBlockComment(); space = true; continue
            default:
                break
            }
            let start = cursor
            let startLine = line
            var kind: SwiftToken.Kind
            var text = ""
            var ch: UInt8 = 0
            if Self.isIdentStart(byte) {
                while cursor < source.count && Self.isIdentBody(source[cursor]) { cursor += 1 }
                kind = .identifier
                text = String(decoding: source[start..<cursor], as: UTF8.self)
            } else if byte == 0x60 {  // `name`
                cursor += 1
                let s = cursor
                while cursor < source.count && source[cursor] != 0x60 && source[cursor] != 0x0A { cursor += 1 }
                guard cursor < source.count && source[cursor] == 0x60 else {
                    throw SwiftSyntaxError(line: startLine, message: "unterminated backtick identifier")
                }
                text = String(decoding: source[s..<cursor], as: UTF8.self)
                cursor += 1
                kind = .identifier
            } else if byte == 0x24 {  // $0, $name
                cursor += 1
                while cursor < source.count && Self.isIdentBody(source[cursor]) { cursor += 1 }
                kind = .identifier
                text = String(decoding: source[start..<cursor], as: UTF8.self)
            } else if Self.isDigit(byte) {
                lexNumber()
                kind = .number
                text = String(decoding: source[start..<cursor], as: UTF8.self)
            } else if byte == 0x22 {  // "
                try skipString(pounds: 0)
                kind = .string
            } else if byte == 0x23 {  // #
                var p = 0
                while peek(p) == 0x23 { p += 1 }
                if peek(p) == 0x22 {
                    cursor += p
                    try skipString(pounds: p)
                    kind = .string
                } else if peek(p) == 0x2F {  // #/regex/#
                    try skipExtendedRegex(pounds: p)
                    kind = .string
                } else if p == 1 && Self.isIdentStart(peek(1)) {
                    cursor += 1
                    let s = cursor
                    while cursor < source.count && Self.isIdentBody(source[cursor]) { cursor += 1 }
                    kind = .pound
                    text = String(decoding: source[s..<cursor], as: UTF8.self)
                } else {
                    cursor += 1
                    kind = .punct
                    ch = byte
                }
            } else if byte == 0x40 {  // @
                cursor += 1
                let s = cursor
                while cursor < source.count && Self.isIdentBody(source[cursor]) { cursor += 1 }
                kind = .attribute
                text = String(decoding: source[s..<cursor], as: UTF8.self)
            } else if byte == 0x2D && peek(1) == 0x3E {  // ->
                cursor += 2
                kind = .arrow
            } else if Self.isPunctuation(byte) {
                cursor += 1
                kind = .punct
                ch = byte
            } else if Self.isOperatorChar(byte) {
                while cursor < source.count && Self.byteClass[Int(source[cursor])] == 2 {
                    if source[cursor] == 0x2F && (peek(1) == 0x2F || peek(1) == 0x2A) { break }
                    cursor += 1
                }
                if cursor == start { cursor += 1 }
                kind = .op
            } else {
                cursor += 1  // stray byte (e.g. backslash): keep going
                kind = .op
            }
            tokens.append(SwiftToken(kind: kind, start: start, end: cursor, line: startLine,
                                     newlineBefore: newline, spaceBefore: space, text: text, char: ch))
            newline = false
            space = false
        }
    }

    private mutating func skipBlockComment() throws(SwiftSyntaxError) {
        let startLine = line
        var depth = 0
        while cursor < source.count {
            if source[cursor] == 0x2F && peek(1) == 0x2A {
                depth += 1; cursor += 2
            } else if source[cursor] == 0x2A && peek(1) == 0x2F {
                depth -= 1; cursor += 2
                if depth == 0 { return }
            } else {
                if source[cursor] == 0x0A { line += 1 }
                cursor += 1
            }
        }
        throw SwiftSyntaxError(line: startLine, message: "unterminated block comment '/*'")
    }

    private mutating func lexNumber() {
        if source[cursor] == 0x30 && (peek(1) == 0x78 || peek(1) == 0x62 || peek(1) == 0x6F) {  // 0x 0b 0o
            cursor += 2
        }
        while cursor < source.count {
            let byte = source[cursor]
            if Self.isIdentBody(byte) {
                // exponent sign: 1e-5, 0x1p+3
                if (byte == 0x65 || byte == 0x45 || byte == 0x70 || byte == 0x50) && (peek(1) == 0x2D || peek(1) == 0x2B) {
                    cursor += 2; continue
                }
                cursor += 1
            } else if byte == 0x2E && Self.isDigit(peek(1)) {
                cursor += 1
            } else {
                break
            }
        }
    }

    /// At the opening quote (after any `#`s). Handles `"…"`, `"""…"""`, raw forms, escapes and interpolation.
    private mutating func skipString(pounds: Int) throws(SwiftSyntaxError) {
        let startLine = line
        let multiline = peek(1) == 0x22 && peek(2) == 0x22
        cursor += multiline ? 3 : 1
        while cursor < source.count {
            let byte = source[cursor]
            if byte == 0x0A {
                if !multiline { throw SwiftSyntaxError(line: startLine, message: "unterminated string literal") }
                line += 1; cursor += 1; continue
            }
            if byte == 0x5C {  // backslash
                var p = 0
                while p < pounds && peek(1 + p) == 0x23 { p += 1 }
                if p == pounds {
                    cursor += 1 + pounds
                    if cursor < source.count && source[cursor] == 0x28 {  // interpolation
                        try skipInterpolation()
                    } else if cursor < source.count {
                        if source[cursor] == 0x0A { line += 1 }
                        cursor += 1
                    }
                    continue
                }
                cursor += 1; continue
            }
            if byte == 0x22 {
                let closeLen = multiline ? 3 : 1
                var ok = true
                for k in 0..<closeLen where peek(k) != 0x22 { ok = false }
                if ok {
                    var p = 0
                    while p < pounds && peek(closeLen + p) == 0x23 { p += 1 }
                    if p == pounds {
                        cursor += closeLen + pounds
                        return
                    }
                }
            }
            cursor += 1
        }
        throw SwiftSyntaxError(line: startLine, message: multiline ? "unterminated multi-line string literal '\"\"\"'"
                                                                   : "unterminated string literal")
    }

    /// At `(` of `\(`: skips to the matching `)`, through nested strings and comments.
    private mutating func skipInterpolation() throws(SwiftSyntaxError) {
        let startLine = line
        var depth = 0
        while cursor < source.count {
            let byte = source[cursor]
            if byte == 0x28 { depth += 1; cursor += 1 }
            else if byte == 0x29 { depth -= 1; cursor += 1; if depth == 0 { return } }
            else if byte == 0x22 { try skipString(pounds: 0) }
            else if byte == 0x23 && (peek(1) == 0x22 || peek(1) == 0x23) {
                var p = 0
                while peek(p) == 0x23 { p += 1 }
                if peek(p) == 0x22 { cursor += p; try skipString(pounds: p) } else { cursor += p }
            }
            else if byte == 0x2F && peek(1) == 0x2F { while cursor < source.count && source[cursor] != 0x0A { cursor += 1 } }
            else if byte == 0x2F && peek(1) == 0x2A { try skipBlockComment() }
            else { if byte == 0x0A { line += 1 }; cursor += 1 }
        }
        throw SwiftSyntaxError(line: startLine, message: "unterminated string interpolation '\\('")
    }

    private mutating func skipExtendedRegex(pounds: Int) throws(SwiftSyntaxError) {
        let startLine = line
        cursor += pounds + 1
        while cursor < source.count {
            if source[cursor] == 0x2F {
                var p = 0
                while p < pounds && peek(1 + p) == 0x23 { p += 1 }
                if p == pounds { cursor += 1 + pounds; return }
            }
            if source[cursor] == 0x0A { line += 1 }
            cursor += 1
        }
        throw SwiftSyntaxError(line: startLine, message: "unterminated regex literal '#/'")
    }
}
