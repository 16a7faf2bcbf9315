/// Where something was declared in the app's Swift source.
public struct SwiftSourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file's path as given to the reader.
    public var file: String
    /// 1-based line of the declaration.
    public var line: Int
    /// A location from its parts.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
    public var description: String { "\(file):\(line)" }
}

/// Every `ActivityAttributes` type read from the app's Swift source, with the JSON shape the device's
/// default `JSONDecoder` expects for its `attributes` and its `content-state`.
public struct ActivitySchema: Sendable {
    /// Every `ActivityAttributes` type found, in file and declaration order.
    public var types: [ActivityAttributesType]
    /// The `.swift` files that were read, in order.
    public var files: [String]

    /// A schema from its types and the files read (``SwiftSourceReader`` makes one).
    public init(types: [ActivityAttributesType], files: [String]) {
        self.types = types
        self.files = files
    }

    /// The type whose Swift name equals `name` exactly (case-sensitive, as the device compares it).
    public func type(named name: String) -> ActivityAttributesType? {
        types.first(where: { $0.name == name })
    }
}

/// One type conforming to `ActivityAttributes`.
public struct ActivityAttributesType: Sendable {
    /// The Swift type name — the exact string `aps.attributes-type` must carry (no module prefix).
    public var name: String
    /// Where the type is declared.
    public var location: SwiftSourceLocation
    /// The shape of `aps.attributes` (the type's own stored properties), or `.unresolved`.
    public var attributes: ValueShape
    /// The shape of `aps.content-state` (`ContentState`), or `.unresolved`.
    public var contentState: ValueShape

    /// A type from its parts.
    public init(name: String, location: SwiftSourceLocation, attributes: ValueShape, contentState: ValueShape) {
        self.name = name
        self.location = location
        self.attributes = attributes
        self.contentState = contentState
    }
}

/// The JSON shape a Swift type takes under `JSONDecoder`'s default strategies (synthesized `Decodable`).
public indirect enum ValueShape: Sendable {
    /// `Bool`: `true` or `false`.
    case bool
    /// `String`: a JSON string.
    case string
    /// `Character`: a string of exactly one character.
    case character
    /// A Swift integer type: a JSON number with no fraction, within the type's range.
    case integer(IntegerKind)
    /// `Double`, `Float`, `CGFloat`, `TimeInterval`, `Decimal`…: any JSON number.
    case floating(name: String)
    /// `Date` with the default `deferredToDate` strategy: a number of seconds since 2001-01-01 00:00:00 UTC.
    case date
    /// A date the app decodes itself — a custom single-value `init(from:)` (`Date(timeIntervalSince1970:)`), or
    /// a unit declared in `activity-push.units` — carried as the encoding says.
    case customDate(DateEncoding, CustomDateDecoding = CustomDateDecoding())
    /// `URL`: a string that parses as a URL.
    case url
    /// `UUID`: a string in 8-4-4-4-12 hex form.
    case uuid
    /// `Data`: a base64 string.
    case data
    /// `[T]`: a JSON array of T.
    case array(ValueShape)
    /// `Set<T>`: a JSON array of T (duplicates collapse on decoding).
    case set(ValueShape)
    /// `[K: V]`: a JSON object when K is `String` or `Int`-like (keys written as strings).
    case dictionary(key: ValueShape, value: ValueShape)
    /// `T?`: the key may be omitted.
    case optional(ValueShape)
    /// A struct decoded with synthesized `Decodable`: a JSON object.
    case object(StructShape)
    /// An enum: its raw value, or the keyed form for enums without a raw type.
    case enumeration(EnumShape)
    /// A type the reader cannot resolve (declared in a file not given, custom `init(from:)`, recursive…):
    /// its values are not judged.
    case unresolved(typeName: String, reason: String)

    /// The shape without an outer `Optional`.
    public var unwrapped: ValueShape {
        if case .optional(let inner) = self { return inner.unwrapped }
        return self
    }

    /// True for `T?`.
    public var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }
}

/// A Swift integer type and its range.
public struct IntegerKind: Sendable, Hashable {
    /// The Swift type name (`Int32`).
    public var name: String
    /// Lower bound.
    public var min: Int64
    /// Upper bound; `UInt64`/`UInt` use `maxUnsigned`.
    public var maxUnsigned: UInt64

    /// An integer kind from its name and range.
    public init(name: String, min: Int64, maxUnsigned: UInt64) {
        self.name = name
        self.min = min
        self.maxUnsigned = maxUnsigned
    }

    /// `Int` (64-bit on every platform the device and server use).
    public static let int = IntegerKind(name: "Int", min: Int64.min, maxUnsigned: UInt64(Int64.max))
    /// Every Swift integer type by name.
    public static let all: [String: IntegerKind] = [
        "Int": .int,
        "Int64": IntegerKind(name: "Int64", min: Int64.min, maxUnsigned: UInt64(Int64.max)),
        "Int32": IntegerKind(name: "Int32", min: Int64(Int32.min), maxUnsigned: UInt64(Int32.max)),
        "Int16": IntegerKind(name: "Int16", min: Int64(Int16.min), maxUnsigned: UInt64(Int16.max)),
        "Int8": IntegerKind(name: "Int8", min: Int64(Int8.min), maxUnsigned: UInt64(Int8.max)),
        "UInt": IntegerKind(name: "UInt", min: 0, maxUnsigned: UInt64.max),
        "UInt64": IntegerKind(name: "UInt64", min: 0, maxUnsigned: UInt64.max),
        "UInt32": IntegerKind(name: "UInt32", min: 0, maxUnsigned: UInt64(UInt32.max)),
        "UInt16": IntegerKind(name: "UInt16", min: 0, maxUnsigned: UInt64(UInt16.max)),
        "UInt8": IntegerKind(name: "UInt8", min: 0, maxUnsigned: UInt64(UInt8.max)),
    ]
}

