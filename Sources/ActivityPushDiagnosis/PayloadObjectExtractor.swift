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
        if case .object(let nested)? = value(key) { return nested }
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
        var matches = [Int](repeating: -1, count: tokens.count)
        var stack: [Int] = []
        for (index, token) in tokens.enumerated() where token.kind == .punct {
            switch token.text {
            case "{", "(", "[": stack.append(index)
            case "}", ")", "]":
                // Pop to the matching opener (tolerates stray closers).
                let want = token.text == "}" ? "{" : token.text == ")" ? "(" : "["
                if let openerIndex = stack.lastIndex(where: { tokens[$0].text == want }) {
                    matches[stack[openerIndex]] = index
                    matches[index] = stack[openerIndex]
                    stack.removeSubrange(openerIndex...)
                }
            default: break
            }
        }
        match = matches
    }

    static let keywords: Set<String> = ["case", "default", "val", "var", "let", "const", "return", "if", "else", "for",
                                        "while", "in", "fun", "func", "def", "public", "private", "static", "final",
                                        "readonly", "export", "await", "new", "throw", "yield", "lazy", "weak"]

    /// Every object in the file, outermost first.
    mutating func objects() -> [SourceObject] {
        var cache: [Int: SourceObject] = [:]
        var all: [SourceObject] = []
        for open in tokens.indices where tokens[open].kind == .punct && ["{", "(", "["].contains(tokens[open].text) && match[open] > open {
            if let object = group(open, &cache) { all.append(object) }
        }
        all += variableObjects(&cache)
        return all.sorted(by: { $0.start < $1.start || ($0.start == $1.start && $0.end > $1.end) })
    }

    // MARK: - Groups

    private func group(_ open: Int, _ cache: inout [Int: SourceObject]) -> SourceObject? {
        if let cached = cache[open] { return cached }
        let close = match[open]
        guard close > open else { return nil }
        let bracket = tokens[open].text
        let object = SourceObject(line: tokens[open].line, endLine: tokens[close].endLine, kind: kind, start: open, end: close)
        object.callee = callee(before: open)
        cache[open] = object
        if isDeclarationContext(open) { object.isDeclaration = true; return object }
        if bracket == "{", language == .swift || language == .jvm { return object } // blocks and closures
        // Split into top-level segments.
        var segments: [(Int, Int)] = []
        var segmentStart = open + 1
        var cursor = open + 1
        var sawSemicolon = false
        while cursor < close {
            let token = tokens[cursor]
            if token.kind == .punct {
                if ["{", "(", "["].contains(token.text), match[cursor] > cursor { cursor = match[cursor] + 1; continue }
                if token.text == "," { segments.append((segmentStart, cursor)); segmentStart = cursor + 1 }
                if token.text == ";" { sawSemicolon = true; segments.append((segmentStart, cursor)); segmentStart = cursor + 1 }
            }
            cursor += 1
        }
        if segmentStart < close { segments.append((segmentStart, close)) }
        if sawSemicolon, language == .javascript, bracket == "{" { object.isDeclaration = true; return object }
        let pairsByPosition = bracket == "(" && ["of", "mapOf", "hashMapOf", "mutableMapOf", "ImmutableMap.of"].contains(object.callee ?? "")
            && !segments.isEmpty && segments.count % 2 == 0
            && stride(from: 0, to: segments.count, by: 2).allSatisfy { segments[$0].1 - segments[$0].0 == 1 && tokens[segments[$0].0].kind == .string }
        if pairsByPosition {
            for pairStart in stride(from: 0, to: segments.count, by: 2) {
                let keyTok = tokens[segments[pairStart].0]
                object.entries.append(.init(key: normalize(keyTok.text), written: written(keyTok.text), line: keyTok.line,
                                       value: value(segments[pairStart + 1].0, segments[pairStart + 1].1, &cache)))
            }
            return object
        }
        for (segmentFirst, segmentEnd) in segments where segmentEnd > segmentFirst {
            let t0 = tokens[segmentFirst]
            if t0.kind == .punct, t0.text == "..." || t0.text == "**" || (t0.text == "*" && language == .python) {
                object.hasSpread = true
                continue
            }
            // Map.entry("k", v) inside Map.ofEntries(…)
            if segmentEnd - segmentFirst >= 2, let (ko, _) = entryCall(segmentFirst, segmentEnd, &cache) { object.entries.append(ko); continue }
            guard t0.kind == .string || t0.kind == .identifier else { continue }
            if t0.kind == .identifier, Self.keywords.contains(t0.text) { continue }
            var sep = segmentFirst + 1
            if sep < segmentEnd, tokens[sep].text == "?", tokens[sep].kind == .punct { sep += 1 } // TS optional `aps?:`
            guard sep < segmentEnd else {
                // JS shorthand `{ aps }`
                if bracket == "{", language == .javascript, t0.kind == .identifier, segmentEnd - segmentFirst == 1 {
                    object.entries.append(.init(key: normalize(t0.text), written: written(t0.text), line: t0.line, value: .reference(t0.text)))
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
            guard isSep, sep + 1 <= segmentEnd else { continue }
            object.entries.append(.init(key: normalize(t0.text), written: written(t0.text), line: t0.line, value: value(sep + 1, segmentEnd, &cache)))
        }
        return object
    }

    /// `Map.entry("k", v)` / `entry("k", v)` / `Pair("k", v)` as one segment.
    private func entryCall(_ a: Int, _ b: Int, _ cache: inout [Int: SourceObject]) -> (SourceObject.Entry, Int)? {
        guard tokens[b - 1].text == ")", tokens[b - 1].kind == .punct else { return nil }
        let open = match[b - 1]
        guard open > a, let calleeName = callee(before: open), calleeName == "entry" || calleeName == "Map.entry" || calleeName == "Pair" || calleeName == "SimpleEntry" else { return nil }
        let keyTok = tokens[open + 1]
        guard keyTok.kind == .string, open + 2 < b - 1, tokens[open + 2].text == "," else { return nil }
        return (.init(key: normalize(keyTok.text), written: written(keyTok.text), line: keyTok.line, value: value(open + 3, b - 1, &cache)), open)
    }

    private func value(_ a: Int, _ b: Int, _ cache: inout [Int: SourceObject]) -> SourceValue {
        guard b > a else { return .other }
        if b - a == 1 {
            let token = tokens[a]
            switch token.kind {
            case .string: return .string(token.text)
            case .placeholder: return .placeholder(token.text)
            case .identifier: return .reference(token.text)
            default: return .other
            }
        }
        let last = tokens[b - 1]
        if last.kind == .punct, ["}", ")", "]"].contains(last.text), match[b - 1] >= a {
            let open = match[b - 1]
            if !(a..<open).contains(where: { tokens[$0].text == "=>" || tokens[$0].text == "?" || tokens[$0].text == "+" }),
               let object = group(open, &cache) {
                // `.init(…)`, `Aps(…)`, `mapOf(…)`, `map[string]any{…}`, `{…}`
                if !object.entries.isEmpty || tokens[open].text != "(" || object.callee != nil { return .object(object) }
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
        var nameIndex = open - 1
        guard nameIndex >= 0 else { return nil }
        // Go `map[string]interface{}{` / `[]T{`: skip the type's brackets.
        if tokens[nameIndex].text == "}" || tokens[nameIndex].text == "]", tokens[nameIndex].kind == .punct, language == .go { return "map" }
        if tokens[nameIndex].text == ">", language == .jvm || language == .javascript || language == .swift {
            // generic arguments `HashMap<String, Any>(`
            var depth = 0
            while nameIndex >= 0 {
                if tokens[nameIndex].text == ">" { depth += 1 } else if tokens[nameIndex].text == "<" { depth -= 1; if depth == 0 { nameIndex -= 1; break } }
                nameIndex -= 1
            }
        }
        guard nameIndex >= 0, tokens[nameIndex].kind == .identifier else { return nil }
        var name = tokens[nameIndex].text
        if nameIndex >= 2, tokens[nameIndex - 1].text == ".", tokens[nameIndex - 2].kind == .identifier, tokens[nameIndex - 2].text == "Map" || tokens[nameIndex - 2].text == "ImmutableMap" {
            name = tokens[nameIndex - 2].text + "." + name
        }
        return name
    }

    /// Parameter lists, type bodies and struct declarations are shapes, not values.
    private func isDeclarationContext(_ open: Int) -> Bool {
        let bracket = tokens[open].text
        let before = open - 1
        guard before >= 0 else { return false }
        if bracket == "(" {
            // func name( / def name( / function name( / fun name( / init( / class X(
            if tokens[before].kind == .identifier {
                if ["init", "constructor", "function", "func", "def", "fun"].contains(tokens[before].text),
                   before == 0 || tokens[before - 1].text != "." { return true }
                if before >= 1, ["func", "def", "function", "fun", "class", "struct", "record", "interface", "fn", "sub"]
                    .contains(tokens[before - 1].text) { return true }
                if before >= 2, tokens[before - 1].text == ".", before >= 3, tokens[before - 3].text == "fun" { return true } // fun Foo.bar(
                if language == .go, before >= 1, tokens[before - 1].text == ")" { return true } // method receiver
            }
            if language == .go, tokens[before].text == "func" { return true }
            if language == .go, tokens[before].kind == .identifier, before >= 1, tokens[before - 1].text == "func" { return true }
            // `(a: T) =>` arrow parameters
            let close = match[open]
            if close + 1 < tokens.count, tokens[close + 1].text == "=>" || (tokens[close + 1].text == ":" && language == .javascript) { return true }
            return false
        }
        if bracket == "{" {
            // skip generic / extends clauses back to a declaration keyword on the same line
            var scan = before
            let line = tokens[open].line
            while scan >= 0, tokens[scan].line >= line - 1, scan >= open - 12 {
                let word = tokens[scan].text
                if tokens[scan].kind == .identifier, ["interface", "struct", "class", "enum", "protocol", "extension", "record", "trait", "union"].contains(word) { return true }
                if word == "=" || word == "(" || word == ":" && language != .javascript || word == "return" || word == "," || word == ";" || word == "{" || word == "}" && language != .go { break }
                if word == "type", tokens[scan].kind == .identifier, language == .javascript || language == .go { return true }
                scan -= 1
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
            if let existing = byName[name] { return existing }
            if let assignment = lastAssign[name], let lit = assignment.object { byName[name] = lit; return lit }
            let start = lastAssign[name]?.index ?? index
            let object = SourceObject(line: lastAssign[name]?.line ?? line, endLine: line, kind: .builder, start: start, end: index)
            object.boundName = name
            if let assignment = lastAssign[name] { object.callee = assignedCallee(assignment.index) }
            byName[name] = object
            created.append(object)
            return object
        }
        var position = 0
        let tokenCount = tokens.count
        while position < tokenCount {
            let token = tokens[position]
            let prevIsDot = position > 0 && (tokens[position - 1].text == "." || tokens[position - 1].text == "?.")
            // Assignment `name =` / `name :=` / `let name =` resets the variable's object.
            if token.kind == .identifier, !prevIsDot, position + 1 < tokenCount, tokens[position + 1].kind == .punct,
               tokens[position + 1].text == "=" || tokens[position + 1].text == ":=" {
                var lit: SourceObject?
                if position + 2 < tokenCount, tokens[position + 2].kind == .punct, ["{", "["].contains(tokens[position + 2].text) {
                    lit = group(position + 2, &cache)
                    lit?.boundName = token.text
                }
                lastAssign[token.text] = (token.line, position, lit)
                byName[token.text] = nil
            }
            // v.key = value
            if token.kind == .identifier, !prevIsDot, position + 3 < tokenCount, tokens[position + 1].text == ".", tokens[position + 2].kind == .identifier,
               tokens[position + 3].kind == .punct, tokens[position + 3].text == "=" {
                let key = normalize(tokens[position + 2].text)
                let object = objectFor(token.text, at: token.line, index: position, kind: .builder)
                object.entries.append(.init(key: key, line: token.line, value: statementValue(position + 4, &cache)))
                object.endLine = max(object.endLine, token.line)
                object.end = max(object.end, position)
                position += 4
                continue
            }
            // v["key"] = value
            if token.kind == .identifier, !prevIsDot, position + 4 < tokenCount, tokens[position + 1].text == "[", tokens[position + 2].kind == .string,
               tokens[position + 3].text == "]", tokens[position + 4].text == "=", tokens[position + 4].kind == .punct {
                let object = objectFor(token.text, at: token.line, index: position, kind: .builder)
                object.entries.append(.init(key: normalize(tokens[position + 2].text), written: written(tokens[position + 2].text), line: token.line, value: statementValue(position + 5, &cache)))
                object.endLine = max(object.endLine, token.line)
                object.end = max(object.end, position)
                position += 5
                continue
            }
            // Kotlin `buildJsonObject { put("k", v); putJsonObject("aps") { … } }`: a bare put inside a block
            // adds the key to the block's object.
            if token.kind == .identifier, !prevIsDot, ["put", "putJsonObject", "putJsonArray"].contains(token.text), position + 2 < tokenCount,
               tokens[position + 1].text == "(", match[position + 1] > position + 1, tokens[position + 2].kind == .string,
               let (key, val) = setterCall(position, &cache), let open = enclosingBrace(position), let object = group(open, &cache) {
                object.entries.append(.init(key: key, line: token.line, value: val))
                position = match[position + 1] + 1
                continue
            }
            // .method(args)
            if token.kind == .punct, token.text == "." || token.text == "?." || token.text == "->", position + 2 < tokenCount, tokens[position + 1].kind == .identifier,
               tokens[position + 2].text == "(", match[position + 2] > position + 2, let (key, val) = setterCall(position + 1, &cache) {
                let (rootIndex, rootName) = chainRoot(before: position)
                let object: SourceObject
                if let name = rootName {
                    object = objectFor(name, at: tokens[position].line, index: rootIndex, kind: .builder)
                } else if let existing = byChainRoot[rootIndex] {
                    object = existing
                } else {
                    object = SourceObject(line: tokens[rootIndex].line, endLine: tokens[position].line, kind: .builder, start: rootIndex, end: position)
                    object.callee = tokens[rootIndex].kind == .identifier ? chainCallee(rootIndex) : nil
                    byChainRoot[rootIndex] = object
                    created.append(object)
                    // `p := payload.NewPayload()…` binds the chain to p.
                    if rootIndex >= 2, tokens[rootIndex - 1].text == "=" || tokens[rootIndex - 1].text == ":=",
                       tokens[rootIndex - 2].kind == .identifier {
                        byName[tokens[rootIndex - 2].text] = object
                    }
                }
                object.entries.append(.init(key: key, line: tokens[position].line, value: val))
                object.endLine = max(object.endLine, tokens[match[position + 2]].line)
                object.end = max(object.end, match[position + 2])
                position += 3
                continue
            }
            position += 1
        }
        return created.filter { !$0.entries.isEmpty }
    }

    /// The innermost `{` whose group contains token `i`.
    private func enclosingBrace(_ i: Int) -> Int? {
        var cursor = i - 1
        while cursor >= 0 {
            if tokens[cursor].kind == .punct {
                if ["}", ")", "]"].contains(tokens[cursor].text), match[cursor] >= 0, match[cursor] < cursor { cursor = match[cursor] - 1; continue }
                if tokens[cursor].text == "{", match[cursor] > i { return cursor }
            }
            cursor -= 1
        }
        return nil
    }

    /// The value after `=` up to the end of the statement.
    private func statementValue(_ a: Int, _ cache: inout [Int: SourceObject]) -> SourceValue {
        var end = a
        let line = a < tokens.count ? tokens[a].line : 0
        while end < tokens.count {
            let token = tokens[end]
            if token.kind == .punct, ["{", "(", "["].contains(token.text), match[end] > end { end = match[end] + 1; continue }
            if token.text == ";" || (token.line != line && token.newlineBefore) || token.text == "}" || token.text == ")" { break }
            end += 1
        }
        return value(a, end, &cache)
    }

    /// A setter/builder call's key and value, or nil when the method is not one.
    private func setterCall(_ m: Int, _ cache: inout [Int: SourceObject]) -> (String, SourceValue)? {
        let name = tokens[m].text
        let open = m + 1, close = match[m + 1]
        // Arguments
        var args: [(Int, Int)] = []
        var argStart = open + 1, cursor = open + 1
        while cursor < close {
            if tokens[cursor].kind == .punct, ["{", "(", "["].contains(tokens[cursor].text), match[cursor] > cursor { cursor = match[cursor] + 1; continue }
            if tokens[cursor].text == "," { args.append((argStart, cursor)); argStart = cursor + 1 }
            cursor += 1
        }
        if argStart < close { args.append((argStart, close)) }
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
        for prefix in ["set", "Set", "add", "Add", "with", "With"] where base.hasPrefix(prefix) {
            let rest = base.dropFirst(prefix.count)
            if let firstLetter = rest.first, firstLetter.isUppercase { base = String(rest); break }
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
        var cursor = dot - 1
        var sawCall = false
        while cursor >= 0 {
            let token = tokens[cursor]
            if token.kind == .punct, token.text == ")" || token.text == "]", match[cursor] >= 0, match[cursor] < cursor {
                cursor = match[cursor] - 1
                sawCall = true
                continue
            }
            if token.kind == .identifier {
                if cursor >= 1, tokens[cursor - 1].text == "." || tokens[cursor - 1].text == "?." || tokens[cursor - 1].text == "::" { cursor -= 2; continue }
                if cursor >= 1, tokens[cursor - 1].text == "new" { return (cursor - 1, nil) }
                // A plain variable (`note.event = …`, `b.setEvent(…)`) vs. an expression (`NewPayload().…`)
                if !sawCall { return (cursor, token.text) }
                // `p.AlertTitle(…).SetEvent(…)`: the root is variable p when nothing after it was a call on it directly
                if cursor + 1 < tokens.count, tokens[cursor + 1].text == "." { return (cursor, token.text) }
                return (cursor, nil)
            }
            if token.text == "." && cursor == dot { cursor -= 1; continue }
            return (min(cursor + 1, dot), nil)
        }
        return (0, nil)
    }

    private func chainCallee(_ root: Int) -> String? {
        var cursor = root
        var last: String?
        while cursor < tokens.count, tokens[cursor].kind == .identifier || tokens[cursor].text == "." || tokens[cursor].text == "new" {
            if tokens[cursor].kind == .identifier, tokens[cursor].text != "new" { last = tokens[cursor].text }
            cursor += 1
        }
        return last
    }

    private func assignedCallee(_ assignIndex: Int) -> String? {
        var cursor = assignIndex + 2
        var last: String?
        while cursor < tokens.count, cursor < assignIndex + 8 {
            if tokens[cursor].kind == .identifier, tokens[cursor].text != "new" { last = tokens[cursor].text }
            if tokens[cursor].text == "(" || tokens[cursor].text == "{" { return last }
            cursor += 1
        }
        return nil
    }

    /// A source key as written, for messages: a declared alias, else the key without a PHP `$`.
    func written(_ raw: String) -> String {
        let key = raw.hasPrefix("$") ? String(raw.dropFirst()) : raw
        return aliases[key] ?? key
    }

    /// JSON key for a source key: aliases first, then camelCase / snake_case / PascalCase → kebab-case.
    func normalize(_ raw: String) -> String {
        var key = raw
        if key.hasPrefix("$") { key.removeFirst() }
        if let alias = aliases[key] { return alias }
        if key.contains("-") { return key }
        var out = ""
        var prevLower = false
        for ch in key {
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
