import ActivityPushCore
/// A value as the audit sees it in source code.
enum SourceValue {
    case object(SourceObject)
    case string(String)
    /// An identifier or member chain (`ATTRIBUTES_TYPE`, `LiveActivityEvent.UPDATE`, `.update`).
    case reference(String)
    case placeholder(String)
    case other
}

/// An object the code builds: a dict/object/map literal, a call with labelled arguments, or a variable /
/// builder that receives keys one by one (`note.event = …`, `p.SetEvent(…)`, `aps["alert"] = …`).
final class SourceObject {
    struct Entry {
        /// JSON key (normalised: `contentState` / `content_state` / `ContentState` → `content-state`).
        var key: String
        /// The key as the source spells it (through a declared alias such as a Go `json:"…"` tag), for
        /// messages; empty when it was derived from a setter name.
        var written: String = ""
        var line: Int
        var value: SourceValue
    }
    var entries: [Entry] = []
    var line: Int
    var endLine: Int
    var kind: PayloadSiteKind
    /// `...x`, `**x`: keys not visible here.
    var hasSpread = false
    /// The called name for call-built objects (`APNSStartLiveActivityNotification`, `mapOf`, `Notification`).
    var callee: String?
    /// Token index of the object's opening (ordering, nesting).
    var start: Int
    var end: Int
    var isDeclaration = false
    /// The variable this object was assigned to (`aps = {…}`, `note = new apn.Notification()`).
    var boundName: String?

    init(line: Int, endLine: Int, kind: PayloadSiteKind, start: Int, end: Int) {
        self.line = line
        self.endLine = endLine
        self.kind = kind
        self.start = start
        self.end = end
    }

    func value(_ key: String) -> SourceValue? { entries.last(where: { $0.key == key })?.value }
    func has(_ key: String) -> Bool { entries.contains(where: { $0.key == key }) }
    func object(_ key: String) -> SourceObject? {
        if case .object(let o)? = value(key) { return o }
        return nil
    }
}

/// Finds the objects a file builds, from its tokens: bracket groups with key/value entries, and keys assigned
/// one by one to a variable or a builder chain.
struct PayloadObjectExtractor {
    let language: SourceLanguage
    let tokens: [SourceToken]
    let kind: PayloadSiteKind
    /// Field name → JSON key from struct tags / CodingKeys / annotations across the codebase.
    let aliases: [String: String]
    private var match: [Int]

    init(language: SourceLanguage, tokens: [SourceToken], kind: PayloadSiteKind, aliases: [String: String]) {
        self.language = language
        self.tokens = tokens
        self.kind = kind
        self.aliases = aliases
        var m = [Int](repeating: -1, count: tokens.count)
        var stack: [Int] = []
        for (i, t) in tokens.enumerated() where t.kind == .punct {
            switch t.text {
            case "{", "(", "[": stack.append(i)
            case "}", ")", "]":
                // Pop to the matching opener (tolerates stray closers).
                let want = t.text == "}" ? "{" : t.text == ")" ? "(" : "["
                if let k = stack.lastIndex(where: { tokens[$0].text == want }) {
                    m[stack[k]] = i
                    m[i] = stack[k]
                    stack.removeSubrange(k...)
                }
            default: break
            }
        }
        match = m
    }

    static let keywords: Set<String> = ["case", "default", "val", "var", "let", "const", "return", "if", "else", "for",
                                        "while", "in", "fun", "func", "def", "public", "private", "static", "final",
                                        "readonly", "export", "await", "new", "throw", "yield", "lazy", "weak"]

    /// Every object in the file, outermost first.
    mutating func objects() -> [SourceObject] {
        var cache: [Int: SourceObject] = [:]
        var all: [SourceObject] = []
        for i in tokens.indices where tokens[i].kind == .punct && ["{", "(", "["].contains(tokens[i].text) && match[i] > i {
            if let o = group(i, &cache) { all.append(o) }
        }
        all += variableObjects(&cache)
        return all.sorted(by: { $0.start < $1.start || ($0.start == $1.start && $0.end > $1.end) })
    }

    // MARK: - Groups

