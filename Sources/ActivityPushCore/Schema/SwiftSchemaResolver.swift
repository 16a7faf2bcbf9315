/// Resolves parsed declarations into the `ValueShape`s synthesized `Decodable` expects, following Swift's
/// name lookup (nested scopes outward, then top level), extensions, typealiases and `CodingKeys`.
/// Anything it cannot model exactly becomes `.unresolved` with a reason; nothing is guessed.
struct SwiftSchemaResolver {
    private enum Entity {
        case type(Int)
        case alias(Int)
    }

    private let decls: SwiftDeclarations
    /// Shapes the team declared in `activity-push.units` (by qualified type name or `Type.property`).
    private let units: UnitDeclarations
    /// Qualified path → index of the primary (non-extension) declaration; the first one wins.
    private var types: [String: Int] = [:]
    private var extensions: [String: [Int]] = [:]
    private var aliases: [String: Int] = [:]
    /// Resolved types with the height of their shape (levels below the type itself).
    private var memo: [String: (shape: ValueShape, height: Int)] = [:]
    private var resolving: Set<String> = []
    /// Nesting of the shape being built, and the deepest level reached while building the current type.
    private var depth = 0
    private var deepest = 0

    /// Deepest shape the resolver builds (`[[…]]`, a chain of types each holding the next, optionals…):
    /// deeper levels become `.unresolved`, so nothing downstream (validator, schema JSON read back by
    /// `check --schema`) recurses without bound.
    static let maxShapeDepth = 48

    init(_ decls: SwiftDeclarations, units: UnitDeclarations = UnitDeclarations()) {
        self.decls = decls
        self.units = units
        for (i, d) in decls.types.enumerated() {
            let key = d.qualifiedName
            if d.kind == .extension {
                extensions[key, default: []].append(i)
            } else if types[key] == nil {
                types[key] = i
            }
        }
        for (i, a) in decls.typealiases.enumerated() where aliases[a.path.joined(separator: ".")] == nil {
            aliases[a.path.joined(separator: ".")] = i
        }
        // Extensions may name a typealias (`extension Alias { … }`): file them under the real type too.
        for (key, list) in extensions where types[key] == nil {
            if let path = canonicalPath(key.split(separator: ".").map(String.init), scope: []), path != key {
                extensions[path, default: []] += list
            }
        }
        // Types nested in an extension of an alias (`extension Match.ContentState { enum CodingKeys … }` with
        // `typealias ContentState = MatchState`) are members of the real type too: `MatchState.CodingKeys`.
        let nested = decls.types.indices.filter { decls.types[$0].kind != .extension && decls.types[$0].path.count > 1 }
            .sorted { decls.types[$0].path.count < decls.types[$1].path.count }
        for typeIndex in nested {
            let path = decls.types[typeIndex].path
            let parent = path.dropLast().joined(separator: ".")
            guard types[parent] == nil, let real = canonicalPath(Array(path.dropLast()), scope: []), real != parent else { continue }
            let key = real + "." + path[path.count - 1]
            if types[key] == nil { types[key] = typeIndex }
        }
    }

    // MARK: ActivityAttributes types

    /// Every type conforming to `ActivityAttributes` (directly, via an extension, or via a protocol in the
    /// files that refines it), in declaration order.
    mutating func activityAttributesTypes() -> [ActivityAttributesType] {
        var protocols: Set<String> = ["ActivityAttributes"]
        var changed = true
        while changed {  // protocols that refine ActivityAttributes, transitively
            changed = false
            for declaration in decls.types where declaration.kind == .protocol && !protocols.contains(declaration.name) {
                if declaration.inherited.contains(where: { conformsName($0, protocols) }) {
                    protocols.insert(declaration.name)
                    changed = true
                }
            }
        }
        var seen: Set<String> = []
        var found: [(order: Int, path: String)] = []
        for (i, d) in decls.types.enumerated() where d.kind != .protocol {
            guard d.inherited.contains(where: { conformsName($0, protocols) }) else { continue }
            var key = d.qualifiedName
            if d.kind == .extension, types[key] == nil,
               let path = canonicalPath(d.path, scope: []) { key = path }
            guard seen.insert(key).inserted else { continue }
            found.append((types[key] ?? i, key))
        }
        found.sort { $0.order < $1.order }
        return found.map { activityType(path: $0.path, fallback: $0.order) }
    }

