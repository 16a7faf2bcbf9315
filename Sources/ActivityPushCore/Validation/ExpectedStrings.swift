/// The strings a ``Validator`` expects to read in a push — the Live Activity `aps` keys and events, alert keys,
/// and from the app's schema every type name, JSON key, enum case name and raw value — as a table the JSON
/// reader hands out instead of building each one again (see ``JSONKeyTable``; it changes speed only).
enum ExpectedStrings {
    static let alertKeys = ["title", "subtitle", "body", "sound", "loc-key", "loc-args", "title-loc-key",
                            "title-loc-args", "subtitle-loc-key", "subtitle-loc-args"]

    static func table(for schema: ActivitySchema?) -> JSONKeyTable {
        var strings: [String] = ["aps"] + LiveActivityKeys.all + LiveActivityKeys.ordinaryNotificationKeys + alertKeys
        strings += LiveActivityEvent.known.map(\.rawValue)
        for type in schema?.types ?? [] {
            strings.append(type.name)
            collect(type.attributes, into: &strings, depth: 0)
            collect(type.contentState, into: &strings, depth: 0)
        }
        return JSONKeyTable(strings)
    }

    /// Shapes are trees; the depth bound only guards against a pathological schema.
    private static func collect(_ shape: ValueShape, into strings: inout [String], depth: Int) {
        guard depth < 32 else { return }
        switch shape {
        case .array(let element), .set(let element), .optional(let element):
            collect(element, into: &strings, depth: depth + 1)
        case .dictionary(_, let value):
            collect(value, into: &strings, depth: depth + 1)
        case .object(let object):
            for property in object.properties {
                strings.append(property.key)
                collect(property.shape, into: &strings, depth: depth + 1)
            }
            strings += object.conditionalKeys
        case .enumeration(let enumeration):
            for enumCase in enumeration.cases {
                strings.append(enumCase.name)
                if enumCase.key != enumCase.name { strings.append(enumCase.key) }
                if let raw = enumCase.rawValue { strings.append(raw) }
                for associated in enumCase.associatedValues {
                    strings.append(associated.key)
                    collect(associated.shape, into: &strings, depth: depth + 1)
                }
            }
        case .bool, .string, .character, .integer, .floating, .date, .customDate, .url, .uuid, .data, .unresolved:
            return
        }
    }
}