/// A struct (or class) decoded with synthesized `Decodable` as a keyed container.
public struct StructShape: Sendable {
    /// The Swift type name.
    public var name: String
    /// Where the type is declared, when read from source.
    public var location: SwiftSourceLocation?
    /// The properties decoding reads, in declaration order, with JSON keys (CodingKeys applied).
    public var properties: [StoredProperty]
    /// JSON keys of properties declared under `#if`: neither required nor unknown.
    public var conditionalKeys: [String]
    /// The type stores nothing (no stored instance property, or an empty `CodingKeys`): its synthesized
    /// `init(from:)` asks the decoder for nothing, so any JSON value decodes (`"x"`, `1`, `[]`, `{}`).
    public var decodesFromAnyValue: Bool

    /// A struct shape from its parts.
    public init(name: String, location: SwiftSourceLocation? = nil, properties: [StoredProperty], conditionalKeys: [String] = [],
                decodesFromAnyValue: Bool = false) {
        self.name = name
        self.location = location
        self.properties = properties
        self.conditionalKeys = conditionalKeys
        self.decodesFromAnyValue = decodesFromAnyValue
    }

    /// The property decoded from JSON key `key`, if any.
    public func property(forKey key: String) -> StoredProperty? {
        properties.first(where: { $0.key == key })
    }
}

/// One stored property that synthesized `Decodable` reads.
public struct StoredProperty: Sendable {
    /// The Swift name.
    public var name: String
    /// The JSON key (the `CodingKeys` raw value when renamed, else the Swift name).
    public var key: String
    /// The value's shape; `.optional(…)` when the key may be omitted.
    public var shape: ValueShape
    /// The type as written in the source (`[String: Int]`, `Date?`), for messages.
    public var typeName: String
    /// Where the property is declared, when read from source.
    public var location: SwiftSourceLocation?

    /// A property from its parts.
    public init(name: String, key: String, shape: ValueShape, typeName: String, location: SwiftSourceLocation? = nil) {
        self.name = name
        self.key = key
        self.shape = shape
        self.typeName = typeName
        self.location = location
    }

    /// Synthesized `Decodable` requires the key unless the type is optional.
    public var isRequired: Bool { !shape.isOptional }
}

/// An enum. With a raw type it decodes from its raw value; without one (Swift 5.5+ synthesized Codable)
/// it decodes from an object `{"caseName": {...}}` whose value (always an object, `{}` for a case without
/// associated values) holds the associated values. The decoder looks only at keys that are case names
/// (`CodingKeys` applied): other keys are ignored, and exactly one case key must be present.
public struct EnumShape: Sendable {
    /// An enum's raw type: how its values appear in JSON.
    public enum RawType: Sendable, Hashable {
        /// `String`: the case's raw string.
        case string
        /// An integer type: the raw number.
        case integer(IntegerKind)
        /// `Double` / `Float`: the raw number.
        case floating
    }

    /// One case of the enum.
    public struct Case: Sendable {
        /// The Swift case name.
        public var name: String
        /// The JSON key of the case in the keyed form: the `CodingKeys` raw value when renamed, else the name.
        public var key: String
        /// The raw value as JSON would carry it: the string for `String` enums, the number's text for numeric ones.
        public var rawValue: String?
        /// Associated values (keyed form only): JSON key (the per-case `CodingKeys` raw value when renamed, else the
        /// label, or `_0`, `_1`…) and shape.
        public var associatedValues: [(key: String, shape: ValueShape)]
        /// The Swift label of each associated value (or `_0`, `_1`…), in the order of ``associatedValues``; differs
        /// from the key where per-case `CodingKeys` (SE-0295) rename it.
        public var associatedValueLabels: [String]

        /// A case from its parts; `associatedValueLabels` defaults to the keys (no renaming).
        public init(name: String, rawValue: String?, associatedValues: [(key: String, shape: ValueShape)] = [],
                    key: String? = nil, associatedValueLabels: [String]? = nil) {
            self.name = name
            self.key = key ?? name
            self.rawValue = rawValue
            self.associatedValues = associatedValues
            self.associatedValueLabels = associatedValueLabels ?? associatedValues.map(\.key)
        }
    }

    /// The Swift type name.
    public var name: String
    /// Where the enum is declared, when read from source.
    public var location: SwiftSourceLocation?
    /// nil for enums without a raw type (keyed form).
    public var rawType: RawType?
    /// The raw type's Swift name (`Float`, `Double`, `Int8`…) when known: a `Float` raw value is compared after
    /// rounding the JSON number to `Float`, as the decoder does.
    public var rawTypeName: String?
    /// The cases in declaration order.
    public var cases: [Case]

    /// An enum shape from its parts.
    public init(name: String, location: SwiftSourceLocation? = nil, rawType: RawType?, cases: [Case], rawTypeName: String? = nil) {
        self.name = name
        self.location = location
        self.rawType = rawType
        self.cases = cases
        self.rawTypeName = rawTypeName
    }
}

/// How a date the app decodes itself is carried in JSON.
public enum DateEncoding: String, Sendable, Hashable, CaseIterable {
    /// A number of seconds since 1970-01-01 00:00:00 UTC (`Date(timeIntervalSince1970:)`).
    case unixSeconds = "unix-seconds"
    /// A number of milliseconds since 1970-01-01 00:00:00 UTC.
    case unixMilliseconds = "unix-milliseconds"
    /// A number of seconds since 2001-01-01 00:00:00 UTC (what `Date`'s own `Decodable` reads).
    case referenceSeconds = "reference-seconds"
    /// An ISO 8601 string (`2026-01-01T00:00:00Z`).
    case iso8601 = "iso8601"
}