    private func group(_ open: Int, _ cache: inout [Int: SourceObject]) -> SourceObject? {
        if let o = cache[open] { return o }
        let close = match[open]
        guard close > open else { return nil }
        let bracket = tokens[open].text
        let o = SourceObject(line: tokens[open].line, endLine: tokens[close].endLine, kind: kind, start: open, end: close)
        o.callee = callee(before: open)
        cache[open] = o
        if isDeclarationContext(open) { o.isDeclaration = true; return o }
        if bracket == "{", language == .swift || language == .jvm { return o } // blocks and closures
        // Split into top-level segments.
        var segments: [(Int, Int)] = []
        var s = open + 1
        var k = open + 1
        var sawSemicolon = false
        while k < close {
            let t = tokens[k]
            if t.kind == .punct {
                if ["{", "(", "["].contains(t.text), match[k] > k { k = match[k] + 1; continue }
                if t.text == "," { segments.append((s, k)); s = k + 1 }
                if t.text == ";" { sawSemicolon = true; segments.append((s, k)); s = k + 1 }
            }
            k += 1
        }
        if s < close { segments.append((s, close)) }
        if sawSemicolon, language == .javascript, bracket == "{" { o.isDeclaration = true; return o }
        let pairsByPosition = bracket == "(" && ["of", "mapOf", "hashMapOf", "mutableMapOf", "ImmutableMap.of"].contains(o.callee ?? "")
            && !segments.isEmpty && segments.count % 2 == 0
            && stride(from: 0, to: segments.count, by: 2).allSatisfy { segments[$0].1 - segments[$0].0 == 1 && tokens[segments[$0].0].kind == .string }
        if pairsByPosition {
            for p in stride(from: 0, to: segments.count, by: 2) {
                let keyTok = tokens[segments[p].0]
                o.entries.append(.init(key: normalize(keyTok.text), written: written(keyTok.text), line: keyTok.line,
                                       value: value(segments[p + 1].0, segments[p + 1].1, &cache)))
            }
            return o
        }
        for (a, b) in segments where b > a {
            let t0 = tokens[a]
            if t0.kind == .punct, t0.text == "..." || t0.text == "**" || (t0.text == "*" && language == .python) {
                o.hasSpread = true
                continue
            }
            // Map.entry("k", v) inside Map.ofEntries(…)
            if b - a >= 2, let (ko, _) = entryCall(a, b, &cache) { o.entries.append(ko); continue }
            guard t0.kind == .string || t0.kind == .identifier else { continue }
            if t0.kind == .identifier, Self.keywords.contains(t0.text) { continue }
            var sep = a + 1
            if sep < b, tokens[sep].text == "?", tokens[sep].kind == .punct { sep += 1 } // TS optional `aps?:`
            guard sep < b else {
                // JS shorthand `{ aps }`
                if bracket == "{", language == .javascript, t0.kind == .identifier, b - a == 1 {
                    o.entries.append(.init(key: normalize(t0.text), written: written(t0.text), line: t0.line, value: .reference(t0.text)))
                }
                continue
            }
            let st = tokens[sep]
            let isSep: Bool
            switch st.text {
            case ":": isSep = st.kind == .punct && (bracket != "(" || language == .swift)
            case "=>": isSep = st.kind == .punct
            case "=": isSep = st.kind == .punct && bracket == "(" && (language == .python || language == .jvm || language == .ruby)
            case "to": isSep = st.kind == .identifier && language == .jvm
            default: isSep = false
            }
            guard isSep, sep + 1 <= b else { continue }
            o.entries.append(.init(key: normalize(t0.text), written: written(t0.text), line: t0.line, value: value(sep + 1, b, &cache)))
        }
        return o
    }

    /// `Map.entry("k", v)` / `entry("k", v)` / `Pair("k", v)` as one segment.
    private func entryCall(_ a: Int, _ b: Int, _ cache: inout [Int: SourceObject]) -> (SourceObject.Entry, Int)? {
        guard tokens[b - 1].text == ")", tokens[b - 1].kind == .punct else { return nil }
        let open = match[b - 1]
        guard open > a, let c = callee(before: open), c == "entry" || c == "Map.entry" || c == "Pair" || c == "SimpleEntry" else { return nil }
        let keyTok = tokens[open + 1]
        guard keyTok.kind == .string, open + 2 < b - 1, tokens[open + 2].text == "," else { return nil }
        return (.init(key: normalize(keyTok.text), written: written(keyTok.text), line: keyTok.line, value: value(open + 3, b - 1, &cache)), open)
    }

