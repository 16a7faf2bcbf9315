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
    private let b: [UInt8]
    private var i = 0
    private var line = 1
    private var tokens: [SwiftToken] = []

    static func tokenize(_ bytes: [UInt8]) throws(SwiftSyntaxError) -> [SwiftToken] {
        var lexer = SwiftLexer(bytes: bytes)
        try lexer.run()
        return lexer.tokens
    }

    private init(bytes: [UInt8]) {
        b = bytes
        tokens.reserveCapacity(bytes.count / 4)
    }

    private func peek(_ k: Int = 0) -> UInt8 {
        let j = i + k
        return j < b.count ? b[j] : 0
    }

    private static func isIdentStart(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c == 0x5F || c >= 0x80
    }

    private static func isIdentBody(_ c: UInt8) -> Bool {
        isIdentStart(c) || (c >= 0x30 && c <= 0x39)
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// Byte classes: 1 = single-character punctuation, 2 = other operator character.
    private static let byteClass: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for c in "/-+*%|^~".utf8 { table[Int(c)] = 2 }
        for c in "()[]{},:;.?!<>=&".utf8 { table[Int(c)] = 1 }
        return table
    }()

    private static func isPunctuation(_ c: UInt8) -> Bool { byteClass[Int(c)] == 1 }
    private static func isOperatorChar(_ c: UInt8) -> Bool { byteClass[Int(c)] != 0 }

    private mutating func run() throws(SwiftSyntaxError) {
        var newline = true
        var space = true
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x0A:
                line += 1; i += 1; newline = true; space = true; continue
            case 0x20, 0x09, 0x0D, 0x0B, 0x0C:
                i += 1; space = true; continue
            case 0x2F where peek(1) == 0x2F:  // line comment
                while i < b.count && b[i] != 0x0A { i += 1 }
                space = true; continue
            case 0x2F where peek(1) == 0x2A:  // block comment, nested
                try skipBlockComment(); space = true; continue
            default:
                break
            }
            let start = i
            let startLine = line
            var kind: SwiftToken.Kind
            var text = ""
            var ch: UInt8 = 0
            if Self.isIdentStart(c) {
                while i < b.count && Self.isIdentBody(b[i]) { i += 1 }
                kind = .identifier
                text = String(decoding: b[start..<i], as: UTF8.self)
            } else if c == 0x60 {  // `name`
                i += 1
                let s = i
                while i < b.count && b[i] != 0x60 && b[i] != 0x0A { i += 1 }
                guard i < b.count && b[i] == 0x60 else {
                    throw SwiftSyntaxError(line: startLine, message: "unterminated backtick identifier")
                }
                text = String(decoding: b[s..<i], as: UTF8.self)
                i += 1
                kind = .identifier
            } else if c == 0x24 {  // $0, $name
                i += 1
                while i < b.count && Self.isIdentBody(b[i]) { i += 1 }
                kind = .identifier
                text = String(decoding: b[start..<i], as: UTF8.self)
            } else if Self.isDigit(c) {
                lexNumber()
                kind = .number
                text = String(decoding: b[start..<i], as: UTF8.self)
            } else if c == 0x22 {  // "
                try skipString(pounds: 0)
                kind = .string
            } else if c == 0x23 {  // #
                var p = 0
                while peek(p) == 0x23 { p += 1 }
                if peek(p) == 0x22 {
                    i += p
                    try skipString(pounds: p)
                    kind = .string
                } else if peek(p) == 0x2F {  // #/regex/#
                    try skipExtendedRegex(pounds: p)
                    kind = .string
                } else if p == 1 && Self.isIdentStart(peek(1)) {
                    i += 1
                    let s = i
                    while i < b.count && Self.isIdentBody(b[i]) { i += 1 }
                    kind = .pound
                    text = String(decoding: b[s..<i], as: UTF8.self)
                } else {
                    i += 1
                    kind = .punct
                    ch = c
                }
            } else if c == 0x40 {  // @
                i += 1
                let s = i
                while i < b.count && Self.isIdentBody(b[i]) { i += 1 }
                kind = .attribute
                text = String(decoding: b[s..<i], as: UTF8.self)
            } else if c == 0x2D && peek(1) == 0x3E {  // ->
                i += 2
                kind = .arrow
            } else if Self.isPunctuation(c) {
                i += 1
                kind = .punct
                ch = c
            } else if Self.isOperatorChar(c) {
                while i < b.count && Self.byteClass[Int(b[i])] == 2 {
                    if b[i] == 0x2F && (peek(1) == 0x2F || peek(1) == 0x2A) { break }
                    i += 1
                }
                if i == start { i += 1 }
                kind = .op
            } else {
                i += 1  // stray byte (e.g. backslash): keep going
                kind = .op
            }
            tokens.append(SwiftToken(kind: kind, start: start, end: i, line: startLine,
                                     newlineBefore: newline, spaceBefore: space, text: text, char: ch))
            newline = false
            space = false
        }
    }

    private mutating func skipBlockComment() throws(SwiftSyntaxError) {
        let startLine = line
        var depth = 0
        while i < b.count {
            if b[i] == 0x2F && peek(1) == 0x2A {
                depth += 1; i += 2
            } else if b[i] == 0x2A && peek(1) == 0x2F {
                depth -= 1; i += 2
                if depth == 0 { return }
            } else {
                if b[i] == 0x0A { line += 1 }
                i += 1
            }
        }
        throw SwiftSyntaxError(line: startLine, message: "unterminated block comment '/*'")
    }

    private mutating func lexNumber() {
        if b[i] == 0x30 && (peek(1) == 0x78 || peek(1) == 0x62 || peek(1) == 0x6F) {  // 0x 0b 0o
            i += 2
        }
        while i < b.count {
            let c = b[i]
            if Self.isIdentBody(c) {
                // exponent sign: 1e-5, 0x1p+3
                if (c == 0x65 || c == 0x45 || c == 0x70 || c == 0x50) && (peek(1) == 0x2D || peek(1) == 0x2B) {
                    i += 2; continue
                }
                i += 1
            } else if c == 0x2E && Self.isDigit(peek(1)) {
                i += 1
            } else {
                break
            }
        }
    }

    /// At the opening quote (after any `#`s). Handles `"…"`, `"""…"""`, raw forms, escapes and interpolation.
    private mutating func skipString(pounds: Int) throws(SwiftSyntaxError) {
        let startLine = line
        let multiline = peek(1) == 0x22 && peek(2) == 0x22
        i += multiline ? 3 : 1
        while i < b.count {
            let c = b[i]
            if c == 0x0A {
                if !multiline { throw SwiftSyntaxError(line: startLine, message: "unterminated string literal") }
                line += 1; i += 1; continue
            }
            if c == 0x5C {  // backslash
                var p = 0
                while p < pounds && peek(1 + p) == 0x23 { p += 1 }
                if p == pounds {
                    i += 1 + pounds
                    if i < b.count && b[i] == 0x28 {  // interpolation
                        try skipInterpolation()
                    } else if i < b.count {
                        if b[i] == 0x0A { line += 1 }
                        i += 1
                    }
                    continue
                }
                i += 1; continue
            }
            if c == 0x22 {
                let closeLen = multiline ? 3 : 1
                var ok = true
                for k in 0..<closeLen where peek(k) != 0x22 { ok = false }
                if ok {
                    var p = 0
                    while p < pounds && peek(closeLen + p) == 0x23 { p += 1 }
                    if p == pounds {
                        i += closeLen + pounds
                        return
                    }
                }
            }
            i += 1
        }
        throw SwiftSyntaxError(line: startLine, message: multiline ? "unterminated multi-line string literal '\"\"\"'"
                                                                   : "unterminated string literal")
    }

    /// At `(` of `\(`: skips to the matching `)`, through nested strings and comments.
    private mutating func skipInterpolation() throws(SwiftSyntaxError) {
        let startLine = line
        var depth = 0
        while i < b.count {
            let c = b[i]
            if c == 0x28 { depth += 1; i += 1 }
            else if c == 0x29 { depth -= 1; i += 1; if depth == 0 { return } }
            else if c == 0x22 { try skipString(pounds: 0) }
            else if c == 0x23 && (peek(1) == 0x22 || peek(1) == 0x23) {
                var p = 0
                while peek(p) == 0x23 { p += 1 }
                if peek(p) == 0x22 { i += p; try skipString(pounds: p) } else { i += p }
            }
            else if c == 0x2F && peek(1) == 0x2F { while i < b.count && b[i] != 0x0A { i += 1 } }
            else if c == 0x2F && peek(1) == 0x2A { try skipBlockComment() }
            else { if c == 0x0A { line += 1 }; i += 1 }
        }
        throw SwiftSyntaxError(line: startLine, message: "unterminated string interpolation '\\('")
    }

    private mutating func skipExtendedRegex(pounds: Int) throws(SwiftSyntaxError) {
        let startLine = line
        i += pounds + 1
        while i < b.count {
            if b[i] == 0x2F {
                var p = 0
                while p < pounds && peek(1 + p) == 0x23 { p += 1 }
                if p == pounds { i += 1 + pounds; return }
            }
            if b[i] == 0x0A { line += 1 }
            i += 1
        }
        throw SwiftSyntaxError(line: startLine, message: "unterminated regex literal '#/'")
    }
}
