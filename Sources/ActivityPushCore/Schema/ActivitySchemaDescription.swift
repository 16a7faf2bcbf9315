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
            ("types", .arr(schema.types.map { t in
                .obj([
                    ("name", .string(t.name)),
                    ("location", .string(t.location.description)),
                    ("attributes", shape(t.attributes)),
                    ("content-state", shape(t.contentState)),
                ])
            })),
        ])
    }

    /// One SHAPE object (see above).
    public static func shape(_ s: ValueShape) -> JSONValue {
        switch s {
        case .bool: return kind("bool")
        case .string: return kind("string")
        case .character: return kind("character")
        case .integer(let k):
            return .obj([("kind", .string("integer")), ("swiftType", .string(k.name)),
                         ("minimum", .number(JSONNumber(lexeme: String(k.min)))),
                         ("maximum", .number(JSONNumber(lexeme: String(k.maxUnsigned))))])
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
        case .object(let o):
            var pairs: [(String, JSONValue)] = [("kind", .string("object")), ("swiftType", .string(o.name))]
            if let l = o.location { pairs.append(("location", .string(l.description))) }
            pairs.append(("properties", .arr(o.properties.map { p in
                var prop: [(String, JSONValue)] = [
                    ("name", .string(p.name)), ("key", .string(p.key)), ("swiftType", .string(p.typeName)),
                    ("required", .bool(p.isRequired)), ("shape", shape(p.shape)),
                ]
                if let l = p.location { prop.append(("location", .string(l.description))) }
                return .obj(prop)
            })))
            pairs.append(("conditionalKeys", .arr(o.conditionalKeys.map(JSONValue.string))))
            if o.decodesFromAnyValue { pairs.append(("decodesFromAnyValue", .bool(true))) }
            return .obj(pairs)
        case .enumeration(let e):
            var pairs: [(String, JSONValue)] = [("kind", .string("enum")), ("swiftType", .string(e.name))]
            if let l = e.location { pairs.append(("location", .string(l.description))) }
            let raw: JSONValue
            switch e.rawType {
            case .string?: raw = .string("String")
            case .integer(let k)?: raw = .string(k.name)
            case .floating?: raw = .string("floating")
            case nil: raw = .null
            }
            pairs.append(("rawType", raw))
            if let rawName = e.rawTypeName { pairs.append(("rawSwiftType", .string(rawName))) }
            pairs.append(("cases", .arr(e.cases.map { c in
                var casePairs: [(String, JSONValue)] = [("name", .string(c.name))]
                if c.key != c.name { casePairs.append(("key", .string(c.key))) }
                if let v = c.rawValue {
                    casePairs.append(("rawValue", e.rawType == .string ? .string(v) : .number(JSONNumber(lexeme: v))))
                } else {
                    casePairs.append(("associatedValues", .arr(c.associatedValues.enumerated().map { index, value in
                        var valuePairs: [(String, JSONValue)] = [("key", .string(value.key))]
                        let label = index < c.associatedValueLabels.count ? c.associatedValueLabels[index] : value.key
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
