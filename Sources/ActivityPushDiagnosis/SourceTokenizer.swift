import ActivityPushCore
/// The source languages the payload-site audit reads, chosen by file extension.
public struct SourceLanguage: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// JavaScript and TypeScript (`.js`, `.ts`, `.jsx`, `.tsx`, `.mjs`, `.cjs`).
    public static let javascript = SourceLanguage(rawValue: "javascript") // .js .ts .jsx .tsx .mjs .cjs
    /// Python (`.py`).
    public static let python = SourceLanguage(rawValue: "python")
    /// Go (`.go`).
    public static let go = SourceLanguage(rawValue: "go")
    /// The JVM languages: Java, Kotlin, Groovy, Scala (`.java`, `.kt`, `.kts`, `.groovy`, `.scala`).
    public static let jvm = SourceLanguage(rawValue: "jvm") // Java, Kotlin
    /// Swift (`.swift`).
    public static let swift = SourceLanguage(rawValue: "swift")
    /// Ruby (`.rb`).
    public static let ruby = SourceLanguage(rawValue: "ruby")
    /// PHP (`.php`).
    public static let php = SourceLanguage(rawValue: "php")
    /// JSON files sent as a body (`.json`).
    public static let json = SourceLanguage(rawValue: "json")
    /// JSON-ish template files (`.tmpl`, `.mustache`, `.hbs`, `.j2`, `.erb`…) and string-template contents.
    public static let template = SourceLanguage(rawValue: "template")

    /// The language of a file name, or nil for files the audit does not read.
    public static func of(fileName name: String) -> SourceLanguage? {
        let lower = name.lowercased()
        guard let dot = lower.lastIndex(of: ".") else { return nil }
        switch lower[lower.index(after: dot)...] {
        case "js", "ts", "jsx", "tsx", "mjs", "cjs", "mts", "cts": return .javascript
        case "py": return .python
        case "go": return .go
        case "java", "kt", "kts", "groovy", "scala": return .jvm
        case "swift": return .swift
        case "rb": return .ruby
        case "php": return .php
        case "json", "json5": return .json
        case "tmpl", "tpl", "mustache", "hbs", "handlebars", "j2", "jinja", "jinja2", "erb", "template", "liquid",
             "njk", "ejs", "gotmpl", "stub":
            return .template
        default: return nil
        }
    }

    var hashComments: Bool { self == .python || self == .ruby || self == .php }
    var slashComments: Bool { self != .python && self != .ruby && self != .json && self != .template }
}

/// One lexical token of a source file.
struct SourceToken {
    enum Kind: Equatable {
        case identifier
        /// A string literal; `text` is its content (escapes kept as written). `template` when it interpolates.
        case string
        case number
        case punct
        /// A template placeholder (`${…}`, `\(…)`, `{{…}}`, `$name`, `%s`) inside a template text.
        case placeholder
    }
    var kind: Kind
    var text: String
    var line: Int
    /// Line where the token ends (multi-line strings).
    var endLine: Int
    /// True when a newline separates this token from the previous one.
    var newlineBefore: Bool
}

/// A small multi-language lexer: identifiers, strings (quotes, backticks, triple quotes, heredocs), numbers and
/// punctuation, with comments dropped. Enough structure to find object literals and builder calls; not a parser.
struct SourceTokenizer {
    let language: SourceLanguage