    private func value(_ a: Int, _ b: Int, _ cache: inout [Int: SourceObject]) -> SourceValue {
        guard b > a else { return .other }
        if b - a == 1 {
            let t = tokens[a]
            switch t.kind {
            case .string: return .string(t.text)
            case .placeholder: return .placeholder(t.text)
            case .identifier: return .reference(t.text)
            default: return .other
            }
        }
        let last = tokens[b - 1]
        if last.kind == .punct, ["}", ")", "]"].contains(last.text), match[b - 1] >= a {
            let open = match[b - 1]
            if !(a..<open).contains(where: { tokens[$0].text == "=>" || tokens[$0].text == "?" || tokens[$0].text == "+" }),
               let o = group(open, &cache) {
                // `.init(…)`, `Aps(…)`, `mapOf(…)`, `map[string]any{…}`, `{…}`
                if !o.entries.isEmpty || tokens[open].text != "(" || o.callee != nil { return .object(o) }
            }
        }
        // Member chains: `LiveActivityEvent.UPDATE`, `.update`, `payload.LiveActivityEventEnd`
        if (a..<b).allSatisfy({ tokens[$0].kind == .identifier || tokens[$0].text == "." || tokens[$0].text == "::" }) {
            return .reference((a..<b).map { tokens[$0].text }.joined())
        }
        return .other
    }

    /// The name called just before an opening bracket (`mapOf(`, `.init(`, `new apn.Notification(`, `T{`).
    private func callee(before open: Int) -> String? {
        var k = open - 1
        guard k >= 0 else { return nil }
        // Go `map[string]interface{}{` / `[]T{`: skip the type's brackets.
        if tokens[k].text == "}" || tokens[k].text == "]", tokens[k].kind == .punct, language == .go { return "map" }
        if tokens[k].text == ">", language == .jvm || language == .javascript || language == .swift {
            // generic arguments `HashMap<String, Any>(`
            var depth = 0
            while k >= 0 {
                if tokens[k].text == ">" { depth += 1 } else if tokens[k].text == "<" { depth -= 1; if depth == 0 { k -= 1; break } }
                k -= 1
            }
        }
        guard k >= 0, tokens[k].kind == .identifier else { return nil }
        var name = tokens[k].text
        if k >= 2, tokens[k - 1].text == ".", tokens[k - 2].kind == .identifier, tokens[k - 2].text == "Map" || tokens[k - 2].text == "ImmutableMap" {
            name = tokens[k - 2].text + "." + name
        }
        return name
    }

    /// Parameter lists, type bodies and struct declarations are shapes, not values.
    private func isDeclarationContext(_ open: Int) -> Bool {
        let t = tokens[open].text
        let k = open - 1
        guard k >= 0 else { return false }
        if t == "(" {
            // func name( / def name( / function name( / fun name( / init( / class X(
            if tokens[k].kind == .identifier {
                if ["init", "constructor", "function", "func", "def", "fun"].contains(tokens[k].text),
                   k == 0 || tokens[k - 1].text != "." { return true }
                if k >= 1, ["func", "def", "function", "fun", "class", "struct", "record", "interface", "fn", "sub"]
                    .contains(tokens[k - 1].text) { return true }
                if k >= 2, tokens[k - 1].text == ".", k >= 3, tokens[k - 3].text == "fun" { return true } // fun Foo.bar(
                if language == .go, k >= 1, tokens[k - 1].text == ")" { return true } // method receiver
            }
            if language == .go, tokens[k].text == "func" { return true }
            if language == .go, tokens[k].kind == .identifier, k >= 1, tokens[k - 1].text == "func" { return true }
            // `(a: T) =>` arrow parameters
            let close = match[open]
            if close + 1 < tokens.count, tokens[close + 1].text == "=>" || (tokens[close + 1].text == ":" && language == .javascript) { return true }
            return false
        }
        if t == "{" {
            // skip generic / extends clauses back to a declaration keyword on the same line
            var j = k
            let line = tokens[open].line
            while j >= 0, tokens[j].line >= line - 1, j >= open - 12 {
                let w = tokens[j].text
                if tokens[j].kind == .identifier, ["interface", "struct", "class", "enum", "protocol", "extension", "record", "trait", "union"].contains(w) { return true }
                if w == "=" || w == "(" || w == ":" && language != .javascript || w == "return" || w == "," || w == ";" || w == "{" || w == "}" && language != .go { break }
                if w == "type", tokens[j].kind == .identifier, language == .javascript || language == .go { return true }
                j -= 1
            }
        }
        return false
    }