    private func conformsName(_ type: SwiftTypeSyntax, _ protocols: Set<String>) -> Bool {
        guard case .named(let components) = type, let last = components.last else { return false }
        if components.count > 2 || (components.count == 2 && components[0].name != "ActivityKit") { return false }
        return protocols.contains(last.name)
    }

    private mutating func activityType(path key: String, fallback: Int) -> ActivityAttributesType {
        let components = key.split(separator: ".").map(String.init)
        let name = components.last ?? key
        guard let index = types[key] else {
            let declaration = decls.types[fallback]
            let reason = "\(name) is extended here but declared in none of the files read; pass the file that declares it"
            return ActivityAttributesType(
                name: name, location: SwiftSourceLocation(file: declaration.file, line: declaration.line),
                attributes: .unresolved(typeName: name, reason: reason),
                contentState: .unresolved(typeName: name + ".ContentState", reason: reason))
        }
        let decl = decls.types[index]
        let attributes = shape(ofEntity: .type(index))
        let contentState: ValueShape
        if let entity = member("ContentState", of: components) {
            contentState = shape(ofEntity: entity)
        } else {
            contentState = .unresolved(
                typeName: name + ".ContentState",
                reason: "no ContentState is declared in \(name) or its extensions in the files read; pass the file that declares it")
        }
        return ActivityAttributesType(name: name, location: SwiftSourceLocation(file: decl.file, line: decl.line),
                                      attributes: attributes, contentState: contentState)
    }

    /// Declarations in `activity-push.units` that name no declared type, nor a property of one.
    func unknownUnitNames() -> [UnitDeclarations.Entry] {
        units.entries.values.filter { entry in
            if types[entry.name] != nil || aliases[entry.name] != nil { return false }
            guard let dot = entry.name.lastIndex(of: ".") else { return true }
            let owner = String(entry.name[..<dot])
            let property = String(entry.name[entry.name.index(after: dot)...])
            guard let typeIndex = types[owner] else { return true }
            let all = [decls.types[typeIndex]] + (extensions[owner] ?? []).map { decls.types[$0] }
            return !all.contains(where: { $0.properties.contains(where: { $0.name == property }) })
        }.sorted { $0.location.description < $1.location.description }
    }

    // MARK: lookup

    private func entity(at path: [String]) -> Entity? {
        entity(key: path.joined(separator: "."))
    }

    private func entity(key: String) -> Entity? {
        if let i = types[key] { return .type(i) }
        if let i = aliases[key] { return .alias(i) }
        return nil
    }

    /// A member type `name` of the type at `path` (declared in it or in an extension of it).
    private func member(_ name: String, of path: [String]) -> Entity? {
        entity(key: path.isEmpty ? name : path.joined(separator: ".") + "." + name)
    }

    /// Resolves `A.B.C` written inside `scope` to a declared entity: the first component by lookup from the
    /// innermost scope outward, the rest as members.
    private func lookup(_ names: [String], scope: [String]) -> Entity? {
        guard let first = names.first else { return nil }
        var prefixes = [""]
        prefixes.reserveCapacity(scope.count + 1)
        for s in scope { prefixes.append(prefixes.count == 1 ? s : prefixes[prefixes.count - 1] + "." + s) }
        var key: String?
        for depth in stride(from: scope.count, through: 0, by: -1) {
            let candidate = depth == 0 ? first : prefixes[depth] + "." + first
            if types[candidate] != nil || aliases[candidate] != nil { key = candidate; break }
        }
        guard var path = key else { return nil }
        for name in names.dropFirst() {
            if case .alias(let aliasIndex)? = entity(key: path) {  // member of an alias: go through to the real type
                let alias = decls.typealiases[aliasIndex]
                guard case .named(let comps) = alias.target,
                      let real = canonicalPath(comps.map(\.name), scope: Array(alias.path.dropLast())) else { return nil }
                path = real
            }
            path += "." + name
            if entity(key: path) == nil { return nil }
        }
        return entity(key: path)
    }

