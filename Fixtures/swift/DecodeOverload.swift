import ActivityKit

// A KeyedDecodingContainer.decode(_:forKey:) overload (the @DefaultValue idiom) changes how DefaultZero-typed
// properties decode (absent → 0): the reader must not model `count` as a required key (issue 13 QA, item 5).
import Foundation

@propertyWrapper
struct DefaultZero: Codable, Hashable {
    var wrappedValue: Int
    init(wrappedValue: Int) { self.wrappedValue = wrappedValue }
    init(from decoder: Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Int.self)
    }
}

extension KeyedDecodingContainer {
    func decode(_ type: DefaultZero.Type, forKey key: Key) throws -> DefaultZero {
        try decodeIfPresent(type, forKey: key) ?? DefaultZero(wrappedValue: 0)
    }
}

@propertyWrapper
struct Plain: Codable, Hashable {
    var wrappedValue: Int
}

struct DefaultsAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        @DefaultZero var count: Int
        @Plain var p: Int
    }
    var name: String
}
