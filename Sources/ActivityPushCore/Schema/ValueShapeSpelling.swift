extension ValueShape {
    /// The type as a person writes it in Swift (`Double`, `Int`, `[String: Int]`, `Date?`), for messages and fixes
    /// where only the shape is known (an enum case's associated values); never a Swift value dump.
    package var swiftSpelling: String {
        switch self {
        case .bool: return "Bool"
        case .string: return "String"
        case .character: return "Character"
        case .integer(let kind): return kind.name
        case .floating(let name): return name
        case .date, .customDate: return "Date"
        case .url: return "URL"
        case .uuid: return "UUID"
        case .data: return "Data"
        case .array(let element): return "[\(element.swiftSpelling)]"
        case .set(let element): return "Set<\(element.swiftSpelling)>"
        case .dictionary(let key, let value): return "[\(key.swiftSpelling): \(value.swiftSpelling)]"
        case .optional(let wrapped): return wrapped.swiftSpelling + "?"
        case .object(let shape): return shape.name
        case .enumeration(let shape): return shape.name
        case .unresolved(let typeName, _): return typeName
        }
    }
}
