/// What the schema reader found, as JSON (for `activity-push schema --format json`).
///
/// `{"files": [...], "types": [{"name", "location", "attributes": SHAPE, "content-state": SHAPE}]}` where a
/// SHAPE is `{"kind": …}`: `object` (with `properties`: Swift name, JSON key, Swift type, `required`,
/// shape; `conditionalKeys`; `decodesFromAnyValue` when it stores nothing), `enum` (`rawType`, `cases` with raw values or associated values, and `key` when CodingKeys rename a case),
/// `optional`/`array`/`set` (`element`), `dictionary` (`key`, `value`), `integer` (`swiftType`, `minimum`,
/// `maximum`), `number`, `date` (seconds since 2001-01-01), `custom-date` (`encoding`: unix-seconds, unix-milliseconds,
/// reference-seconds, iso8601 — a date the app decodes itself), `string`, `character`, `bool`, `url`, `uuid`,
/// `data`, or `unresolved` (`swiftType`, `reason`).
public enum ActivitySchemaDescription {
    /// The whole schema: `{"files": […], "types": […]}` (see above).
    public static func json(_ schema: ActivitySchema) -> JSONValue {
        .obj([
            ("files", .arr(schema.files.map(JSONValue.string))),
            ("types", .arr(schema.types.map { attributesType in
                .obj([
                    ("name", .string(attributesType.name)),
                    ("location", .string(attributesType.location.description)),
                    ("attributes", shape(attributesType.attributes)),
                    ("content-state", shape(attributesType.contentState)),
                ])
            })),
        ])
    }

    /// One SHAPE object (see above).
    public static func shape(_ valueShape: ValueShape) -> JSONValue {
        switch valueShape {
        case .bool: return kind("bool")
        case .string: return kind("string")
        case .character: return kind("character")
        case .integer(let kind):
            return .obj([("kind", .string("integer")), ("swiftType", .string(kind.name)),
                         ("minimum", .number(JSONNumber(lexeme: String(kind.min)))),
                         ("maximum", .number(JSONNumber(lexeme: String(kind.maxUnsigned))))])
        case .floating(let name): return .obj([("kind", .string("number")), ("swiftType", .string(name))])
        case .date: return .obj([("kind", .string("date")), ("encoding", .string("seconds since 2001-01-01 00:00:00 UTC"))])
        case .customDate(let encoding, let decoding):
            var members: [(String, JSONValue)] = [("kind", .string("custom-date")), ("encoding", .string(encoding.rawValue))]
            if let integer = decoding.integer { members.append(("swiftType", .string(integer.name))) }
            if decoding.fractionalSeconds { members.append(("fractionalSeconds", .bool(true))) }
            return .obj(members)
        case .url: return kind("url")
        case .uuid: return kind("uuid")
        case .data: return .obj([("kind", .string("data")), ("encoding", .string("base64"))])
        case .array(let e): return .obj([("kind", .string("array")), ("element", shape(e))])
        case .set(let e): return .obj([("kind", .string("set")), ("element", shape(e))])
        case .dictionary(let k, let v): return .obj([("kind", .string("dictionary")), ("key", shape(k)), ("value", shape(v))])
        case .optional(let w): return .obj([("kind", .string("optional")), ("element", shape(w))])
        case .object(let structShape):
            var pairs: [(String, JSONValue)] = [("kind", .string("object")), ("swiftType", .string(structShape.name))]
            if let l = structShape.location { pairs.append(("location", .string(l.description))) }
            pairs.append(("properties", .arr(structShape.properties.map { property in
                var prop: [(String, JSONValue)] = [
                    ("name", .string(property.name)), ("key", .string(property.key)), ("swiftType", .string(property.typeName)),
                    ("required", .bool(property.isRequired)), ("shape", shape(property.shape)),
                ]
                if let l = property.location { prop.append(("location", .string(l.description))) }
                return .obj(prop)
            })))
            pairs.append(("conditionalKeys", .arr(structShape.conditionalKeys.map(JSONValue.string))))
            if structShape.decodesFromAnyValue { pairs.append(("decodesFromAnyValue", .bool(true))) }
            return .obj(pairs)
        case .enumeration(let enumShape):
            var pairs: [(String, JSONValue)] = [("kind", .string("enum")), ("swiftType", .string(enumShape.name))]
            if let l = enumShape.location { pairs.append(("location", .string(l.description))) }
            let raw: JSONValue
            switch enumShape.rawType {
            case .string?: raw = .string("String")
            case .integer(let k)?: raw = .string(k.name)
            case .floating?: raw = .string("floating")
            case nil: raw = .null
            }
            pairs.append(("rawType", raw))
            if let rawName = enumShape.rawTypeName { pairs.append(("rawSwiftType", .string(rawName))) }
            pairs.append(("cases", .arr(enumShape.cases.map { enumCase in
                var casePairs: [(String, JSONValue)] = [("name", .string(enumCase.name))]
                if enumCase.key != enumCase.name { casePairs.append(("key", .string(enumCase.key))) }
                if let rawText = enumCase.rawValue {
                    casePairs.append(("rawValue", enumShape.rawType == .string ? .string(rawText) : .number(JSONNumber(lexeme: rawText))))
                } else {
                    casePairs.append(("associatedValues", .arr(enumCase.associatedValues.enumerated().map { index, value in
                        var valuePairs: [(String, JSONValue)] = [("key", .string(value.key))]
                        let label = index < enumCase.associatedValueLabels.count ? enumCase.associatedValueLabels[index] : value.key
                        if label != value.key { valuePairs.append(("label", .string(label))) }
                        valuePairs.append(("shape", shape(value.shape)))
                        return .obj(valuePairs)
                    })))
                }
                return .obj(casePairs)
            })))
            return .obj(pairs)
        case .unresolved(let name, let reason):
            return .obj([("kind", .string("unresolved")), ("swiftType", .string(name)), ("reason", .string(reason))])
        }
    }

    private static func kind(_ k: String) -> JSONValue { .obj([("kind", .string(k))]) }
}