    /// The qualified path of the declared type that `names` denotes from `scope` (through typealiases).
    private func canonicalPath(_ names: [String], scope: [String], depth: Int = 0) -> String? {
        guard depth < 16, let resolved = lookup(names, scope: scope) else { return nil }
        switch resolved {
        case .type(let typeIndex):
            return decls.types[typeIndex].qualifiedName
        case .alias(let aliasIndex):
            let alias = decls.typealiases[aliasIndex]
            guard case .named(let comps) = alias.target else { return nil }
            return canonicalPath(comps.map(\.name), scope: Array(alias.path.dropLast()), depth: depth + 1)
        }
    }

    // MARK: shapes

    private static let floatingNames: Set<String> = [
        "Double", "Float", "Float16", "Float32", "Float64", "Float80", "CGFloat", "TimeInterval", "Decimal",
        "CFTimeInterval",
    ]
    private static let moduleNames: Set<String> = ["Swift", "Foundation", "CoreGraphics", "CoreFoundation"]

    /// The shape of a type written inside the declaration at `scope`.
    mutating func shape(of syntax: SwiftTypeSyntax, scope: [String]) -> ValueShape {
        guard depth < Self.maxShapeDepth else {
            return .unresolved(typeName: Self.describe(syntax), reason: "nested deeper than \(Self.maxShapeDepth) levels (types holding types); not modelled")
        }
        depth += 1
        deepest = max(deepest, depth)
        defer { depth -= 1 }
        switch syntax {
        case .optional(let inner):
            return .optional(shape(of: inner, scope: scope))
        case .array(let element):
            return .array(shape(of: element, scope: scope))
        case .dictionary(let key, let value):
            return dictionaryShape(key: key, value: value, scope: scope)
        case .other(let text):
            return .unresolved(typeName: text, reason: "\(text) is not decodable as written (tuple, function or existential type)")
        case .named(let components):
            let names = components.map(\.name)
            if let resolved = lookup(names, scope: scope) {
                if components.contains(where: { !$0.arguments.isEmpty }) {
                    return .unresolved(typeName: Self.describe(syntax), reason: "generic types are not modelled")
                }
                return shape(ofEntity: resolved)
            }
            return builtinShape(components, syntax: syntax, scope: scope)
        }
    }

    private mutating func builtinShape(_ components: [SwiftTypeSyntax.Component], syntax: SwiftTypeSyntax,
                                       scope: [String]) -> ValueShape {
        var comps = components
        if comps.count == 2, Self.moduleNames.contains(comps[0].name) { comps.removeFirst() }
        let text = Self.describe(syntax)
        guard comps.count == 1 else {
            return .unresolved(typeName: text, reason: "\(text) is declared in none of the files read (another module?); pass the file that declares it")
        }
        let component = comps[0]
        let args = component.arguments
        switch (component.name, args.count) {
        case ("Optional", 1): return .optional(shape(of: args[0], scope: scope))
        case ("Array", 1), ("ContiguousArray", 1): return .array(shape(of: args[0], scope: scope))
        case ("Set", 1): return .set(shape(of: args[0], scope: scope))
        case ("Dictionary", 2): return dictionaryShape(key: args[0], value: args[1], scope: scope)
        case (_, 0): break
        default: return .unresolved(typeName: text, reason: "generic types are not modelled")
        }
        switch component.name {
        case "Bool": return .bool
        case "String", "Substring": return .string
        case "Character":
            // Not Decodable in the standard library: an app that decodes one declares its own conformance.
            return .unresolved(typeName: text, reason: "Character is not Codable in the standard library; the app's own conformance (init(from:)) is not modelled")
        case "Date": return .date
        case "URL": return .url
        case "UUID": return .uuid
        case "Data": return .data
        default: break
        }
        if let kind = IntegerKind.all[component.name] { return .integer(kind) }
        if Self.floatingNames.contains(component.name) { return .floating(name: component.name) }
        return .unresolved(typeName: text, reason: "\(text) is declared in none of the files read (another module?); pass the file that declares it")
    }