    func tokenize(_ text: String, firstLine: Int = 1) -> [SourceToken] {
        let bytes = Array(text.utf8)
        var out: [SourceToken] = []
        var offset = 0
        var line = firstLine
        var newline = true
        let byteCount = bytes.count
        func peek(_ k: Int) -> UInt8 { offset + k < byteCount ? bytes[offset + k] : 0 }
        func add(_ kind: SourceToken.Kind, _ start: Int, _ end: Int, _ startLine: Int) {
            // A construct left open at the end of the file (an unclosed `%(`, `<%=`, heredoc …) may step past the
            // last byte while skipping its closer: the token ends at the end of the text (fuzzer: `%(` at EOF).
            let end = min(end, byteCount), start = min(start, end)
            out.append(SourceToken(kind: kind, text: String(decoding: bytes[start..<end], as: UTF8.self),
                                   line: startLine, endLine: line, newlineBefore: newline))
            newline = false
        }
        while offset < byteCount {
            let byte = bytes[offset]
            if byte == 10 { line += 1; newline = true; offset += 1; continue }
            if byte == 32 || byte == 9 || byte == 13 { offset += 1; continue }
            // Comments
            if language.slashComments, byte == 47 /* / */ {
                if peek(1) == 47 { while offset < byteCount, bytes[offset] != 10 { offset += 1 }; continue }
                if peek(1) == 42 {
                    offset += 2
                    while offset < byteCount, !(bytes[offset] == 42 && peek(1) == 47) { if bytes[offset] == 10 { line += 1 }; offset += 1 }
                    offset += 2
                    newline = true
                    continue
                }
            }
            if language.hashComments, byte == 35 /* # */, !(language == .ruby && peek(1) == 123) {
                while offset < byteCount, bytes[offset] != 10 { offset += 1 }
                continue
            }
            if language == .ruby, newline, byte == 61, Self.startsWith(bytes, offset, "=begin") {
                while offset < byteCount, !(bytes[offset] == 10 && Self.startsWith(bytes, offset + 1, "=end")) { if bytes[offset] == 10 { line += 1 }; offset += 1 }
                while offset < byteCount, bytes[offset] != 10 { offset += 1 }
                continue
            }
            // Placeholders in template text
            if language == .template {
                if byte == 36 /* $ */, peek(1) == 123 { let st = offset, sl = line; offset = skipBalanced(bytes, offset + 1, &line); add(.placeholder, st, offset, sl); continue }
                if byte == 92 /* \ */, peek(1) == 40 { let st = offset, sl = line; offset = skipBalanced(bytes, offset + 1, &line); add(.placeholder, st, offset, sl); continue }
                if byte == 123, peek(1) == 123 {
                    var nameStart = offset + 2
                    while nameStart < byteCount, bytes[nameStart] == 32 { nameStart += 1 }
                    if nameStart < byteCount, bytes[nameStart] != 34, bytes[nameStart] != 10, bytes[nameStart] != 125 {
                        let st = offset, sl = line
                        offset += 2
                        while offset < byteCount, !(bytes[offset] == 125 && peek(1) == 125) { if bytes[offset] == 10 { line += 1 }; offset += 1 }
                        offset = min(byteCount, offset + 2)
                        add(.placeholder, st, offset, sl)
                        continue
                    }
                    // `{{` escaping a brace (Python str.format): one brace
                    add(.punct, offset, offset + 1, line); offset += 2; continue
                }
                if byte == 125, peek(1) == 125 { add(.punct, offset, offset + 1, line); offset += 2; continue }
                if byte == 36 /* $name */, Self.isIdentStart(peek(1)) {
                    let st = offset; offset += 1
                    while offset < byteCount, Self.isIdent(bytes[offset]) { offset += 1 }
                    add(.placeholder, st, offset, line); continue
                }
                if byte == 37 /* %s %d %(x)s */, peek(1) == 40 || Self.isIdentStart(peek(1)) {
                    let st = offset; offset += 1
                    if bytes[offset] == 40 { while offset < byteCount, bytes[offset] != 41 { offset += 1 }; offset = min(byteCount, offset + 1) }
                    while offset < byteCount, Self.isIdent(bytes[offset]) || bytes[offset] == 46 { offset += 1 }
                    add(.placeholder, st, offset, line); continue
                }
                if byte == 60 /* <%= %> */, peek(1) == 37 {
                    let st = offset
                    while offset < byteCount, !(bytes[offset] == 37 && peek(1) == 62) { if bytes[offset] == 10 { line += 1 }; offset += 1 }
                    offset = min(byteCount, offset + 2)
                    add(.placeholder, st, offset, line); continue
                }
                if byte == 123, peek(1) == 37 /* {% %} */ {
                    while offset < byteCount, !(bytes[offset] == 37 && peek(1) == 125) { if bytes[offset] == 10 { line += 1 }; offset += 1 }
                    offset = min(byteCount, offset + 2); continue
                }
            }
            // Heredocs: Ruby <<~ID / <<-ID / <<ID, PHP <<<ID / <<<'ID'
            if (language == .ruby || language == .php), byte == 60, peek(1) == 60 {
                var cursor = offset + 2
                if language == .php { guard peek(2) == 60 else { offset += 2; add(.punct, offset - 2, offset, line); continue }; cursor = offset + 3 }
                if cursor < byteCount, bytes[cursor] == 126 || bytes[cursor] == 45 { cursor += 1 }
                var quote: UInt8 = 0
                if cursor < byteCount, bytes[cursor] == 39 || bytes[cursor] == 34 { quote = bytes[cursor]; cursor += 1 }
                let idStart = cursor
                while cursor < byteCount, Self.isIdent(bytes[cursor]) { cursor += 1 }
                if cursor > idStart, cursor - idStart >= 2, bytes[idStart] >= 65, bytes[idStart] <= 90 {
                    let id = Array(bytes[idStart..<cursor])
                    if quote != 0, cursor < byteCount, bytes[cursor] == quote { cursor += 1 }
                    let sl = line
                    // Body starts on the next line and ends at a line whose trimmed text is the identifier.
                    var lineEnd = cursor
                    while lineEnd < byteCount, bytes[lineEnd] != 10 { lineEnd += 1 }
                    let restOfLine = (cursor, lineEnd)
                    var bodyStart = lineEnd + 1
                    var bodyEnd = bodyStart
                    var l2 = line + 1
                    var lineStart = bodyStart
                    while lineStart < byteCount {
                        var bodyLineEnd = lineStart
                        while bodyLineEnd < byteCount, bytes[bodyLineEnd] != 10 { bodyLineEnd += 1 }
                        var textStart = lineStart
                        while textStart < bodyLineEnd, bytes[textStart] == 32 || bytes[textStart] == 9 { textStart += 1 }
                        if bodyLineEnd - textStart >= id.count, Array(bytes[textStart..<(textStart + id.count)]) == id,
                           textStart + id.count == bodyLineEnd || !Self.isIdent(bytes[textStart + id.count]) {
                            bodyEnd = lineStart
                            break
                        }
                        lineStart = bodyLineEnd + 1
                        l2 += 1
                        bodyEnd = min(lineStart, byteCount)
                    }
                    // A heredoc opened on the file's last line (no line break after it) has an empty body.
                    bodyStart = min(bodyStart, byteCount)
                    bodyEnd = min(bodyEnd, byteCount)
                    out.append(SourceToken(kind: .string, text: String(decoding: bytes[bodyStart..<max(bodyStart, bodyEnd)], as: UTF8.self),
                                           line: sl, endLine: l2, newlineBefore: newline))
                    newline = false
                    // Tokens after `<<~ID` on the same line (e.g. `.strip`) are lexed too.
                    let tail = String(decoding: bytes[restOfLine.0..<restOfLine.1], as: UTF8.self)
                    out += SourceTokenizer(language: language).tokenize(tail, firstLine: sl).map {
                        var token = $0; token.newlineBefore = false; return token
                    }
                    var resume = bodyEnd
                    while resume < byteCount, bytes[resume] != 10 { resume += 1 }
                    offset = resume
                    line = l2
                    continue
                }
            }
            // Strings
            if byte == 34 || byte == 39 || byte == 96 {
                let st = offset, sl = line
                let triple = (byte == 34 || byte == 39) && peek(1) == byte && peek(2) == byte
                    && (language == .python || language == .swift || language == .jvm || byte == 34 && language == .template)
                if triple {
                    offset += 3
                    while offset < byteCount, !(bytes[offset] == byte && peek(1) == byte && peek(2) == byte) {
                        if bytes[offset] == 92 { offset += 1 }
                        if offset < byteCount, bytes[offset] == 10 { line += 1 }
                        offset += 1
                    }
                    let end = min(offset, byteCount)
                    offset = min(byteCount, offset + 3)
                    out.append(SourceToken(kind: .string, text: String(decoding: bytes[(st + 3)..<end], as: UTF8.self),
                                           line: sl, endLine: line, newlineBefore: newline))
                    newline = false
                    continue
                }
                offset += 1
                let raw = byte == 96 && language == .go
                while offset < byteCount, bytes[offset] != byte {
                    if bytes[offset] == 92, !raw { offset += 1 }
                    else if byte == 96, language == .javascript, bytes[offset] == 36, peek(1) == 123 { offset = skipBalanced(bytes, offset + 1, &line); continue }
                    if offset < byteCount, bytes[offset] == 10 {
                        line += 1
                        if byte != 96, language != .php, language != .ruby { break } // unterminated
                    }
                    offset += 1
                }
                let end = min(offset, byteCount)
                offset = min(byteCount, offset + 1)
                out.append(SourceToken(kind: .string, text: String(decoding: bytes[(st + 1)..<end], as: UTF8.self),
                                       line: sl, endLine: line, newlineBefore: newline))
                newline = false
                continue
            }
            // Identifiers (with PHP $ and Ruby symbols / ivars as part of the name)
            if Self.isIdentStart(byte) || (byte == 36 && language == .php && Self.isIdentStart(peek(1)))
                || (byte == 64 && (language == .ruby) && Self.isIdentStart(peek(1))) {
                let st = offset
                offset += 1
                while offset < byteCount, Self.isIdent(bytes[offset]) { offset += 1 }
                if language == .ruby || language == .swift, offset < byteCount, bytes[offset] == 63 || bytes[offset] == 33, peek(1) != 61 { offset += 1 }
                // Python string prefixes: f"…", r'…', b"…", rb"…"
                if language == .python || language == .jvm, offset < byteCount, bytes[offset] == 34 || bytes[offset] == 39, offset - st <= 2 {
                    let prefix = String(decoding: bytes[st..<offset], as: UTF8.self).lowercased()
                    if ["f", "r", "b", "u", "rb", "br", "fr", "rf"].contains(prefix) { continue }
                }
                add(.identifier, st, offset, line)
                continue
            }
            if Self.isDigit(byte) {
                let st = offset
                while offset < byteCount, Self.isIdent(bytes[offset]) || bytes[offset] == 46 && offset + 1 < byteCount && Self.isDigit(bytes[offset + 1]) { offset += 1 }
                add(.number, st, offset, line)
                continue
            }
            // Multi-character punctuation
            let c1 = peek(1), c2 = peek(2)
            var len = 1
            if (byte == 46 && c1 == 46 && c2 == 46) || (byte == 60 && c1 == 60 && c2 == 60) || (byte == 61 && c1 == 61 && c2 == 61)
                || (byte == 33 && c1 == 61 && c2 == 61) || (byte == 42 && c1 == 42 && c2 == 61) {
                len = 3
            } else if Self.twoCharPunct(byte, c1) {
                len = 2
            }
            if len > 1 {
                add(.punct, offset, offset + len, line)
                offset += len
                continue
            }
            if language == .ruby, byte == 58 /* :symbol */, Self.isIdentStart(peek(1)), offset > 0, bytes[offset - 1] != 58 {
                let st = offset + 1
                offset += 1
                while offset < byteCount, Self.isIdent(bytes[offset]) { offset += 1 }
                out.append(SourceToken(kind: .string, text: String(decoding: bytes[st..<offset], as: UTF8.self),
                                       line: line, endLine: line, newlineBefore: newline))
                newline = false
                continue
            }
            add(.punct, offset, offset + 1, line)
            offset += 1
        }
        return out
    }

