/// A declaration-level Swift parser: types, their stored/computed properties, enum cases, typealiases and
/// `init(from:)`. Function and accessor bodies are skipped by bracket matching over the lexer's tokens
/// (strings and comments are already single tokens or gone), so a 500-line file reads in well under 1 ms.
struct SwiftDeclarationParser {
    private let tokens: [SwiftToken]
    private let bytes: [UInt8]
    private let file: String
    private var cursor = 0
    private var out = SwiftDeclarations()
    /// Current nesting of type syntax (`[`, `<`, `?`, `&`, `->`, `~`) and of type declarations.
    private var typeNesting = 0
    /// Height of the type tree the last `parseType()` returned (`[Int?]` is 3).
    private var lastTypeHeight = 0
    private var declarationNesting = 0
    /// `parseType()` calls plus tokens skipped by bracket matching so far; bounded by ``workBudget`` so that
    /// no input makes reading superlinear.
    private var work = 0

    /// Deepest type syntax read (`[[…]]`, `Array<Array<…>>`, `T??…`): real declarations stay far below it, and
    /// the resolver and the schema JSON (read back by `check --schema`) stay within the stack and the
    /// JSON reader's depth limit.
    static let maxTypeNesting = 48
    /// Deepest nesting of type declarations (`struct A { struct B { … } }`).
    static let maxDeclarationNesting = 48

    /// Most work (see `work`) for a file of `tokens` tokens. Real code does about two units per token; a failed
    /// type is read again from its start, so broken nesting (`[Array<[Array<…`) could multiply the work.
    static func workBudget(tokens: Int) -> Int { 16 * tokens + 1024 }

    /// Parses one file's text. Throws on unterminated literals/comments and unbalanced brackets.
    static func parse(text: String, file: String) throws(SwiftSyntaxError) -> SwiftDeclarations {
        let bytes = Array(text.utf8)
        let tokens = try SwiftLexer.tokenize(bytes)
        var parser = SwiftDeclarationParser(tokens: tokens, bytes: bytes, file: file)
        try parser.parseBody(scope: [], typeIndex: nil, closeLine: nil)
        return parser.out
    }

    private init(tokens: [SwiftToken], bytes: [UInt8], file: String) {
        self.tokens = tokens
        self.bytes = bytes
        self.file = file
    }

    // MARK: token helpers

    private var atEnd: Bool { cursor >= tokens.count }

    private func isPunct(_ c: Unicode.Scalar, at k: Int? = nil) -> Bool {
        let j = k ?? cursor
        guard j < tokens.count, tokens[j].kind == .punct else { return false }
        return tokens[j].char == UInt8(truncatingIfNeeded: c.value)
    }

    private func isIdent(_ s: String, at k: Int? = nil) -> Bool {
        let j = k ?? cursor
        return j < tokens.count && tokens[j].kind == .identifier && tokens[j].text == s
    }

    private func source(_ from: Int, _ to: Int) -> String {
        let to = min(to, tokens.count)
        guard from < to else { return "" }
        return String(decoding: bytes[tokens[from].start..<tokens[to - 1].end], as: UTF8.self)
    }

    private static let closers: [UInt8: UInt8] = [0x28: 0x29, 0x5B: 0x5D, 0x7B: 0x7D]

    /// Counts `units` of work; throws once the file's ``workBudget`` is spent.
    private mutating func spend(_ units: Int) throws(SwiftSyntaxError) {
        work += units
        guard work > Self.workBudget(tokens: tokens.count) else { return }
        let line = cursor < tokens.count ? tokens[cursor].line : (tokens.last?.line ?? 1)
        throw SwiftSyntaxError(line: line, message: "type syntax too tangled to read (unbalanced '<', '[' or '(' near here)",
                               fix: "correct the type's brackets so the file compiles")
    }

    /// At `(`, `[` or `{`: moves past the matching closer.
    private mutating func skipBalanced() throws(SwiftSyntaxError) {
        let first = cursor
        defer { work += cursor - first }
        var stack: [(closer: UInt8, line: Int, open: UInt8)] = []
        repeat {
            let tok = tokens[cursor]
            if tok.kind == .punct {
                if let c = Self.closers[tok.char] {
                    stack.append((c, tok.line, tok.char))
                } else if tok.char == 0x29 || tok.char == 0x5D || tok.char == 0x7D {
                    guard let top = stack.last, top.closer == tok.char else {
                        let open = stack.last.map { "'\(Character(Unicode.Scalar($0.open)))' opened at line \($0.line)" } ?? "nothing"
                        throw SwiftSyntaxError(line: tok.line,
                                               message: "unbalanced '\(Character(Unicode.Scalar(tok.char)))' (closes \(open))")
                    }
                    stack.removeLast()
                }
            }
            cursor += 1
        } while !stack.isEmpty && cursor < tokens.count
        if let top = stack.last {
            throw SwiftSyntaxError(line: top.line,
                                   message: "'\(Character(Unicode.Scalar(top.open)))' opened here is never closed")
        }
    }

    // MARK: bodies