    private mutating func dictionaryShape(key: SwiftTypeSyntax, value: SwiftTypeSyntax, scope: [String]) -> ValueShape {
        let keyShape = shape(of: key, scope: scope)
        var keyedByObject = false
        switch keyShape {
        case .string, .integer:
            // String / Int themselves (or aliases of them); an app type that decodes as one (custom init(from:))
            // is a JSON object key only when it adopts CodingKeyRepresentable.
            if case .named(let comps) = key, let path = canonicalPath(comps.map(\.name), scope: scope), let typeIndex = types[path] {
                let inherits = decls.types[typeIndex].inherited + (extensions[path] ?? []).flatMap { decls.types[$0].inherited }
                keyedByObject = inherits.contains { Self.describe($0).hasSuffix("CodingKeyRepresentable") }
            } else {
                keyedByObject = true
            }
        case .enumeration:
            // Enums are object keys only when they adopt CodingKeyRepresentable; else a flat array.
            if case .named(let comps) = key, let path = canonicalPath(comps.map(\.name), scope: scope),
               let typeIndex = types[path] {
                let inherits = decls.types[typeIndex].inherited + (extensions[path] ?? []).flatMap { decls.types[$0].inherited }
                keyedByObject = inherits.contains { Self.describe($0).hasSuffix("CodingKeyRepresentable") }
            }
        default: break
        }
        let text = "[\(Self.describe(key)): \(Self.describe(value))]"
        guard keyedByObject else {
            return .unresolved(typeName: text, reason: "a dictionary keyed by \(Self.describe(key)) decodes from a flat array [key, value, …], which is not modelled")
        }
        return .dictionary(key: keyShape, value: shape(of: value, scope: scope))
    }

    private mutating func shape(ofEntity entity: Entity) -> ValueShape {
        switch entity {
        case .alias(let aliasIndex):
            let alias = decls.typealiases[aliasIndex]
            let key = "typealias " + alias.path.joined(separator: ".")
            let name = alias.path.joined(separator: ".")
            if alias.isGeneric { return .unresolved(typeName: name, reason: "generic typealias is not modelled") }
            if resolving.contains(key) { return .unresolved(typeName: name, reason: "typealias refers to itself") }
            resolving.insert(key)
            defer { resolving.remove(key) }
            return shape(of: alias.target, scope: Array(alias.path.dropLast()))
        case .type(let typeIndex):
            let decl = decls.types[typeIndex]
            let key = decl.qualifiedName
            if let memoized = memo[key] {
                guard depth + memoized.height <= Self.maxShapeDepth else {
                    return .unresolved(typeName: key, reason: "nested deeper than \(Self.maxShapeDepth) levels (types holding types); not modelled")
                }
                deepest = max(deepest, depth + memoized.height)
                return memoized.shape
            }
            if resolving.contains(key) {
                return .unresolved(typeName: key, reason: "\(key) contains itself (recursive type); not modelled")
            }
            resolving.insert(key)
            let outerDeepest = deepest
            deepest = depth
            let result = typeShape(decl)
            let height = deepest - depth
            deepest = max(outerDeepest, deepest)
            resolving.remove(key)
            memo[key] = (result, height)
            return result
        }
    }

