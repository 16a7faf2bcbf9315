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
        let s = Array(text.utf8)
        var out: [SourceToken] = []
        var i = 0
        var line = firstLine
        var newline = true
        let n = s.count
        func peek(_ k: Int) -> UInt8 { i + k < n ? s[i + k] : 0 }
        func add(_ kind: SourceToken.Kind, _ start: Int, _ end: Int, _ startLine: Int) {
            // A construct left open at the end of the file (an unclosed `%(`, `<%=`, heredoc …) may step past the
            // last byte while skipping its closer: the token ends at the end of the text (fuzzer: `%(` at EOF).
            let end = min(end, n), start = min(start, end)
            out.append(SourceToken(kind: kind, text: String(decoding: s[start..<end], as: UTF8.self),
                                   line: startLine, endLine: line, newlineBefore: newline))
            newline = false
        }
        while i < n {
            let c = s[i]
            if c == 10 { line += 1; newline = true; i += 1; continue }
            if c == 32 || c == 9 || c == 13 { i += 1; continue }
            // Comments
            if language.slashComments, c == 47 /* / */ {
                if peek(1) == 47 { while i < n, s[i] != 10 { i += 1 }; continue }
                if peek(1) == 42 {
                    i += 2
                    while i < n, !(s[i] == 42 && peek(1) == 47) { if s[i] == 10 { line += 1 }; i += 1 }
                    i += 2
                    newline = true
                    continue
                }
            }
            if language.hashComments, c == 35 /* # */, !(language == .ruby && peek(1) == 123) {
                while i < n, s[i] != 10 { i += 1 }
                continue
            }
            if language == .ruby, newline, c == 61, Self.startsWith(s, i, "=begin") {
                while i < n, !(s[i] == 10 && Self.startsWith(s, i + 1, "=end")) { if s[i] == 10 { line += 1 }; i += 1 }
                while i < n, s[i] != 10 { i += 1 }
                continue
            }
            // Placeholders in template text
            if language == .template {
                if c == 36 /* $ */, peek(1) == 123 { let st = i, sl = line; i = skipBalanced(s, i + 1, &line); add(.placeholder, st, i, sl); continue }
                if c == 92 /* \ */, peek(1) == 40 { let st = i, sl = line; i = skipBalanced(s, i + 1, &line); add(.placeholder, st, i, sl); continue }
                if c == 123, peek(1) == 123 {
                    var k = i + 2
                    while k < n, s[k] == 32 { k += 1 }
                    if k < n, s[k] != 34, s[k] != 10, s[k] != 125 {
                        let st = i, sl = line
                        i += 2
                        while i < n, !(s[i] == 125 && peek(1) == 125) { if s[i] == 10 { line += 1 }; i += 1 }
                        i = min(n, i + 2)
                        add(.placeholder, st, i, sl)
                        continue
                    }
                    // `{{` escaping a brace (Python str.format): one brace
                    add(.punct, i, i + 1, line); i += 2; continue
                }
                if c == 125, peek(1) == 125 { add(.punct, i, i + 1, line); i += 2; continue }
                if c == 36 /* $name */, Self.isIdentStart(peek(1)) {
                    let st = i; i += 1
                    while i < n, Self.isIdent(s[i]) { i += 1 }
                    add(.placeholder, st, i, line); continue
                }
                if c == 37 /* %s %d %(x)s */, peek(1) == 40 || Self.isIdentStart(peek(1)) {
                    let st = i; i += 1
                    if s[i] == 40 { while i < n, s[i] != 41 { i += 1 }; i = min(n, i + 1) }
                    while i < n, Self.isIdent(s[i]) || s[i] == 46 { i += 1 }
                    add(.placeholder, st, i, line); continue
                }
                if c == 60 /* <%= %> */, peek(1) == 37 {
                    let st = i
                    while i < n, !(s[i] == 37 && peek(1) == 62) { if s[i] == 10 { line += 1 }; i += 1 }
                    i = min(n, i + 2)
                    add(.placeholder, st, i, line); continue
                }
                if c == 123, peek(1) == 37 /* {% %} */ {
                    while i < n, !(s[i] == 37 && peek(1) == 125) { if s[i] == 10 { line += 1 }; i += 1 }
                    i = min(n, i + 2); continue
                }
            }
            // Heredocs: Ruby <<~ID / <<-ID / <<ID, PHP <<<ID / <<<'ID'
            if (language == .ruby || language == .php), c == 60, peek(1) == 60 {
                var k = i + 2
                if language == .php { guard peek(2) == 60 else { i += 2; add(.punct, i - 2, i, line); continue }; k = i + 3 }
                if k < n, s[k] == 126 || s[k] == 45 { k += 1 }
                var quote: UInt8 = 0
                if k < n, s[k] == 39 || s[k] == 34 { quote = s[k]; k += 1 }
                let idStart = k
                while k < n, Self.isIdent(s[k]) { k += 1 }
                if k > idStart, k - idStart >= 2, s[idStart] >= 65, s[idStart] <= 90 {
                    let id = Array(s[idStart..<k])
                    if quote != 0, k < n, s[k] == quote { k += 1 }
                    let sl = line
                    // Body starts on the next line and ends at a line whose trimmed text is the identifier.
                    var j = k
                    while j < n, s[j] != 10 { j += 1 }
                    let restOfLine = (k, j)
                    var bodyStart = j + 1
                    var bodyEnd = bodyStart
                    var l2 = line + 1
                    var p = bodyStart
                    while p < n {
                        var e = p
                        while e < n, s[e] != 10 { e += 1 }
                        var t = p
                        while t < e, s[t] == 32 || s[t] == 9 { t += 1 }
                        if e - t >= id.count, Array(s[t..<(t + id.count)]) == id,
                           t + id.count == e || !Self.isIdent(s[t + id.count]) {
                            bodyEnd = p
                            break
                        }
                        p = e + 1
                        l2 += 1
                        bodyEnd = min(p, n)
                    }
                    // A heredoc opened on the file's last line (no line break after it) has an empty body.
                    bodyStart = min(bodyStart, n)
                    bodyEnd = min(bodyEnd, n)
                    out.append(SourceToken(kind: .string, text: String(decoding: s[bodyStart..<max(bodyStart, bodyEnd)], as: UTF8.self),
                                           line: sl, endLine: l2, newlineBefore: newline))
                    newline = false
                    // Tokens after `<<~ID` on the same line (e.g. `.strip`) are lexed too.
                    let tail = String(decoding: s[restOfLine.0..<restOfLine.1], as: UTF8.self)
                    out += SourceTokenizer(language: language).tokenize(tail, firstLine: sl).map {
                        var t = $0; t.newlineBefore = false; return t
                    }
                    var q = bodyEnd
                    while q < n, s[q] != 10 { q += 1 }
                    i = q
                    line = l2
                    continue
                }
            }
            // Strings
            if c == 34 || c == 39 || c == 96 {
                let st = i, sl = line
                let triple = (c == 34 || c == 39) && peek(1) == c && peek(2) == c
                    && (language == .python || language == .swift || language == .jvm || c == 34 && language == .template)
                if triple {
                    i += 3
                    while i < n, !(s[i] == c && peek(1) == c && peek(2) == c) {
                        if s[i] == 92 { i += 1 }
                        if i < n, s[i] == 10 { line += 1 }
                        i += 1
                    }
                    let end = min(i, n)
                    i = min(n, i + 3)
                    out.append(SourceToken(kind: .string, text: String(decoding: s[(st + 3)..<end], as: UTF8.self),
                                           line: sl, endLine: line, newlineBefore: newline))
                    newline = false
                    continue
                }
                i += 1
                let raw = c == 96 && language == .go
                while i < n, s[i] != c {
                    if s[i] == 92, !raw { i += 1 }
                    else if c == 96, language == .javascript, s[i] == 36, peek(1) == 123 { i = skipBalanced(s, i + 1, &line); continue }
                    if i < n, s[i] == 10 {
                        line += 1
                        if c != 96, language != .php, language != .ruby { break } // unterminated
                    }
                    i += 1
                }
                let end = min(i, n)
                i = min(n, i + 1)
                out.append(SourceToken(kind: .string, text: String(decoding: s[(st + 1)..<end], as: UTF8.self),
                                       line: sl, endLine: line, newlineBefore: newline))
                newline = false
                continue
            }
            // Identifiers (with PHP $ and Ruby symbols / ivars as part of the name)
            if Self.isIdentStart(c) || (c == 36 && language == .php && Self.isIdentStart(peek(1)))
                || (c == 64 && (language == .ruby) && Self.isIdentStart(peek(1))) {
                let st = i
                i += 1
                while i < n, Self.isIdent(s[i]) { i += 1 }
                if language == .ruby || language == .swift, i < n, s[i] == 63 || s[i] == 33, peek(1) != 61 { i += 1 }
                // Python string prefixes: f"…", r'…', b"…", rb"…"
                if language == .python || language == .jvm, i < n, s[i] == 34 || s[i] == 39, i - st <= 2 {
                    let p = String(decoding: s[st..<i], as: UTF8.self).lowercased()
                    if ["f", "r", "b", "u", "rb", "br", "fr", "rf"].contains(p) { continue }
                }
                add(.identifier, st, i, line)
                continue
            }
            if Self.isDigit(c) {
                let st = i
                while i < n, Self.isIdent(s[i]) || s[i] == 46 && i + 1 < n && Self.isDigit(s[i + 1]) { i += 1 }
                add(.number, st, i, line)
                continue
            }
            // Multi-character punctuation
            let c1 = peek(1), c2 = peek(2)
            var len = 1
            if (c == 46 && c1 == 46 && c2 == 46) || (c == 60 && c1 == 60 && c2 == 60) || (c == 61 && c1 == 61 && c2 == 61)
                || (c == 33 && c1 == 61 && c2 == 61) || (c == 42 && c1 == 42 && c2 == 61) {
                len = 3
            } else if Self.twoCharPunct(c, c1) {
                len = 2
            }
            if len > 1 {
                add(.punct, i, i + len, line)
                i += len
                continue
            }
            if language == .ruby, c == 58 /* :symbol */, Self.isIdentStart(peek(1)), i > 0, s[i - 1] != 58 {
                let st = i + 1
                i += 1
                while i < n, Self.isIdent(s[i]) { i += 1 }
                out.append(SourceToken(kind: .string, text: String(decoding: s[st..<i], as: UTF8.self),
                                       line: line, endLine: line, newlineBefore: newline))
                newline = false
                continue
            }
            add(.punct, i, i + 1, line)
            i += 1
        }
        return out
    }

    /// From an opening `{` or `(` at `i`, the index after its matching close (strings inside skipped roughly).
    private func skipBalanced(_ s: [UInt8], _ i: Int, _ line: inout Int) -> Int {
        let open = s[i], close: UInt8 = open == 123 ? 125 : 41
        var depth = 0
        var k = i
        while k < s.count {
            if s[k] == 10 { line += 1 }
            if s[k] == open { depth += 1 } else if s[k] == close {
                depth -= 1
                if depth == 0 { return k + 1 }
            }
            k += 1
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
        var k = i
        for b in p.utf8 {
            guard k < s.count, s[k] == b else { return false }
            k += 1
        }
        return true
    }
    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    @inline(__always) static func isIdentStart(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 }
    @inline(__always) static func isIdent(_ c: UInt8) -> Bool { isIdentStart(c) || isDigit(c) }
}