    // MARK: - Keys assigned one by one

    static let setterKeys: Set<String> = ["event", "content-state", "attributes-type", "attributes", "timestamp",
                                          "dismissal-date", "stale-date", "alert", "alert-title", "alert-body",
                                          "relevance-score", "input-push-token", "input-push-channel"]

    /// `v.key = x`, `v["key"] = x`, `v.put("key", x)`, `v.SetEvent(x)` / chains `NewPayload().SetEvent(x)…`,
    /// and `put("key", x)` inside a builder block.
    private func variableObjects(_ cache: inout [Int: SourceObject]) -> [SourceObject] {
        var byName: [String: SourceObject] = [:]
        var byChainRoot: [Int: SourceObject] = [:]
        var lastAssign: [String: (line: Int, index: Int, object: SourceObject?)] = [:]
        var created: [SourceObject] = []
        func objectFor(_ name: String, at line: Int, index: Int, kind: PayloadSiteKind) -> SourceObject {
            if let o = byName[name] { return o }
            if let a = lastAssign[name], let lit = a.object { byName[name] = lit; return lit }
            let start = lastAssign[name]?.index ?? index
            let o = SourceObject(line: lastAssign[name]?.line ?? line, endLine: line, kind: .builder, start: start, end: index)
            o.boundName = name
            if let a = lastAssign[name] { o.callee = assignedCallee(a.index) }
            byName[name] = o
            created.append(o)
            return o
        }
        var i = 0
        let n = tokens.count
        while i < n {
            let t = tokens[i]
            let prevIsDot = i > 0 && (tokens[i - 1].text == "." || tokens[i - 1].text == "?.")
            // Assignment `name =` / `name :=` / `let name =` resets the variable's object.
            if t.kind == .identifier, !prevIsDot, i + 1 < n, tokens[i + 1].kind == .punct,
               tokens[i + 1].text == "=" || tokens[i + 1].text == ":=" {
                var lit: SourceObject?
                if i + 2 < n, tokens[i + 2].kind == .punct, ["{", "["].contains(tokens[i + 2].text) {
                    lit = group(i + 2, &cache)
                    lit?.boundName = t.text
                }
                lastAssign[t.text] = (t.line, i, lit)
                byName[t.text] = nil
            }
            // v.key = value
            if t.kind == .identifier, !prevIsDot, i + 3 < n, tokens[i + 1].text == ".", tokens[i + 2].kind == .identifier,
               tokens[i + 3].kind == .punct, tokens[i + 3].text == "=" {
                let key = normalize(tokens[i + 2].text)
                let o = objectFor(t.text, at: t.line, index: i, kind: .builder)
                o.entries.append(.init(key: key, line: t.line, value: statementValue(i + 4, &cache)))
                o.endLine = max(o.endLine, t.line)
                o.end = max(o.end, i)
                i += 4
                continue
            }
            // v["key"] = value
            if t.kind == .identifier, !prevIsDot, i + 4 < n, tokens[i + 1].text == "[", tokens[i + 2].kind == .string,
               tokens[i + 3].text == "]", tokens[i + 4].text == "=", tokens[i + 4].kind == .punct {
                let o = objectFor(t.text, at: t.line, index: i, kind: .builder)
                o.entries.append(.init(key: normalize(tokens[i + 2].text), written: written(tokens[i + 2].text), line: t.line, value: statementValue(i + 5, &cache)))
                o.endLine = max(o.endLine, t.line)
                o.end = max(o.end, i)
                i += 5
                continue
            }
            // Kotlin `buildJsonObject { put("k", v); putJsonObject("aps") { … } }`: a bare put inside a block
            // adds the key to the block's object.
            if t.kind == .identifier, !prevIsDot, ["put", "putJsonObject", "putJsonArray"].contains(t.text), i + 2 < n,
               tokens[i + 1].text == "(", match[i + 1] > i + 1, tokens[i + 2].kind == .string,
               let (key, val) = setterCall(i, &cache), let open = enclosingBrace(i), let o = group(open, &cache) {
                o.entries.append(.init(key: key, line: t.line, value: val))
                i = match[i + 1] + 1
                continue
            }
            // .method(args)
            if t.kind == .punct, t.text == "." || t.text == "?." || t.text == "->", i + 2 < n, tokens[i + 1].kind == .identifier,
               tokens[i + 2].text == "(", match[i + 2] > i + 2, let (key, val) = setterCall(i + 1, &cache) {
                let (rootIndex, rootName) = chainRoot(before: i)
                let o: SourceObject
                if let name = rootName {
                    o = objectFor(name, at: tokens[i].line, index: rootIndex, kind: .builder)
                } else if let existing = byChainRoot[rootIndex] {
                    o = existing
                } else {
                    o = SourceObject(line: tokens[rootIndex].line, endLine: tokens[i].line, kind: .builder, start: rootIndex, end: i)
                    o.callee = tokens[rootIndex].kind == .identifier ? chainCallee(rootIndex) : nil
                    byChainRoot[rootIndex] = o
                    created.append(o)
                    // `p := payload.NewPayload()…` binds the chain to p.
                    if rootIndex >= 2, tokens[rootIndex - 1].text == "=" || tokens[rootIndex - 1].text == ":=",
                       tokens[rootIndex - 2].kind == .identifier {
                        byName[tokens[rootIndex - 2].text] = o
                    }
                }
                o.entries.append(.init(key: key, line: tokens[i].line, value: val))
                o.endLine = max(o.endLine, tokens[match[i + 2]].line)
                o.end = max(o.end, match[i + 2])
                i += 3
                continue
            }
            i += 1
        }
        return created.filter { !$0.entries.isEmpty }
    }

