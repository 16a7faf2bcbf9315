/// Writes an ``ActivitySchema`` as one JSON Schema (draft 2020-12) document that validates a whole Live
/// Activity payload `{"aps": {…}}` for start, update and end events.
///
/// Layout:
/// - the root validates `{"aps": …}` through `$defs/aps`: `event` (`start`/`update`/`end`), `timestamp`
///   (integer, UNIX seconds), `attributes-type` (one of the type names), `stale-date`/`dismissal-date`
///   (UNIX seconds); a start must carry `attributes-type`, `attributes` and `alert`; when
///   `attributes-type` names a type, `attributes` and `content-state` must match that type; without it
///   (update/end), `content-state` must match one of the types' content states.
/// - `$defs/<Type>.attributes`: the type's stored properties, `additionalProperties: false` (the device
///   rejects a message whose `attributes` hold a key the type does not store).
/// - `$defs/<Type>.content-state`: `ContentState`; additional keys allowed (ignored by `Codable`).
/// - `$defs/<Swift type name>`: each nested struct or enum, referenced by `$ref`.
///
/// Values follow the device's default `JSONDecoder`: `Date` is a number of seconds since
/// 2001-01-01 00:00:00 UTC, fixed-width integers carry `minimum`/`maximum`, `UUID` a pattern, `URL`
/// `format: uri`, enums an `enum` of raw values (or the keyed `{"case": {…}}` form), optionals are not
/// `required` (and `null` is not accepted: the project treats it as an error), unresolved types are `{}`
/// with a `$comment` saying why.
public enum JSONSchemaExporter {
    /// The JSON Schema dialect written in `$schema` (draft 2020-12).
    public static let draft = "https://json-schema.org/draft/2020-12/schema"

    /// The schema document. `id`, when given, becomes `$id`.
    public static func document(for schema: ActivitySchema, id: String? = nil) -> JSONValue {
        var builder = Builder()
        var defs: [(String, JSONValue)] = []
        var typeRules: [JSONValue] = []
        var contentStateRefs: [JSONValue] = []
        for type in schema.types {
            let attributesKey = type.name + ".attributes"
            let contentKey = type.name + ".content-state"
            defs.append((attributesKey, builder.schema(type.attributes, topLevelAttributes: true)))
            defs.append((contentKey, builder.schema(type.contentState, topLevelAttributes: false)))
            typeRules.append(.obj([
                ("if", .obj([("properties", .obj([("attributes-type", .obj([("const", .string(type.name))]))])),
                             ("required", .arr([.string("attributes-type")]))])),
                ("then", .obj([("properties", .obj([
                    ("attributes", ref(attributesKey)),
                    ("content-state", ref(contentKey)),
                ]))])),
            ]))
            contentStateRefs.append(ref(contentKey))
        }
        let names = schema.types.map { JSONValue.string($0.name) }
        let unixSeconds: (String) -> JSONValue = { what in
            // Same rule as `check`: any number of UNIX seconds; 10^11 and above is milliseconds (timestamp-in-milliseconds).
            .obj([("type", .string("number")), ("minimum", .int(0)),
                  ("exclusiveMaximum", .number(JSONNumber(lexeme: "100000000000"))),
                  ("description", .string(what + " (UNIX seconds, not milliseconds)"))])
        }
        var rules: [JSONValue] = [
            .obj([
                ("if", .obj([("properties", .obj([("event", .obj([("const", .string("start"))]))])),
                             ("required", .arr([.string("event")]))])),
                ("then", .obj([("required", .arr([.string("attributes-type"), .string("attributes"), .string("alert")]))])),
            ]),
        ]
        rules += typeRules
        if !contentStateRefs.isEmpty {
            rules.append(.obj([
                ("if", .obj([("not", .obj([("required", .arr([.string("attributes-type")]))]))])),
                ("then", .obj([("properties", .obj([
                    ("content-state", contentStateRefs.count == 1 ? contentStateRefs[0] : .obj([("anyOf", .arr(contentStateRefs))])),
                ]))])),
            ]))
        }
        let aps: JSONValue = .obj([
            ("type", .string("object")),
            ("description", .string("The aps dictionary of a Live Activity push (start, update or end).")),
            ("required", .arr([.string("event"), .string("timestamp"), .string("content-state")])),
            ("properties", .obj([
                ("event", .obj([("enum", .arr([.string("start"), .string("update"), .string("end")]))])),
                ("timestamp", unixSeconds("When the content was produced")),
                ("attributes-type", .obj([("enum", .arr(names)),
                                          ("description", .string("The ActivityAttributes type's Swift name, exactly (case-sensitive, no module prefix)."))])),
                ("attributes", .obj([("type", .string("object"))])),
                ("content-state", .obj([("type", .string("object"))])),
                ("alert", .obj([("type", .string("object"))])),
                ("stale-date", unixSeconds("When the activity becomes stale")),
                ("dismissal-date", unixSeconds("When an ended activity is removed")),
                ("relevance-score", .obj([("type", .string("number"))])),
                ("input-push-token", .obj([("const", .int(1))])),
                ("input-push-channel", .obj([("type", .string("string"))])),
            ])),
            ("allOf", .arr(rules)),
        ])
        var root: [(String, JSONValue)] = [("$schema", .string(draft))]
        if let id { root.append(("$id", .string(id))) }
        root += [
            ("title", .string(schema.types.map(\.name).joined(separator: ", "))),
            ("description", .string("Live Activity push payloads for the ActivityAttributes types read from " + schema.files.joined(separator: ", ") + ".")),
            ("type", .string("object")),
            ("required", .arr([.string("aps")])),
            ("properties", .obj([("aps", ref("aps"))])),
            ("$defs", .obj([("aps", aps)] + defs + builder.named)),
        ]
        return .obj(root)
    }