    private static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "open", "package", "static", "class", "final", "lazy",
        "weak", "unowned", "override", "required", "convenience", "mutating", "nonmutating", "dynamic",
        "optional", "indirect", "nonisolated", "prefix", "postfix", "infix", "consuming", "borrowing",
        "distributed", "isolated", "__consuming", "unsafe",
    ]

    private static let declKeywords: Set<String> = [
        "struct", "class", "enum", "actor", "protocol", "extension", "var", "let", "case", "typealias", "func",
        "init", "deinit", "subscript", "operator", "precedencegroup", "associatedtype", "import", "macro",
    ]

    /// Parses declarations until the closing `}` (when `closeLine` is set) or the end of the file.
    private mutating func parseBody(scope: [String], typeIndex: Int?, closeLine: Int?) throws(SwiftSyntaxError) {
        var conditionalDepth = 0
        var openConditionals: [Int] = []  // lines of the `#if`s not yet closed in this body
        func checkConditionalsClosed(at end: String) throws(SwiftSyntaxError) {
            if let line = openConditionals.last {
                throw SwiftSyntaxError(line: line, message: "'#if' opened here has no '#endif' before \(end); add the missing '#endif'")
            }
        }
        while cursor < tokens.count {
            let tok = tokens[cursor]
            if tok.kind == .punct {
                switch tok.char {
                case 0x7D:  // }
                    guard closeLine != nil else {
                        throw SwiftSyntaxError(line: tok.line, message: "unbalanced '}' (no matching '{')")
                    }
                    try checkConditionalsClosed(at: "the '}' at line \(tok.line)")
                    cursor += 1
                    return
                case 0x29, 0x5D:
                    throw SwiftSyntaxError(line: tok.line, message: "unbalanced '\(Character(Unicode.Scalar(tok.char)))'")
                case 0x28, 0x5B, 0x7B:
                    try skipBalanced()
                    continue
                default:
                    cursor += 1
                    continue
                }
            }
            if tok.kind == .pound {
                switch tok.text {
                case "if":
                    conditionalDepth += 1
                    openConditionals.append(tok.line)
                    try skipDirectiveLine()
                case "elseif":
                    try skipDirectiveLine()
                case "else":
                    cursor += 1
                case "endif":
                    guard !openConditionals.isEmpty else {
                        throw SwiftSyntaxError(line: tok.line, message: "'#endif' without a matching '#if'; remove it or add the '#if'")
                    }
                    openConditionals.removeLast()
                    conditionalDepth = max(0, conditionalDepth - 1)
                    cursor += 1
                default:  // #warning(…), #sourceLocation(…), #Preview { … }, freestanding macros
                    cursor += 1
                    if isPunct("("), !tokens[cursor].spaceBefore { try skipBalanced() }
                    if isPunct("{") { try skipBalanced() }
                }
                continue
            }
            try parseDeclaration(scope: scope, typeIndex: typeIndex, conditional: conditionalDepth > 0)
        }
        try checkConditionalsClosed(at: "the end of the file")
        if let line = closeLine {
            throw SwiftSyntaxError(line: line, message: "'{' opened here is never closed")
        }
    }

    private mutating func skipDirectiveLine() throws(SwiftSyntaxError) {
        cursor += 1
        while cursor < tokens.count && !tokens[cursor].newlineBefore {
            if isPunct("(") { try skipBalanced() } else { cursor += 1 }
        }
    }

    private static let builtinAttributes: Set<String> = [
        "available", "objc", "objcMembers", "nonobjc", "MainActor", "discardableResult", "inlinable",
        "usableFromInline", "frozen", "preconcurrency", "Sendable", "unchecked", "escaping", "autoclosure",
        "IBOutlet", "IBInspectable", "IBAction", "IBSegueAction", "GKInspectable", "NSManaged", "NSCopying",
        "dynamicCallable", "dynamicMemberLookup", "propertyWrapper", "resultBuilder", "main", "testable",
        "backDeployed", "exclusivity", "warn_unqualified_access", "globalActor", "requires_stored_property_inits",
        "unknown", "retroactive", "storageRestrictions", "attached", "freestanding", "convention", "inline",
        "noDerivative", "differentiable", "derivative", "transpose", "unsafe", "safe", "lifetime",
    ]

    private mutating func parseDeclaration(scope: [String], typeIndex: Int?, conditional: Bool) throws(SwiftSyntaxError) {
        var customAttributes: [String] = []
        var isStatic = false
        var isLazy = false
        while cursor < tokens.count {
            let tok = tokens[cursor]
            if tok.kind == .attribute {
                cursor += 1
                if isPunct("("), !tokens[cursor].spaceBefore { try skipBalanced() }
                if !Self.builtinAttributes.contains(tok.text) && !tok.text.hasPrefix("_") {
                    customAttributes.append(tok.text)
                }
                continue
            }
            if tok.kind == .identifier, Self.modifiers.contains(tok.text) {
                if tok.text == "class", cursor + 1 < tokens.count, tokens[cursor + 1].kind == .identifier,
                   !Self.modifiers.contains(tokens[cursor + 1].text),
                   !["var", "let", "func", "subscript"].contains(tokens[cursor + 1].text) {
                    break  // `class Name`: a class declaration
                }
                if tok.text == "static" || tok.text == "class" { isStatic = true }
                if tok.text == "lazy" { isLazy = true }
                cursor += 1
                if isPunct("("), !tokens[cursor].spaceBefore { try skipBalanced() }  // private(set), unowned(safe)
                continue
            }
            break
        }
        guard cursor < tokens.count else { return }
        let tok = tokens[cursor]
        guard tok.kind == .identifier else {
            if tok.kind == .punct, [0x28, 0x5B, 0x7B].contains(tok.char) { try skipBalanced() }
            else if !(tok.kind == .punct && tok.char == 0x7D) { cursor += 1 }
            return
        }
        switch tok.text {
        case "struct", "class", "enum", "actor", "protocol", "extension":
            try parseTypeDecl(kind: SwiftDeclKind(rawValue: tok.text)!, scope: scope)
        case "var", "let":
            try parseVariable(isLet: tok.text == "let", isStatic: isStatic, isLazy: isLazy,
                              wrapper: customAttributes.first, conditional: conditional, typeIndex: typeIndex)
        case "case":
            if let idx = typeIndex, out.types[idx].kind == .enum {
                try parseEnumCase(conditional: conditional, typeIndex: idx)
            } else {
                try skipFunctionLike()
            }
        case "typealias":
            try parseTypealias(scope: scope)
        case "init":
            try parseInit(typeIndex: typeIndex)
        case "func":
            recordDecodeOverload(typeIndex: typeIndex)
            try skipFunctionLike()
        case "deinit", "subscript", "operator", "precedencegroup", "associatedtype", "import", "macro":
            try skipFunctionLike()
        default:
            try skipStatement()
        }
    }

    /// Top-level code or anything unknown: one token (or one bracketed group).
    private mutating func skipStatement() throws(SwiftSyntaxError) {
        if isPunct("(") || isPunct("[") || isPunct("{") { try skipBalanced() } else { cursor += 1 }
    }

    private static let continuationWords: Set<String> = ["where", "throws", "rethrows", "async", "reasync"]

    /// Skips a `func`/`init`/`subscript`… declaration: signature then an optional `{ body }`.
    private mutating func skipFunctionLike() throws(SwiftSyntaxError) {
        cursor += 1
        while cursor < tokens.count {
            let tok = tokens[cursor]
            if tok.kind == .punct {
                if tok.char == 0x7B { try skipBalanced(); return }
                if tok.char == 0x7D || tok.char == 0x3B { return }
            }
            if tok.newlineBefore {
                let continues = tok.kind == .arrow || (tok.kind == .identifier && Self.continuationWords.contains(tok.text))
                    || (tok.kind == .punct && (tok.char == 0x7B || tok.char == 0x2C || tok.char == 0x3A))
                if !continues { return }
                if tok.kind == .punct && tok.char == 0x7B { try skipBalanced(); return }
            }
            if tok.kind == .punct && (tok.char == 0x28 || tok.char == 0x5B) { try skipBalanced() } else { cursor += 1 }
        }
    }

    // MARK: types

    private mutating func parseTypeDecl(kind: SwiftDeclKind, scope: [String]) throws(SwiftSyntaxError) {
        let line = tokens[cursor].line
        cursor += 1
        var written: [String] = []
        if kind == .extension {
            written = try extendedTypePath(line: line)
        }
        while kind != .extension, cursor < tokens.count, tokens[cursor].kind == .identifier {
            written.append(tokens[cursor].text)
            cursor += 1
            if isPunct("."), cursor + 1 < tokens.count, tokens[cursor + 1].kind == .identifier { cursor += 1 } else { break }
        }
        guard !written.isEmpty else {
            throw SwiftSyntaxError(line: line, message: "'\(kind.rawValue)' without a type name")
        }
        var isGeneric = false
        if isPunct("<") {
            isGeneric = kind != .extension
            try skipAngles()
        }
        var inherited: [SwiftTypeSyntax] = []
        if isPunct(":") {
            cursor += 1
            while cursor < tokens.count {
                if let (type, _) = try parseType() { inherited.append(type) } else { cursor += 1 }
                if isPunct(",") { cursor += 1; continue }
                break
            }
        }
        // `where` clause or anything else up to the body.
        while cursor < tokens.count, !isPunct("{") {
            if isPunct("}") || isPunct(";") {
                throw SwiftSyntaxError(line: line, message: "\(kind.rawValue) '\(written.joined(separator: "."))' has no body '{'")
            }
            if isPunct("(") || isPunct("[") { try skipBalanced() } else { cursor += 1 }
        }
        guard cursor < tokens.count else {
            throw SwiftSyntaxError(line: line, message: "\(kind.rawValue) '\(written.joined(separator: "."))' has no body '{'")
        }
        let path = kind == .extension ? written : scope + written
        let index = out.types.count
        out.types.append(SwiftTypeDecl(kind: kind, path: path, file: file, line: line, inherited: inherited,
                                       isGeneric: isGeneric))
        let openLine = tokens[cursor].line
        guard declarationNesting < Self.maxDeclarationNesting else {
            throw SwiftSyntaxError(line: line, message: "type declarations nested deeper than \(Self.maxDeclarationNesting) levels (the reader's limit)",
                                   fix: "declare the inner types at the top level or in an extension")
        }
        cursor += 1
        declarationNesting += 1
        defer { declarationNesting -= 1 }
        try parseBody(scope: path, typeIndex: index, closeLine: openLine)
    }

    /// The extended type of `extension T …` in every spelling the grammar allows: `A.B`, `Swift.Array<P>`,
    /// `[T]` (Array), `[K: V]` (Dictionary), `T?` (Optional). Generic arguments name a constrained
    /// extension of the generic type itself, so only the type's path is kept.
    private mutating func extendedTypePath(line: Int) throws(SwiftSyntaxError) -> [String] {
        // `extension ([Player]) { … }`: a parenthesised type is the type itself (swiftc accepts it).
        if isPunct("(") {
            cursor += 1
            let inner = try extendedTypePath(line: line)
            guard isPunct(")") else {
                throw SwiftSyntaxError(line: line, message: "'extension (…)' names a tuple or is not closed; extend a nominal type")
            }
            cursor += 1
            return inner
        }
        guard let (type, _) = try parseType() else {
            throw SwiftSyntaxError(line: line, message: "'extension' without a type name")
        }
        switch type {
        case .named(let components):
            var names = components.map(\.name)
            if names.count > 1, ["Swift", "Foundation"].contains(names[0]),
               ["Array", "Dictionary", "Optional", "Set"].contains(names[1]) { names.removeFirst() }
            return names
        case .array: return ["Array"]
        case .dictionary: return ["Dictionary"]
        case .optional: return ["Optional"]
        case .other(let text):
            throw SwiftSyntaxError(line: line, message: "'extension \(text)' does not name a nominal type")
        }
    }

    /// At `<`: skips to the matching `>`.
    private mutating func skipAngles() throws(SwiftSyntaxError) {
        var depth = 0
        repeat {
            if isPunct("<") { depth += 1; cursor += 1 }
            else if isPunct(">") { depth -= 1; cursor += 1 }
            else if isPunct("(") || isPunct("[") { try skipBalanced() }
            else if isPunct("{") || isPunct("}") { return }
            else { cursor += 1 }
        } while depth > 0 && cursor < tokens.count
    }

    // MARK: type syntax

    private static let typeSpecifiers: Set<String> = ["inout", "borrowing", "consuming", "sending", "__owned", "__shared"]

    /// Parses a type at the cursor; nil (cursor unmoved) when no type starts here.
    private mutating func parseType() throws(SwiftSyntaxError) -> (SwiftTypeSyntax, String)? {
        typeNesting += 1
        defer { typeNesting -= 1 }
        try checkTypeNesting()
        try spend(1)
        let start = cursor
        while cursor < tokens.count {
            if tokens[cursor].kind == .attribute {
                cursor += 1
                if isPunct("("), !tokens[cursor].spaceBefore { try skipBalanced() }
            } else if tokens[cursor].kind == .identifier, Self.typeSpecifiers.contains(tokens[cursor].text) {
                cursor += 1
            } else { break }
        }
        guard cursor < tokens.count else { cursor = start; return nil }
        var type: SwiftTypeSyntax
        let tok = tokens[cursor]
        var opaque = false
        if tok.kind == .identifier && (tok.text == "some" || tok.text == "any"),
           cursor + 1 < tokens.count, tokens[cursor + 1].kind == .identifier || (tokens[cursor + 1].kind == .punct && tokens[cursor + 1].char == 0x28) {
            cursor += 1
            opaque = true
        }
        var height = 1
        if isPunct("[") {
            cursor += 1
            guard let (key, _) = try parseType() else { cursor = start; return nil }
            height = lastTypeHeight + 1
            if isPunct(":") {
                cursor += 1
                guard let (value, _) = try parseType() else { cursor = start; return nil }
                height = max(height, lastTypeHeight + 1)
                type = .dictionary(key, value)
            } else {
                type = .array(key)
            }
            guard isPunct("]") else { cursor = start; return nil }
            cursor += 1
        } else if isPunct("(") {
            try skipBalanced()
            type = .other("")
        } else if tokens[cursor].kind == .identifier {
            var components: [SwiftTypeSyntax.Component] = []
            var metatype = false
            while cursor < tokens.count, tokens[cursor].kind == .identifier {
                var component = SwiftTypeSyntax.Component(name: tokens[cursor].text, arguments: [])
                if !components.isEmpty && (component.name == "Type" || component.name == "Protocol") { metatype = true }
                cursor += 1
                if isPunct("<"), !tokens[cursor].spaceBefore {
                    cursor += 1
                    while cursor < tokens.count, !isPunct(">") {
                        // `<` never closed: the enclosing bracket or body is the caller's.
                        if isPunct("{") || isPunct("}") || isPunct("]") || isPunct(")") { break }
                        if let (arg, _) = try parseType() {
                            component.arguments.append(arg)
                            height = max(height, lastTypeHeight + 1)
                        } else { cursor += 1 }
                        if isPunct(",") { cursor += 1 }
                    }
                    if isPunct(">") { cursor += 1 }
                }
                components.append(component)
                if isPunct("."), !tokens[cursor].spaceBefore, cursor + 1 < tokens.count, tokens[cursor + 1].kind == .identifier { cursor += 1 } else { break }
            }
            type = metatype ? .other("") : .named(components)
        } else if tok.kind == .op, bytes[tok.start] == 0x7E {  // ~Copyable
            cursor += 1
            if try parseType() != nil { height = lastTypeHeight + 1 }
            type = .other("")
        } else {
            cursor = start
            return nil
        }
        // Suffixes.
        while cursor < tokens.count {
            if (isPunct("?") || isPunct("!")) && !tokens[cursor].spaceBefore {
                height += 1
                try checkTypeNesting(height: height)
                cursor += 1
                type = .optional(type)
            } else if isPunct("."), cursor + 2 < tokens.count, isPunct(".", at: cursor + 1), isPunct(".", at: cursor + 2) {
                cursor += 3  // variadic
            } else if isPunct("&") {
                cursor += 1
                if try parseType() != nil { height = max(height, lastTypeHeight + 1) }
                type = .other("")
            } else if tokens[cursor].kind == .arrow || isIdent("throws") || isIdent("async") {
                cursor += 1
                if tokens[cursor - 1].kind == .arrow, try parseType() != nil { height = max(height, lastTypeHeight + 1) }
                type = .other("")
            } else {
                break
            }
        }
        let text = source(start, cursor)
        if opaque { type = .other(text) }
        if case .other = type { type = .other(text) }
        try checkTypeNesting(height: height)
        lastTypeHeight = height
        return (type, text)
    }

    /// Throws when the type being read nests deeper than ``maxTypeNesting`` (recursion depth on entry, tree
    /// height once known).
    private func checkTypeNesting(height: Int = 0) throws(SwiftSyntaxError) {
        guard max(typeNesting, height) > Self.maxTypeNesting else { return }
        let line = cursor < tokens.count ? tokens[cursor].line : (tokens.last?.line ?? 1)
        throw SwiftSyntaxError(line: line, message: "type nested deeper than \(Self.maxTypeNesting) levels ([…], <…>, ?, &, ->; the reader's limit)",
                               fix: "simplify the type, or name its inner parts with their own types")
    }

    // MARK: variables

    private mutating func parseVariable(isLet: Bool, isStatic: Bool, isLazy: Bool, wrapper: String?,
                                        conditional: Bool, typeIndex: Int?) throws(SwiftSyntaxError) {
        cursor += 1
        var bindings: [SwiftPropertyDecl] = []
        while cursor < tokens.count {
            let line = tokens[cursor].line
            var name: String?
            if tokens[cursor].kind == .identifier {
                name = tokens[cursor].text
                cursor += 1
            } else if isPunct("(") {
                try skipBalanced()  // tuple pattern: not modelled
            } else {
                break
            }
            var type: SwiftTypeSyntax?
            var typeText = ""
            if isPunct(":") {
                cursor += 1
                if let (ty, text) = try parseType() { type = ty; typeText = text }
            }
            var hasInitializer = false
            if isPunct("=") {
                cursor += 1
                hasInitializer = true
                let exprStart = cursor
                try skipExpression()
                if type == nil, let (ty, text) = inferType(exprStart, cursor) { type = ty; typeText = text }
            }
            var isComputed = false
            if isPunct("{") {
                isComputed = !beginsObserverBlock(cursor)
                try skipBalanced()
            }
            if let name {
                bindings.append(SwiftPropertyDecl(
                    name: name, isLet: isLet, isStatic: isStatic, isLazy: isLazy, hasInitializer: hasInitializer,
                    isComputed: isComputed, type: type, typeText: typeText, wrapper: wrapper,
                    isConditional: conditional, line: line))
            }
            if isPunct(",") { cursor += 1; continue }
            break
        }
        // `var a, b: Int`: a binding without type or value takes the type of the next one that has one.
        var nextType: (SwiftTypeSyntax, String)?
        for k in bindings.indices.reversed() {
            if let ty = bindings[k].type { nextType = (ty, bindings[k].typeText) }
            else if !bindings[k].hasInitializer, let (ty, text) = nextType {
                bindings[k].type = ty
                bindings[k].typeText = text
            }
        }
        if let idx = typeIndex { out.types[idx].properties += bindings }
    }

    /// `{` at `k` starts a `willSet`/`didSet` block (the property stays stored).
    private func beginsObserverBlock(_ k: Int) -> Bool {
        var j = k + 1
        while j < tokens.count, tokens[j].kind == .attribute { j += 1 }
        return isIdent("willSet", at: j) || isIdent("didSet", at: j)
    }

    /// Skips an initializer expression up to `,` `;` `}` at depth 0, a `{ willSet/didSet }` block, or a line
    /// break that starts a new declaration.
    private mutating func skipExpression() throws(SwiftSyntaxError) {
        let start = cursor
        while cursor < tokens.count {
            let tok = tokens[cursor]
            if tok.kind == .punct {
                switch tok.char {
                case 0x2C, 0x3B, 0x7D, 0x29, 0x5D: return
                case 0x7B:
                    if beginsObserverBlock(cursor) { return }
                    if tok.newlineBefore, cursor > start, !continuesExpression(before: cursor) { return }
                    try skipBalanced()
                    continue
                default: break
                }
            }
            if tok.newlineBefore, cursor > start, !continuesExpression(before: cursor) { return }
            if tok.kind == .punct && (tok.char == 0x28 || tok.char == 0x5B) { try skipBalanced() } else { cursor += 1 }
        }
    }

    private static let continuingPunct: [UInt8] = Array(".?:&<>=".utf8)

    /// Whether the token at `k` (first on its line) continues the expression of the previous line.
    private func continuesExpression(before k: Int) -> Bool {
        let tok = tokens[k]
        if tok.kind == .op || tok.kind == .arrow { return true }
        if tok.kind == .punct, Self.continuingPunct.contains(tok.char) { return true }
        let prev = tokens[k - 1]
        if prev.kind == .op || prev.kind == .arrow { return true }
        if prev.kind == .punct, Self.continuingPunct.contains(prev.char) || prev.char == 0x28 || prev.char == 0x2C
            || prev.char == 0x5B { return true }
        if prev.kind == .identifier && ["try", "await", "in", "return", "else", "as", "is"].contains(prev.text) {
            return true
        }
        if tok.kind == .identifier && ["as", "is", "else"].contains(tok.text) { return true }
        return false
    }

    /// The type of a simple initializer: literals, `T(…)`, `T.init(…)`, `T(…)!`, `T.member`.
    private func inferType(_ from: Int, _ to: Int) -> (SwiftTypeSyntax, String)? {
        var k = from
        guard k < to else { return nil }
        if to - from == 2, tokens[k].kind == .op, bytes[tokens[k].start] == 0x2D, tokens[k + 1].kind == .number { k += 1 }
        if to - k == 1 {
            let tok = tokens[k]
            switch tok.kind {
            case .number:
                let s = tok.text.lowercased()
                let isHex = s.hasPrefix("0x")
                let floating = s.contains(".") || (!isHex && s.contains("e")) || (isHex && s.contains("p"))
                let name = floating ? "Double" : "Int"
                return (.named([.init(name: name, arguments: [])]), name)
            case .string:
                return (.named([.init(name: "String", arguments: [])]), "String")
            case .identifier where tok.text == "true" || tok.text == "false":
                return (.named([.init(name: "Bool", arguments: [])]), "Bool")
            default:
                return nil
            }
        }
        // Dotted path of identifiers, optionally called, optionally force-unwrapped.
        var names: [String] = []
        while k < to, tokens[k].kind == .identifier {
            names.append(tokens[k].text)
            k += 1
            if k < to, isPunct(".", at: k) { k += 1 } else { break }
        }
        var called = false
        if k < to, isPunct("(", at: k) {
            var depth = 0
            repeat {
                if isPunct("(", at: k) { depth += 1 } else if isPunct(")", at: k) { depth -= 1 }
                k += 1
            } while depth > 0 && k < to
            called = true
        }
        if k < to, isPunct("!", at: k) { k += 1 }
        guard k == to, !names.isEmpty else { return nil }
        if names.last == "init" { names.removeLast() }
        else if !called, names.count > 1, let last = names.last, let f = last.first, f.isLowercase { names.removeLast() }
        guard !names.isEmpty, names.allSatisfy({ $0.first?.isUppercase == true }) else { return nil }
        return (.named(names.map { .init(name: $0, arguments: []) }), names.joined(separator: "."))
    }

    // MARK: enum cases, typealiases, initializers

    private mutating func parseEnumCase(conditional: Bool, typeIndex: Int) throws(SwiftSyntaxError) {
        cursor += 1
        while cursor < tokens.count, tokens[cursor].kind == .identifier {
            let line = tokens[cursor].line
            var decl = SwiftEnumCaseDecl(name: tokens[cursor].text, raw: nil, associated: nil, isConditional: conditional, line: line)
            cursor += 1
            if isPunct("(") {
                let open = cursor
                cursor += 1
                var values: [(label: String?, type: SwiftTypeSyntax, text: String)] = []
                while cursor < tokens.count, !isPunct(")") {
                    var label: String?
                    if tokens[cursor].kind == .identifier, isPunct(":", at: cursor + 1) {
                        label = tokens[cursor].text == "_" ? nil : tokens[cursor].text
                        cursor += 2
                    } else if tokens[cursor].kind == .identifier, cursor + 2 < tokens.count, tokens[cursor + 1].kind == .identifier, isPunct(":", at: cursor + 2) {
                        label = tokens[cursor].text == "_" ? nil : tokens[cursor].text
                        cursor += 3
                    }
                    if let (ty, text) = try parseType() {
                        values.append((label, ty, text))
                    }
                    // default value or anything unexpected: skip to `,` or `)`
                    while cursor < tokens.count, !isPunct(","), !isPunct(")") {
                        if isPunct("(") || isPunct("[") || isPunct("{") { try skipBalanced() }
                        else if isPunct("}") { throw SwiftSyntaxError(line: tokens[open].line, message: "unbalanced '(' in enum case") }
                        else { cursor += 1 }
                    }
                    if isPunct(",") { cursor += 1 }
                }
                if isPunct(")") { cursor += 1 }
                decl.associated = values
            }
            if isPunct("=") {
                cursor += 1
                var negative = false
                if cursor < tokens.count, tokens[cursor].kind == .op, bytes[tokens[cursor].start] == 0x2D { negative = true; cursor += 1 }
                if cursor < tokens.count {
                    let tok = tokens[cursor]
                    if tok.kind == .number {
                        let digits = tok.text.replacingOccurrences(of: "_", with: "")
                        let isFloat = digits.contains(".") || (!digits.lowercased().hasPrefix("0x") && digits.lowercased().contains("e"))
                        let text = (negative ? "-" : "") + digits
                        decl.raw = isFloat ? .floating(text) : .integer(text)
                    } else if tok.kind == .string {
                        decl.raw = .string(stringLiteralValue(tok))
                    }
                    cursor += 1
                }
            }
            out.types[typeIndex].cases.append(decl)
            if isPunct(",") { cursor += 1; continue }
            break
        }
    }

    /// The value of a simple (non-interpolated) string literal token.
    private func stringLiteralValue(_ tok: SwiftToken) -> String {
        var s = tok.start
        var e = tok.end
        var pounds = 0
        while s < e, bytes[s] == 0x23 { s += 1; e -= 1; pounds += 1 }
        let quotes = (e - s >= 6 && bytes[s + 1] == 0x22 && bytes[s + 2] == 0x22) ? 3 : 1
        s += quotes
        e -= quotes
        guard s <= e else { return "" }
        var raw = Array(bytes[s..<e])
        if quotes == 3 {  // drop the line break after the opening and before the closing delimiter
            if raw.first == 0x0A { raw.removeFirst() }
            if let nl = raw.lastIndex(of: 0x0A) { raw.removeSubrange(nl...) }
        }
        guard pounds == 0 else { return String(decoding: raw, as: UTF8.self) }
        var result: [UInt8] = []
        var i = 0
        while i < raw.count {
            if raw[i] == 0x5C, i + 1 < raw.count {
                let c = raw[i + 1]
                i += 2
                switch c {
                case 0x6E: result.append(0x0A)
                case 0x74: result.append(0x09)
                case 0x72: result.append(0x0D)
                case 0x30: result.append(0x00)
                case 0x75:  // \u{…}
                    if i < raw.count, raw[i] == 0x7B, let close = raw[i...].firstIndex(of: 0x7D),
                       let v = UInt32(String(decoding: raw[(i + 1)..<close], as: UTF8.self), radix: 16),
                       let scalar = Unicode.Scalar(v) {
                        result += Array(String(Character(scalar)).utf8)
                        i = close + 1
                    }
                default: result.append(c)
                }
            } else {
                result.append(raw[i])
                i += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private mutating func parseTypealias(scope: [String]) throws(SwiftSyntaxError) {
        let line = tokens[cursor].line
        cursor += 1
        guard cursor < tokens.count, tokens[cursor].kind == .identifier else { return }
        let name = tokens[cursor].text
        cursor += 1
        var isGeneric = false
        if isPunct("<") { isGeneric = true; try skipAngles() }
        guard isPunct("=") else { return }
        cursor += 1
        if let (type, _) = try parseType() {
            out.typealiases.append(SwiftTypealiasDecl(path: scope + [name], target: type, isGeneric: isGeneric,
                                                      file: file, line: line))
        }
    }

    /// `extension KeyedDecodingContainer { func decode(_ type: X.Type, forKey key: Key) … }` (the `@DefaultValue`
    /// idiom): every `X` it overloads changes how `X`-typed properties decode; recorded with its location.
    private mutating func recordDecodeOverload(typeIndex: Int?) {
        guard let idx = typeIndex, out.types[idx].kind == .extension,
              ["KeyedDecodingContainer", "KeyedDecodingContainerProtocol"].contains(out.types[idx].path.last ?? ""),
              isIdent("decode", at: cursor + 1) || isIdent("decodeIfPresent", at: cursor + 1) else { return }
        var k = cursor + 2
        var depth = 0
        while k + 2 < tokens.count {
            if isPunct("(", at: k) { depth += 1 } else if isPunct(")", at: k) { depth -= 1; if depth == 0 { break } }
            if tokens[k].kind == .identifier, isPunct(".", at: k + 1), isIdent("Type", at: k + 2) {
                out.decodeOverloads[tokens[k].text] = SwiftSourceLocation(file: file, line: tokens[cursor].line)
            }
            k += 1
        }
    }

    private mutating func parseInit(typeIndex: Int?) throws(SwiftSyntaxError) {
        var k = cursor + 1
        while k < tokens.count, isPunct("?", at: k) || isPunct("!", at: k) { k += 1 }
        if isPunct("(", at: k), isIdent("from", at: k + 1) {
            // `init(from decoder: Decoder)` or `init(from: Decoder)`
            var j = k + 2
            if tokens.indices.contains(j), tokens[j].kind == .identifier { j += 1 }
            if isPunct(":", at: j) {
                var m = j + 1
                while m < tokens.count, !isPunct(")", at: m), !isPunct(",", at: m) {
                    if tokens[m].kind == .identifier, tokens[m].text == "Decoder" { if let idx = typeIndex { out.types[idx].hasDecoderInit = true } }
                    m += 1
                }
            }
        }
        let start = cursor
        try skipFunctionLike()
        if let idx = typeIndex, out.types[idx].hasDecoderInit, out.types[idx].singleValueDecoding == nil {
            switch singleValueDecoding(in: start, cursor) {
            case .decoding(let reading): out.types[idx].singleValueDecoding = reading
            case .unmodelled(let why): out.types[idx].customDecoderNote = why
            case .notSingleValue: break
            }
        }
    }

    /// Reads an `init(from:)` body (tokens `from..<to`) for the single-value shape: `singleValueContainer()`, no
    /// keyed or unkeyed container, and every `decode(T.self)` of one type `T`. Only shapes whose meaning is certain
    /// are modelled: the decoded value stored as it is, handed to `Date(timeIntervalSince1970:)` /
    /// `Date(timeIntervalSinceReferenceDate:)` unchanged, divided by exactly `1000` (`/ 1000`, `/ 1000.0`, `/ 1e3`,
    /// `* 0.001`: UNIX milliseconds), or an ISO 8601 formatter's `date(from:)` with a `guard … else { throw … }`.
    /// Anything else — other arithmetic, `??` or `try?` fallbacks, `if`/`switch`, conversions of a non-integer —
    /// is `.unmodelled(reason)`, never guessed.
    private func singleValueDecoding(in from: Int, _ to: Int) -> SingleValueReading {
        var single = false
        var decoded: [String] = []
        var decodedType: SwiftTypeSyntax?
        var identifiers: Set<String> = []
        var divisions: [String] = []
        var calls: [String] = []
        var k = from
        while k < to {
            let tok = tokens[k]
            if tok.kind == .identifier, tok.text == "throw" {
                // `throw DecodingError.dataCorrupted(…)`: the error's own construction is not decoding.
                k += 1
                while k < to, tokens[k].kind == .identifier || isPunct(".", at: k) { k += 1 }
                if k < to, isPunct("(", at: k) {
                    var depth = 0
                    repeat {
                        if isPunct("(", at: k) { depth += 1 } else if isPunct(")", at: k) { depth -= 1 }
                        k += 1
                    } while k < to && depth > 0
                }
                continue
            }
            if tok.kind == .identifier {
                identifiers.insert(tok.text)
                if isPunct("(", at: k + 1), !isIdent("init", at: k) || isPunct(".", at: k - 1) { calls.append(tok.text) }
                if tok.text == "singleValueContainer" { single = true }
                if tok.text == "try", isPunct("?", at: k + 1) || isPunct("!", at: k + 1) {
                    return .unmodelled("`try\(isPunct("?", at: k + 1) ? "?" : "!")` turns a decoding failure into a fallback")
                }
                if ["if", "switch", "catch", "do", "while", "for", "return"].contains(tok.text) {
                    return .unmodelled("the body branches or returns (`\(tok.text)`)")
                }
                if tok.text == "decode", isPunct("(", at: k + 1), k + 2 < to {
                    // decode(Type.self): the tokens up to `.self`
                    var j = k + 2
                    var names: [String] = []
                    while j < to, tokens[j].kind == .identifier, tokens[j].text != "self" {
                        names.append(tokens[j].text)
                        j += 1
                        if isPunct(".", at: j) { j += 1 } else { break }
                    }
                    if isIdent("self", at: j), !names.isEmpty {
                        decoded.append(names.joined(separator: "."))
                        decodedType = .named(names.map { .init(name: $0, arguments: []) })
                    } else {
                        return .notSingleValue  // decode([T].self), decode(T<U>.self)…: not the simple shape
                    }
                }
            } else if isPunct("?", at: k), isPunct("?", at: k + 1) {
                return .unmodelled("`??` substitutes a fallback value")
            } else if tok.kind == .op || tok.kind == .punct,
                      case let op = String(decoding: bytes[tok.start..<tok.end], as: UTF8.self),
                      ["+", "-", "*", "/", "%", "??", "<<", ">>", "&", "|", "^", "~", "+=", "-=", "*=", "/=", "&+", "&*", "&-"].contains(op) {
                if op == "??" { return .unmodelled("`??` substitutes a fallback value") }
                let operand = k + 1 < to && tokens[k + 1].kind == .number ? tokens[k + 1].text.replacingOccurrences(of: "_", with: "") : ""
                if op == "/", ["1000", "1000.0", "1e3", "1E3", "1_000"].contains(operand) {
                    divisions.append("/")
                } else if op == "*", ["0.001", "1e-3", "1E-3"].contains(operand) {
                    divisions.append("*")
                } else {
                    return .unmodelled("the decoded value goes through arithmetic (`\(op)\(operand.isEmpty ? "" : " " + operand)`)")
                }
            }
            k += 1
        }
        guard single, !identifiers.contains("unkeyedContainer"), !identifiers.contains("nestedContainer"),
              !identifiers.contains("keyedBy"), let decodedType, Set(decoded).count == 1 else { return .notSingleValue }
        let integerTypes: Set<String> = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
        let decodedName = decoded[0].split(separator: ".").last.map(String.init) ?? ""
        // Conversions: only an integer widened to a floating type (exact below 2^53) is understood.
        for name in ["Double", "Float", "TimeInterval", "CGFloat", "Int", "Int64", "Int32", "String", "Decimal", "UInt64", "NSNumber"] where identifiers.contains(name) && name != decodedName {
            var at = from
            while at < to {
                if isIdent(name, at: at), isPunct("(", at: at + 1), !isPunct(".", at: at - 1) {
                    guard ["Double", "TimeInterval"].contains(name), integerTypes.contains(decodedName) else {
                        return .unmodelled("the decoded \(decodedName) is converted with `\(name)(…)`")
                    }
                }
                at += 1
            }
        }
        if divisions.count > 1 { return .unmodelled("the decoded value is scaled more than once") }
        // Calls other than the container's and the Date / ISO 8601 formatter's own change or check the value.
        let iso = identifiers.contains("ISO8601DateFormatter")
        var allowedCalls: Set<String> = ["decode", "singleValueContainer", "Date", "Double", "TimeInterval", "init"]
        if iso { allowedCalls.formUnion(["ISO8601DateFormatter", "date"]) }
        if let call = calls.first(where: { !allowedCalls.contains($0) }) {
            return .unmodelled("the body calls `\(call)(…)`")
        }
        if identifiers.contains("guard"), !iso { return .unmodelled("a `guard` narrows what decodes") }
        var encoding: DateEncoding?
        if identifiers.contains("timeIntervalSince1970") {
            encoding = divisions.isEmpty ? .unixSeconds : .unixMilliseconds
        } else if identifiers.contains("timeIntervalSinceReferenceDate") {
            guard divisions.isEmpty else { return .unmodelled("milliseconds since 2001 are not modelled") }
            encoding = .referenceSeconds
        } else if identifiers.contains("ISO8601DateFormatter") || identifiers.contains("iso8601") {
            guard divisions.isEmpty else { return .unmodelled("an ISO 8601 string cannot be divided") }
            encoding = .iso8601
        } else if !divisions.isEmpty {
            return .unmodelled("the decoded value is scaled (÷ 1000) into something that is not a Date")
        } else if identifiers.contains("Date") {
            return .unmodelled("a Date is built in a way that is not modelled")
        }
        var reading = SingleValueDecoding(decoded: decodedType, dateEncoding: encoding)
        if encoding == .iso8601 {
            // Options other than the default `.withInternetDateTime` (± fractional seconds) are not modelled.
            let known: Set<String> = ["withInternetDateTime", "withFractionalSeconds"]
            let options = identifiers.filter { $0.hasPrefix("with") && $0.count > 4 && $0.dropFirst(4).first?.isUppercase == true }
            if let other = options.subtracting(known).sorted().first {
                return .unmodelled("ISO8601DateFormatter option .\(other) is not modelled")
            }
            if identifiers.contains("iso8601"), !identifiers.contains("ISO8601DateFormatter") {
                return .unmodelled("a `.iso8601` format style or strategy is not modelled")
            }
            reading.fractionalSeconds = options.contains("withFractionalSeconds")
        }
        return .decoding(reading)
    }
}