    private mutating func typeShape(_ decl: SwiftTypeDecl) -> ValueShape {
        let name = decl.qualifiedName
        let exts = (extensions[name] ?? []).map { decls.types[$0] }
        let location = SwiftSourceLocation(file: decl.file, line: decl.line)
        let declared = units[name]
        if let shape = declared?.shape.valueShape { return shape }
        if decl.isGeneric { return .unresolved(typeName: name, reason: "generic type \(name) is not modelled") }
        if declared?.shape != .keyed, let custom = ([decl] + exts).first(where: \.hasDecoderInit) {
            if let single = custom.singleValueDecoding {
                if let encoding = single.dateEncoding {
                    var decoding = CustomDateDecoding(fractionalSeconds: single.fractionalSeconds)
                    if case .integer(let kind) = self.shape(of: single.decoded, scope: decl.path) { decoding.integer = kind }
                    return encoding == .referenceSeconds && decoding.integer == nil ? .date : .customDate(encoding, decoding)
                }
                let shape = self.shape(of: single.decoded, scope: decl.path)
                if case .unresolved = shape {} else { return shape }
            }
            let note = custom.customDecoderNote.map { " (\($0))" } ?? ""
            return .unresolved(typeName: name, reason: "\(name) has a custom init(from:) (\(custom.file):\(custom.line))\(note); its decoding is not modelled — declare its shape in \(UnitDeclarations.fileName) next to the Swift source (e.g. `\(name) unix-seconds`, or `\(name) keyed`)")
        }
        switch decl.kind {
        case .protocol:
            return .unresolved(typeName: name, reason: "\(name) is a protocol; the concrete type is not known")
        case .actor:
            return .unresolved(typeName: name, reason: "\(name) is an actor; not modelled")
        case .class:
            if let first = decl.inherited.first, case .named(let comps) = first,
               let path = canonicalPath(comps.map(\.name), scope: Array(decl.path.dropLast())),
               let i = types[path], decls.types[i].kind == .class {
                return .unresolved(typeName: name, reason: "\(name) subclasses \(path); inherited decoding is not modelled")
            }
            return structShape(decl, location: location, extensions: exts)
        case .struct:
            return structShape(decl, location: location, extensions: exts)
        case .enum:
            return enumShape(decl, location: location)
        case .extension:
            return .unresolved(typeName: name, reason: "not modelled")
        }
    }

    /// The shape of a property wrapper type declared in the files, when it resolves.
    private mutating func wrapperShape(_ wrapper: String, scope: [String]) -> ValueShape? {
        guard let entity = lookup([wrapper], scope: scope) else { return nil }
        let wrapped = shape(ofEntity: entity)
        if case .unresolved = wrapped { return nil }
        return wrapped
    }

    /// The `CodingKeys` enum of the type at `path`: Swift name → JSON key. nil when there is none.
    private enum CodingKeysLookup {
        case none
        case keys([String: String])
        case unsupported(ValueShape)
    }

    /// The renamed associated values of enum case `name` (`<Case>CodingKeys` with `String` raw values, the case's
    /// first letter capitalised): Swift label → JSON key. Empty when there is no such enum.
    private func caseCodingKeys(of path: [String], case name: String) -> [String: String] {
        guard let first = name.first else { return [:] }
        let keysName = first.uppercased() + name.dropFirst() + "CodingKeys"
        guard case .type(let typeIndex)? = member(keysName, of: path), decls.types[typeIndex].kind == .enum else { return [:] }
        let keys = decls.types[typeIndex]
        guard keys.inherited.contains(where: { Self.describe($0) == "String" || Self.describe($0) == "Swift.String" }) else { return [:] }
        var renamed: [String: String] = [:]
        for c in keys.cases { if case .string(let s)? = c.raw { renamed[c.name] = s } }
        return renamed
    }

    private func codingKeys(of path: [String]) -> CodingKeysLookup {
        guard let codingKeysEntity = member("CodingKeys", of: path) else { return .none }
        guard case .type(let typeIndex) = codingKeysEntity, decls.types[typeIndex].kind == .enum else {
            return .unsupported(.unresolved(typeName: path.joined(separator: "."),
                                        reason: "CodingKeys is not an enum; custom coding keys are not modelled"))
        }
        let ck = decls.types[typeIndex]
        let stringRaw = ck.inherited.contains { Self.describe($0) == "String" || Self.describe($0) == "Swift.String" }
        var keys: [String: String] = [:]
        for codingKey in ck.cases {
            if stringRaw, case .string(let s)? = codingKey.raw { keys[codingKey.name] = s } else { keys[codingKey.name] = codingKey.name }
        }
        return .keys(keys)
    }

