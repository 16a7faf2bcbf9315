/// APNs request headers, names stored lowercase (HTTP/2 requires it), order kept.
public struct APNsHeaders: Sendable, Hashable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    public init(_ pairs: [(String, String)]) {
        for (n, v) in pairs { self[n] = v }
    }

    /// Case-insensitive lookup; setting nil removes the header.
    public subscript(name: String) -> String? {
        get {
            let n = name.lowercased()
            return fields.first(where: { $0.name == n })?.value
        }
        set {
            let n = name.lowercased()
            if let i = fields.firstIndex(where: { $0.name == n }) {
                if let newValue { fields[i].value = newValue } else { fields.remove(at: i) }
            } else if let newValue {
                fields.append((n, newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: APNsHeaders, b: APNsHeaders) -> Bool {
        a.fields.elementsEqual(b.fields, by: { $0.name == $1.name && $0.value == $1.value })
    }
    public func hash(into h: inout Hasher) {
        for f in fields { h.combine(f.name); h.combine(f.value) }
    }

    public var dictionary: [String: String] {
        var d: [String: String] = [:]
        for f in fields { d[f.name] = f.value }
        return d
    }
}