    /// The innermost `{` whose group contains token `i`.
    private func enclosingBrace(_ i: Int) -> Int? {
        var k = i - 1
        while k >= 0 {
            if tokens[k].kind == .punct {
                if ["}", ")", "]"].contains(tokens[k].text), match[k] >= 0, match[k] < k { k = match[k] - 1; continue }
                if tokens[k].text == "{", match[k] > i { return k }
            }
            k -= 1
        }
        return nil
    }

    /// The value after `=` up to the end of the statement.
    private func statementValue(_ a: Int, _ cache: inout [Int: SourceObject]) -> SourceValue {
        var b = a
        let line = a < tokens.count ? tokens[a].line : 0
        while b < tokens.count {
            let t = tokens[b]
            if t.kind == .punct, ["{", "(", "["].contains(t.text), match[b] > b { b = match[b] + 1; continue }
            if t.text == ";" || (t.line != line && t.newlineBefore) || t.text == "}" || t.text == ")" { break }
            b += 1
        }
        return value(a, b, &cache)
    }

    /// A setter/builder call's key and value, or nil when the method is not one.
    private func setterCall(_ m: Int, _ cache: inout [Int: SourceObject]) -> (String, SourceValue)? {
        let name = tokens[m].text
        let open = m + 1, close = match[m + 1]
        // Arguments
        var args: [(Int, Int)] = []
        var s = open + 1, k = open + 1
        while k < close {
            if tokens[k].kind == .punct, ["{", "(", "["].contains(tokens[k].text), match[k] > k { k = match[k] + 1; continue }
            if tokens[k].text == "," { args.append((s, k)); s = k + 1 }
            k += 1
        }
        if s < close { args.append((s, close)) }
        let generic: Set<String> = ["put", "putCustomData", "set", "setCustomProperty", "addCustomProperty", "Custom",
                                    "custom", "putJsonObject", "add", "with", "setCustomField", "customData", "putString"]
        if generic.contains(name), let first = args.first, first.1 - first.0 == 1, tokens[first.0].kind == .string {
            let key = normalize(tokens[first.0].text)
            if name == "putJsonObject", close + 1 < tokens.count, tokens[close + 1].text == "{" {
                return (key, group(close + 1, &cache).map { .object($0) } ?? .other)
            }
            return (key, args.count > 1 ? value(args[1].0, args[1].1, &cache) : .other)
        }
        var base = name
        for p in ["set", "Set", "add", "Add", "with", "With"] where base.hasPrefix(p) {
            let rest = base.dropFirst(p.count)
            if let f = rest.first, f.isUppercase { base = String(rest); break }
        }
        if base.hasSuffix("Property") { base = String(base.dropLast("Property".count)) }
        let key = normalize(base)
        guard Self.setterKeys.contains(key) else { return nil }
        // A setter needs an argument (getters like `.event()` are not builds).
        guard let first = args.first else { return nil }
        return (key, value(first.0, first.1, &cache))
    }

