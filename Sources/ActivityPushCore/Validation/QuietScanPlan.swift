/// The app's schema compiled once per ``Validator`` for ``QuietPushScan``: every shape as a flat table of
/// plain values (node kinds with indices, object keys and enum raw values as UTF-8 in one byte pool), so the scan
/// compares bytes and integers and retains nothing.
///
/// A shape the scan does not prove quiet on its own (`Character`, `Data`, dictionaries, enums without a String raw
/// value, custom dates, unresolved types, keys under `#if`) compiles to ``Node/unsure``: a payload that reaches
/// one is judged by the full check, as every payload was before.
final class QuietScanPlan: Sendable {
    /// One shape. Payloads are indices into the plan's other tables, so a node is a trivial value.
    enum Node: Sendable, Equatable {
        /// The full check decides.
        case unsure
        case bool
        case string
        /// An integer type: `integerKinds[index]`.
        case integer(Int)
        /// A floating-point type: `floatingNames[index]` (`Double`, `Float`, `Decimal`…).
        case floating(Int)
        /// `Date` with the default strategy (seconds since 2001).
        case date
        case url
        case uuid
        /// An array or set of `nodes[index]`.
        case array(Int)
        /// A struct: `objects[index]`.
        case object(Int)
        /// An enum with String raw values: `enumerations[index]`.
        case stringEnum(Int)
    }

    /// Where a byte string sits in `pool`.
    struct Bytes: Sendable {
        let start: Int
        let count: Int
    }

    /// One stored property: its JSON key, its shape, and whether decoding needs it.
    struct Property: Sendable {
        let key: Bytes
        let node: Int
        let required: Bool
    }

    /// A struct's properties `properties[first..<first + count]`; at most 64, so a bit mask tracks them.
    struct Object: Sendable {
        let first: Int
        let count: Int
        let requiredMask: UInt64
    }

    /// An enum's raw values `rawValues[first..<first + count]`.
    struct Enumeration: Sendable {
        let first: Int
        let count: Int
    }

    /// One `ActivityAttributes` type: its name and the nodes of `attributes` and `content-state`.
    struct AttributesType: Sendable {
        let name: Bytes
        let attributes: Int
        let contentState: Int
    }

    let pool: [UInt8]
    let nodes: [Node]
    let properties: [Property]
    let objects: [Object]
    let rawValues: [Bytes]
    let enumerations: [Enumeration]
    let integerKinds: [IntegerKind]
    /// Each integer kind's bounds, as plain values (`integerKinds` holds names too, which cost a retain to read).
    let integerBounds: [(min: Int64, maxUnsigned: UInt64)]
    let floatingNames: [String]
    let types: [AttributesType]
    /// The `aps` keys, in ``QuietPushScan/APSKey`` order, and the alert keys the scan reads.
    let apsKeys: [Bytes]
    /// `aps`, the root's one key.
    let apsRoot: Bytes
    let alertKeys: [Bytes]
    let eventBytes: [Bytes]
    let events: [LiveActivityEvent]
    /// The bits of `title` and `body` among `alertKeys`.
    let alertTitleBit: UInt32
    let alertBodyBit: UInt32

    /// Shapes deeper than this are left to the full check (shapes are trees; this only bounds a pathological one).
    static let maxShapeDepth = 32

    /// The plan for `schema`; nil without types (the scan needs the schema to know every key).
    init?(schema: ActivitySchema?) {
        guard let schema, !schema.types.isEmpty else { return nil }
        var builder = Builder()
        types = schema.types.map { type in
            AttributesType(name: builder.bytes(type.name),
                           attributes: builder.compile(type.attributes, depth: 0),
                           contentState: builder.compile(type.contentState, depth: 0))
        }
        apsKeys = QuietPushScan.APSKey.allCases.map { builder.bytes($0.name) }
        apsRoot = builder.bytes("aps")
        alertKeys = ExpectedStrings.alertKeys.map { builder.bytes($0) }
        events = LiveActivityEvent.known
        eventBytes = events.map { builder.bytes($0.rawValue) }
        alertTitleBit = 1 << UInt32(ExpectedStrings.alertKeys.firstIndex(of: "title")!)
        alertBodyBit = 1 << UInt32(ExpectedStrings.alertKeys.firstIndex(of: "body")!)
        pool = builder.pool
        nodes = builder.nodes
        properties = builder.properties
        objects = builder.objects
        rawValues = builder.rawValues
        enumerations = builder.enumerations
        integerKinds = builder.integerKinds
        integerBounds = builder.integerKinds.map { ($0.min, $0.maxUnsigned) }
        floatingNames = builder.floatingNames
    }

    private struct Builder {
        var pool: [UInt8] = []
        var nodes: [Node] = []
        var properties: [Property] = []
        var objects: [Object] = []
        var rawValues: [Bytes] = []
        var enumerations: [Enumeration] = []
        var integerKinds: [IntegerKind] = []
        var floatingNames: [String] = []

        mutating func bytes(_ string: String) -> Bytes {
            let utf8 = Array(string.utf8)
            defer { pool += utf8 }
            return Bytes(start: pool.count, count: utf8.count)
        }

        mutating func add(_ node: Node) -> Int {
            nodes.append(node)
            return nodes.count - 1
        }

        mutating func compile(_ shape: ValueShape, depth: Int) -> Int {
            guard depth < QuietScanPlan.maxShapeDepth else { return add(.unsure) }
            switch shape {
            case .optional(let inner):
                // An absent key is the property's `required` flag; a null is left to the full check.
                return compile(inner, depth: depth + 1)
            case .bool: return add(.bool)
            case .string: return add(.string)
            case .integer(let kind):
                integerKinds.append(kind)
                return add(.integer(integerKinds.count - 1))
            case .floating(let name):
                floatingNames.append(name)
                return add(.floating(floatingNames.count - 1))
            case .date: return add(.date)
            case .url: return add(.url)
            case .uuid: return add(.uuid)
            case .array(let element), .set(let element):
                let elementNode = compile(element, depth: depth + 1)
                return add(.array(elementNode))
            case .object(let structure):
                return compileObject(structure, depth: depth)
            case .enumeration(let enumeration):
                guard enumeration.rawType == .string else { return add(.unsure) }
                let first = rawValues.count
                for enumCase in enumeration.cases {
                    guard let raw = enumCase.rawValue else { return add(.unsure) }
                    rawValues.append(bytes(raw))
                }
                enumerations.append(Enumeration(first: first, count: rawValues.count - first))
                return add(.stringEnum(enumerations.count - 1))
            case .character, .data, .dictionary, .customDate, .unresolved:
                return add(.unsure)
            }
        }

        /// Properties are compiled first, then laid out contiguously (a property's shape may add objects of its own).
        mutating func compileObject(_ structure: StructShape, depth: Int) -> Int {
            let keys = structure.properties.map(\.key)
            guard structure.properties.count <= 64, structure.conditionalKeys.isEmpty, Set(keys).count == keys.count,
                  keys.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C } })
            else { return add(.unsure) }
            let compiled = structure.properties.map { property in
                (property, compile(property.shape, depth: depth + 1))
            }
            let first = properties.count
            var requiredMask: UInt64 = 0
            for (offset, (property, node)) in compiled.enumerated() {
                properties.append(Property(key: bytes(property.key), node: node, required: property.isRequired))
                if property.isRequired { requiredMask |= 1 << UInt64(offset) }
            }
            objects.append(Object(first: first, count: compiled.count, requiredMask: requiredMask))
            return add(.object(objects.count - 1))
        }
    }
}
