/// Reads back what ``ActivitySchemaDescription`` wrote (`activity-push schema --format json`), so
/// `check --schema SCHEMA.json` can judge payloads where the app's Swift source is not at hand (a backend's CI).
extension ActivitySchemaDescription {
    /// - Throws: ``SchemaReadError`` naming the JSON path that does not have the described shape.
    public static func read(_ value: JSONValue) throws -> ActivitySchema {
        guard let types = value.members?.first(where: { $0.key == "types" })?.value.value, case .array(let list) = types else {
            throw SchemaReadError(.badDescription, "expected {\"types\": [...]} as written by `activity-push schema --format json`")
        }
        let files = (JSONNode(value)["files"].flatMap { node -> [String]? in
            if case .array(let a) = node.value { return a.compactMap { $0.value.stringValue } }
            return nil
        }) ?? []
        return ActivitySchema(types: try list.enumerated().map { i, t in
            let path = "types.\(i)"
            guard let name = t["name"]?.value.stringValue else { throw SchemaReadError(.badDescription, "\(path).name: expected a string") }
            return ActivityAttributesType(
                name: name, location: location(t["location"]?.value.stringValue) ?? SwiftSourceLocation(file: "?", line: 0),
                attributes: try shape(t["attributes"], path: path + ".attributes"),
                contentState: try shape(t["content-state"], path: path + ".content-state"))
        }, files: files)
    }

    static func location(_ s: String?) -> SwiftSourceLocation? {
        guard let s, let colon = s.lastIndex(of: ":"), let line = Int(s[s.index(after: colon)...]) else { return nil }
        return SwiftSourceLocation(file: String(s[..<colon]), line: line)
    }

    static func shape(_ node: JSONNode?, path: String) throws -> ValueShape {
        guard let node, let kind = node["kind"]?.value.stringValue else { throw SchemaReadError(.badDescription, "\(path): expected a shape with \"kind\"") }
        func str(_ key: String) -> String? { node[key]?.value.stringValue }
        func element() throws -> ValueShape { try shape(node["element"], path: path + ".element") }
        switch kind {
        case "bool": return .bool
        case "string": return .string
        case "character": return .character
        case "integer": return .integer(IntegerKind.all[str("swiftType") ?? "Int"] ?? .int)
        case "number": return .floating(name: str("swiftType") ?? "Double")
        case "date": return .date
        case "custom-date":
            guard let encoding = str("encoding").flatMap(DateEncoding.init(rawValue:)) else {
                throw SchemaReadError(.badDescription, "\(path).encoding: expected one of \(DateEncoding.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let integer = str("swiftType").flatMap { IntegerKind.all[$0] }
            let fractional: Bool = { if case .bool(true)? = node["fractionalSeconds"]?.value { return true }; return false }()
            return .customDate(encoding, CustomDateDecoding(integer: integer, fractionalSeconds: fractional))
        case "url": return .url
        case "uuid": return .uuid
        case "data": return .data
        case "array": return .array(try element())
        case "set": return .set(try element())
        case "optional": return .optional(try element())
        case "dictionary":
            return .dictionary(key: try shape(node["key"], path: path + ".key"), value: try shape(node["value"], path: path + ".value"))
        case "unresolved":
            return .unresolved(typeName: str("swiftType") ?? "?", reason: str("reason") ?? "unresolved")
        case "object":
            guard case .array(let props)? = node["properties"]?.value else { throw SchemaReadError(.badDescription, "\(path).properties: expected an array") }
            let properties = try props.enumerated().map { i, p -> StoredProperty in
                let pp = "\(path).properties.\(i)"
                guard let name = p["name"]?.value.stringValue, let key = p["key"]?.value.stringValue else {
                    throw SchemaReadError(.badDescription, "\(pp): expected name and key")
                }
                return StoredProperty(name: name, key: key, shape: try shape(p["shape"], path: pp + ".shape"),
                                      typeName: p["swiftType"]?.value.stringValue ?? "?",
                                      location: location(p["location"]?.value.stringValue))
            }
            var conditional: [String] = []
            if case .array(let c)? = node["conditionalKeys"]?.value { conditional = c.compactMap { $0.value.stringValue } }
            return .object(StructShape(name: str("swiftType") ?? "?", location: location(str("location")),
                                       properties: properties, conditionalKeys: conditional,
                                       decodesFromAnyValue: node["decodesFromAnyValue"]?.value == .bool(true)))
        case "enum":
            guard case .array(let cases)? = node["cases"]?.value else { throw SchemaReadError(.badDescription, "\(path).cases: expected an array") }
            let rawType: EnumShape.RawType?
            switch str("rawType") {
            case nil: rawType = nil
            case "String"?: rawType = .string
            case "floating"?: rawType = .floating
            case let other?: rawType = .integer(IntegerKind.all[other] ?? .int)
            }
            return .enumeration(EnumShape(name: str("swiftType") ?? "?", location: location(str("location")), rawType: rawType,
                                          cases: try cases.enumerated().map { i, c in
                guard let name = c["name"]?.value.stringValue else { throw SchemaReadError(.badDescription, "\(path).cases.\(i).name: expected a string") }
                var raw: String? = nil
                switch c["rawValue"]?.value {
                case .string(let s)?: raw = s
                case .number(let n)?: raw = n.lexeme
                default: raw = nil
                }
                var associated: [(key: String, shape: ValueShape)] = []
                var labels: [String] = []
                if case .array(let av)? = c["associatedValues"]?.value {
                    associated = try av.enumerated().map { j, a in
                        (a["key"]?.value.stringValue ?? "_\(j)", try shape(a["shape"], path: "\(path).cases.\(i).associatedValues.\(j).shape"))
                    }
                    labels = av.enumerated().map { j, a in a["label"]?.value.stringValue ?? associated[j].key }
                }
                return EnumShape.Case(name: name, rawValue: raw, associatedValues: associated, key: c["key"]?.value.stringValue,
                                      associatedValueLabels: labels)
            }, rawTypeName: str("rawSwiftType")))
        default:
            throw SchemaReadError(.badDescription, "\(path): unknown shape kind \"\(kind)\"")
        }
    }
}