    private static func ref(_ def: String) -> JSONValue {
        .obj([("$ref", .string("#/$defs/" + pointerEscaped(def)))])
    }

    private static func pointerEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static let uuidPattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"

    /// Turns shapes into schemas, collecting named struct/enum schemas into `$defs`.
    private struct Builder {
        var named: [(String, JSONValue)] = []
        var seen: Set<String> = []

        mutating func schema(_ shape: ValueShape, topLevelAttributes: Bool) -> JSONValue {
            if topLevelAttributes, case .object(let s) = shape { return object(s, closed: true) }
            return schema(shape)
        }

        mutating func schema(_ shape: ValueShape) -> JSONValue {
            switch shape {
            case .bool: return .obj([("type", .string("boolean"))])
            case .string: return .obj([("type", .string("string"))])
            case .character:
                return .obj([("type", .string("string")), ("minLength", .int(1)),
                             ("description", .string("Character: one extended grapheme cluster"))])
            case .integer(let kind):
                let max: JSONValue = .number(JSONNumber(lexeme: String(kind.maxUnsigned)))
                return .obj([("type", .string("integer")), ("minimum", .number(JSONNumber(lexeme: String(kind.min)))),
                             ("maximum", max), ("description", .string(kind.name))])
            case .floating(let name):
                return .obj([("type", .string("number")), ("description", .string(name))])
            case .date:
                // A value in the UNIX-seconds range (2001+31 years ahead) is the project's
                // `date-not-reference-epoch` error: the sender wrote UNIX seconds.
                // ... and 10^11 or more is milliseconds; beyond ±10^15 no usable time (both errors in `check`).
                return .obj([("type", .string("number")),
                             ("exclusiveMaximum", .number(JSONNumber(lexeme: "100000000000"))),
                             ("minimum", .number(JSONNumber(lexeme: "-1000000000000000"))),
                             ("not", .obj([("minimum", .number(JSONNumber(lexeme: "1000000000"))),
                                           ("maximum", .number(JSONNumber(lexeme: "2500000000")))])),
                             ("description", .string("Date: seconds since 2001-01-01 00:00:00 UTC (JSONDecoder's default deferredToDate), not UNIX seconds"))])
            case .customDate(let encoding, let decoding):
                switch encoding {
                case .referenceSeconds: return schema(decoding.integer == nil ? .date : .integer(decoding.integer!))
                case .iso8601:
                    return .obj([("type", .string("string")), ("format", .string("date-time")), ("description", .string("Date: ISO 8601 (the app's own decoder)"))])
                case .unixSeconds, .unixMilliseconds:
                    if let integer = decoding.integer {
                        return .obj([("type", .string("integer")), ("minimum", .number(JSONNumber(lexeme: String(integer.min)))),
                                     ("maximum", .number(JSONNumber(lexeme: String(integer.maxUnsigned)))),
                                     ("description", .string("Date: \(encoding.rawValue) as \(integer.name) (the app's own decoder)"))])
                    }
                    return .obj([("type", .string("number")), ("description", .string("Date: \(encoding.rawValue) (the app's own decoder)"))])
                }
            case .url:
                return .obj([("type", .string("string")), ("format", .string("uri")), ("minLength", .int(1)),
                             ("description", .string("URL"))])
            case .uuid:
                return .obj([("type", .string("string")), ("pattern", .string(JSONSchemaExporter.uuidPattern)),
                             ("description", .string("UUID"))])
            case .data:
                return .obj([("type", .string("string")), ("contentEncoding", .string("base64")),
                             ("pattern", .string("^[A-Za-z0-9+/]*={0,2}$")), ("description", .string("Data (base64)"))])
            case .array(let element):
                return .obj([("type", .string("array")), ("items", elementSchema(element))])
            case .set(let element):
                return .obj([("type", .string("array")), ("items", elementSchema(element)), ("description", .string("Set"))])
            case .dictionary(let key, let value):
                if case .integer(let kind) = key.unwrapped, kind.name != "Int" {
                    // Not CodingKeyRepresentable: Codable writes a flat array [key, value, key, value, …] (as `check`).
                    return .obj([("type", .string("array")), ("items", .obj([("anyOf", .arr([elementSchema(key), elementSchema(value)]))])),
                                 ("description", .string("[\(kind.name): …] encoded as a flat array [key, value, key, value, …]; keys at even indices"))])
                }
                var pairs: [(String, JSONValue)] = [("type", .string("object")), ("additionalProperties", elementSchema(value))]
                switch key.unwrapped {
                case .integer: pairs.append(("propertyNames", .obj([("pattern", .string("^-?[0-9]+$"))])))
                case .enumeration(let enumShape) where enumShape.rawType != nil && enumShape.rawType != .floating:
                    // A CodingKeyRepresentable enum: its raw values (an Int raw value as its decimal text).
                    pairs.append(("propertyNames", .obj([("enum", .arr(enumShape.cases.compactMap { $0.rawValue.map(JSONValue.string) }))])))
                default: break
                }
                return .obj(pairs)
            case .optional(let inner):
                return schema(inner)
            case .object(let structShape):
                return named(structShape.name) { b in b.object(structShape, closed: false) }
            case .enumeration(let enumShape):
                return named(enumShape.name) { b in b.enumeration(enumShape) }
            case .unresolved(let typeName, let reason):
                return .obj([("$comment", .string("unresolved \(typeName): \(reason); any value accepted"))])
            }
        }