    private mutating func structShape(_ decl: SwiftTypeDecl, location: SwiftSourceLocation,
                                      extensions: [SwiftTypeDecl]) -> ValueShape {
        var keys: [String: String]?
        switch codingKeys(of: decl.path) {
        case .unsupported(let unresolved): return unresolved
        case .keys(let k): keys = k
        case .none: keys = nil
        }
        var properties: [StoredProperty] = []
        var conditional: [String] = []
        // Synthesized init(from:) opens a keyed container only when there is a coding key: with no stored
        // instance property (a `let` with a value counts) or an empty CodingKeys, any JSON value decodes.
        let storesNothing = keys.map { $0.isEmpty }
            ?? !decl.properties.contains(where: { !$0.isStatic && !$0.isComputed })
        for prop in decl.properties where !prop.isStatic && !prop.isComputed && !prop.isLazy {
            if prop.isLet && prop.hasInitializer { continue }  // not decoded
            var key = prop.name
            if let keys {
                guard let jsonKey = keys[prop.name] else { continue }  // left out of CodingKeys: not decoded
                key = jsonKey
            }
            if prop.isConditional {
                conditional.append(key)
                continue
            }
            var shape: ValueShape
            let decodedName: String? = prop.wrapper ?? { if case .named(let comps)? = prop.type { return comps.last?.name }; return nil }()
            if units[decl.qualifiedName + "." + prop.name] == nil, let decodedName, let overload = decls.decodeOverloads[decodedName] {
                // `KeyedDecodingContainer.decode(_: X.Type, forKey:)` replaces the synthesized read of this key
                // (often a default when absent): what it accepts is the overload's code, not modelled.
                properties.append(StoredProperty(name: prop.name, key: key,
                                                 shape: .optional(.unresolved(typeName: decodedName, reason: "\(overload) overloads KeyedDecodingContainer.decode(_: \(decodedName).Type, forKey:), which changes how '\(prop.name)' decodes (a default when absent?); not modelled — declare it in \(UnitDeclarations.fileName) (e.g. `\(decl.qualifiedName).\(prop.name) integer`)")),
                                                 typeName: prop.typeText, location: SwiftSourceLocation(file: decl.file, line: prop.line)))
                continue
            }
            if let declared = units[decl.qualifiedName + "." + prop.name]?.shape.valueShape {
                shape = declared
                if case .optional? = prop.type { shape = .optional(declared) }
            } else if let wrapper = prop.wrapper {
                // A wrapper declared in the files decodes as its own type (custom init(from:) or {"wrappedValue": …}).
                if let wrapped = wrapperShape(wrapper, scope: decl.path) {
                    shape = wrapped
                } else {
                    shape = .unresolved(typeName: "@\(wrapper) \(prop.typeText)",
                                        reason: "property wrapper @\(wrapper): the wrapper's own Codable form is not modelled — declare it in \(UnitDeclarations.fileName) (e.g. `\(wrapper) unix-seconds`)")
                }
            } else if let type = prop.type {
                shape = self.shape(of: type, scope: decl.path)
            } else {
                shape = .unresolved(typeName: prop.name,
                                    reason: "the type of '\(prop.name)' is not written and cannot be read from its initial value")
            }
            properties.append(StoredProperty(name: prop.name, key: key, shape: shape,
                                             typeName: prop.typeText.isEmpty ? "?" : prop.typeText,
                                             location: SwiftSourceLocation(file: decl.file, line: prop.line)))
        }
        return .object(StructShape(name: decl.qualifiedName, location: location, properties: properties,
                                   conditionalKeys: conditional, decodesFromAnyValue: storesNothing))
    }