    /// Walks back from a `.` over `x.y(…)` links to the start of the expression.
    private func chainRoot(before dot: Int) -> (Int, String?) {
        var k = dot - 1
        var sawCall = false
        while k >= 0 {
            let t = tokens[k]
            if t.kind == .punct, t.text == ")" || t.text == "]", match[k] >= 0, match[k] < k {
                k = match[k] - 1
                sawCall = true
                continue
            }
            if t.kind == .identifier {
                if k >= 1, tokens[k - 1].text == "." || tokens[k - 1].text == "?." || tokens[k - 1].text == "::" { k -= 2; continue }
                if k >= 1, tokens[k - 1].text == "new" { return (k - 1, nil) }
                // A plain variable (`note.event = …`, `b.setEvent(…)`) vs. an expression (`NewPayload().…`)
                if !sawCall { return (k, t.text) }
                // `p.AlertTitle(…).SetEvent(…)`: the root is variable p when nothing after it was a call on it directly
                if k + 1 < tokens.count, tokens[k + 1].text == "." { return (k, t.text) }
                return (k, nil)
            }
            if t.text == "." && k == dot { k -= 1; continue }
            return (min(k + 1, dot), nil)
        }
        return (0, nil)
    }

    private func chainCallee(_ root: Int) -> String? {
        var k = root
        var last: String?
        while k < tokens.count, tokens[k].kind == .identifier || tokens[k].text == "." || tokens[k].text == "new" {
            if tokens[k].kind == .identifier, tokens[k].text != "new" { last = tokens[k].text }
            k += 1
        }
        return last
    }

    private func assignedCallee(_ assignIndex: Int) -> String? {
        var k = assignIndex + 2
        var last: String?
        while k < tokens.count, k < assignIndex + 8 {
            if tokens[k].kind == .identifier, tokens[k].text != "new" { last = tokens[k].text }
            if tokens[k].text == "(" || tokens[k].text == "{" { return last }
            k += 1
        }
        return nil
    }

    /// A source key as written, for messages: a declared alias, else the key without a PHP `$`.
    func written(_ raw: String) -> String {
        let k = raw.hasPrefix("$") ? String(raw.dropFirst()) : raw
        return aliases[k] ?? k
    }

    /// JSON key for a source key: aliases first, then camelCase / snake_case / PascalCase → kebab-case.
    func normalize(_ raw: String) -> String {
        var k = raw
        if k.hasPrefix("$") { k.removeFirst() }
        if let a = aliases[k] { return a }
        if k.contains("-") { return k }
        var out = ""
        var prevLower = false
        for ch in k {
            if ch == "_" { out.append("-"); prevLower = false; continue }
            if ch.isUppercase {
                if prevLower { out.append("-") }
                out.append(Character(ch.lowercased()))
                prevLower = false
            } else {
                out.append(ch)
                prevLower = ch.isLetter || ch.isNumber
            }
        }
        return out
    }
}