        /// Inside arrays and dictionaries an optional element may be `null`.
        private mutating func elementSchema(_ shape: ValueShape) -> JSONValue {
            if case .optional(let inner) = shape {
                return .obj([("anyOf", .arr([elementSchema(inner), .obj([("type", .string("null"))])]))])
            }
            return schema(shape)
        }

        private mutating func named(_ name: String, _ make: (inout Builder) -> JSONValue) -> JSONValue {
            if !seen.contains(name) {
                seen.insert(name)
                let index = named.count
                named.append((name, .null))
                named[index].1 = make(&self)
            }
            return JSONSchemaExporter.ref(name)
        }

        mutating func object(_ structShape: StructShape, closed: Bool) -> JSONValue {
            if structShape.decodesFromAnyValue {
                return .obj([("title", .string(structShape.name)), ("$comment", .string("stores nothing: any JSON value decodes"))])
            }
            var properties: [(String, JSONValue)] = []
            var required: [JSONValue] = []
            for property in structShape.properties {
                var schema = self.schema(property.shape)
                if case .object(var members) = schema {
                    members.append(JSONMember(key: "$comment", value: JSONNode(.string("Swift: \(property.name): \(property.typeName)"))))
                    schema = .object(members)
                }
                properties.append((property.key, schema))
                if property.isRequired { required.append(.string(property.key)) }
            }
            for key in structShape.conditionalKeys where !properties.contains(where: { $0.0 == key }) {
                properties.append((key, .obj([("$comment", .string("declared under #if: may or may not be decoded"))])))
            }
            var pairs: [(String, JSONValue)] = [("type", .string("object")), ("title", .string(structShape.name)),
                                                ("properties", .obj(properties)), ("required", .arr(required))]
            if closed { pairs.append(("additionalProperties", .bool(false))) }
            return .obj(pairs)
        }

        mutating func enumeration(_ enumShape: EnumShape) -> JSONValue {
            if let raw = enumShape.rawType {
                let values: [JSONValue] = enumShape.cases.compactMap { enumCase in
                    guard let rawText = enumCase.rawValue else { return nil }
                    if raw == .string { return .string(rawText) }
                    return .number(JSONNumber(lexeme: rawText))
                }
                return .obj([("title", .string(enumShape.name)), ("enum", .arr(values))])
            }
            // Keyed form: exactly one key, the case name, holding the associated values.
            let variants: [JSONValue] = enumShape.cases.map { enumCase in
                var properties: [(String, JSONValue)] = []
                var required: [JSONValue] = []
                for value in enumCase.associatedValues {
                    properties.append((value.key, schema(value.shape)))
                    if !value.shape.isOptional { required.append(.string(value.key)) }
                }
                let payload: JSONValue = .obj([("type", .string("object")), ("properties", .obj(properties)),
                                               ("required", .arr(required))])
                // The decoder ignores keys that are not case keys, but needs exactly one case key.
                let others: [JSONValue] = enumShape.cases.filter { $0.key != enumCase.key }.map { .string($0.key) }
                var variant: [(String, JSONValue)] = [("type", .string("object")), ("properties", .obj([(enumCase.key, payload)])),
                                                     ("required", .arr([.string(enumCase.key)]))]
                if !others.isEmpty { variant.append(("not", .obj([("anyOf", .arr(others.map { .obj([("required", .arr([$0]))]) }))]))) }
                return .obj(variant)
            }
            return .obj([("title", .string(enumShape.name)), ("oneOf", .arr(variants))])
        }
    }
}