    private mutating func enumShape(_ decl: SwiftTypeDecl, location: SwiftSourceLocation) -> ValueShape {
        let name = decl.qualifiedName
        var rawType: EnumShape.RawType?
        var rawTypeName: String?
        if let first = decl.inherited.first {
            switch shape(of: first, scope: Array(decl.path.dropLast())) {
            // The standard library decodes a raw-value enum from its raw value only for String, Bool, the integer
            // types, Float and Double (`RawRepresentable where RawValue == …`); a Character, Float16, Float80,
            // CGFloat or Decimal raw type gets the synthesized keyed form ({"case": {}}), checked with swiftc.
            case .string: rawType = .string
            case .integer(let kind): rawType = .integer(kind)
            case .floating(let floatingName) where !["Float16", "Float80", "CGFloat", "Decimal"].contains(floatingName):
                rawType = .floating; rawTypeName = floatingName
            default: rawType = nil
            }
        }
        // Keyed form: CodingKeys rename the case keys (`case moving = "Moving"`).
        var caseKeys: [String: String]?
        if rawType == nil {
            switch codingKeys(of: decl.path) {
            case .unsupported(let unresolved): return unresolved
            case .keys(let k): caseKeys = k
            case .none: caseKeys = nil
            }
        }
        var cases: [EnumShape.Case] = []
        var next: Int64 = 0
        var nextUnsigned: UInt64?
        var nextFloat: Double = 0
        for enumCase in decl.cases {
            switch rawType {
            case .string?:
                if case .string(let s)? = enumCase.raw { cases.append(.init(name: enumCase.name, rawValue: s)) }
                else { cases.append(.init(name: enumCase.name, rawValue: enumCase.name)) }
            case .integer?:
                if case .integer(let text)? = enumCase.raw {
                    if let v = Self.integerValue(text) { next = v; nextUnsigned = nil }
                    else if let u = Self.unsignedValue(text) { nextUnsigned = u }  // UInt64 above Int64.max
                }
                if let unsigned = nextUnsigned {
                    cases.append(.init(name: enumCase.name, rawValue: String(unsigned)))
                    nextUnsigned = unsigned &+ 1
                } else {
                    cases.append(.init(name: enumCase.name, rawValue: String(next)))
                    next &+= 1
                }
            case .floating?:
                if case .floating(let text)? = enumCase.raw, let v = Double(text) { nextFloat = v }
                else if case .integer(let text)? = enumCase.raw, let v = Self.integerValue(text) { nextFloat = Double(v) }
                let text: String
                if let raw = enumCase.raw, case .floating(let t) = raw { text = t }
                else if nextFloat == nextFloat.rounded(), abs(nextFloat) < 1e15 { text = String(Int64(nextFloat)) }
                else { text = String(nextFloat) }
                cases.append(.init(name: enumCase.name, rawValue: text))
                nextFloat += 1
            case nil:
                var values: [(key: String, shape: ValueShape)] = []
                var labels: [String] = []
                // Per-case keys: `enum BlinkingCodingKeys: String, CodingKey { case rate = "hz" }` renames the
                // associated value `rate` of case `blinking` (SE-0295).
                let perCase = caseCodingKeys(of: decl.path, case: enumCase.name)
                for (k, v) in (enumCase.associated ?? []).enumerated() {
                    let swiftName = v.label ?? "_\(k)"
                    values.append((perCase[swiftName] ?? swiftName, shape(of: v.type, scope: decl.path)))
                    labels.append(swiftName)
                }
                cases.append(.init(name: enumCase.name, rawValue: nil, associatedValues: values, key: caseKeys?[enumCase.name],
                                   associatedValueLabels: labels))
            }
        }
        return .enumeration(EnumShape(name: name, location: location, rawType: rawType, cases: cases, rawTypeName: rawTypeName))
    }

    private static func unsignedValue(_ text: String) -> UInt64? {
        var digits = Substring(text)
        var radix = 10
        if digits.hasPrefix("0x") { radix = 16; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0b") { radix = 2; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0o") { radix = 8; digits = digits.dropFirst(2) }
        return UInt64(digits, radix: radix)
    }

    private static func integerValue(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        var radix = 10
        if digits.hasPrefix("0x") { radix = 16; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0b") { radix = 2; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0o") { radix = 8; digits = digits.dropFirst(2) }
        guard let value = Int64(digits, radix: radix) else { return nil }
        return negative ? -value : value
    }

    /// A type written back as Swift text.
    static func describe(_ syntax: SwiftTypeSyntax) -> String {
        switch syntax {
        case .named(let comps):
            return comps.map { component in
                component.arguments.isEmpty ? component.name : component.name + "<" + component.arguments.map(describe).joined(separator: ", ") + ">"
            }.joined(separator: ".")
        case .optional(let inner): return describe(inner) + "?"
        case .array(let e): return "[" + describe(e) + "]"
        case .dictionary(let k, let v): return "[" + describe(k) + ": " + describe(v) + "]"
        case .other(let text): return text
        }
    }
}