    /// From an opening `{` or `(` at `i`, the index after its matching close (strings inside skipped roughly).
    private func skipBalanced(_ s: [UInt8], _ i: Int, _ line: inout Int) -> Int {
        let open = s[i], close: UInt8 = open == 123 ? 125 : 41
        var depth = 0
        var cursor = i
        while cursor < s.count {
            if s[cursor] == 10 { line += 1 }
            if s[cursor] == open { depth += 1 } else if s[cursor] == close {
                depth -= 1
                if depth == 0 { return cursor + 1 }
            }
            cursor += 1
        }
        return s.count
    }

    /// `=>` `:=` `==` `!=` `<=` `>=` `::` `->` `**` `&&` `||` `??` `?.` `<<` `+=` `-=`
    @inline(__always) static func twoCharPunct(_ a: UInt8, _ b: UInt8) -> Bool {
        switch (a, b) {
        case (61, 62), (58, 61), (61, 61), (33, 61), (60, 61), (62, 61), (58, 58), (45, 62), (42, 42), (38, 38),
             (124, 124), (63, 63), (63, 46), (60, 60), (43, 61), (45, 61):
            return true
        default:
            return false
        }
    }

    static func startsWith(_ s: [UInt8], _ i: Int, _ p: String) -> Bool {
        var cursor = i
        for byte in p.utf8 {
            guard cursor < s.count, s[cursor] == byte else { return false }
            cursor += 1
        }
        return true
    }
    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    @inline(__always) static func isIdentStart(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 }
    @inline(__always) static func isIdent(_ c: UInt8) -> Bool { isIdentStart(c) || isDigit(c) }
}
