import ActivityKit
import Foundation
import CoreLocation

// Each property here is something the reader must not guess.
struct Node: Codable, Hashable {
    var name: String
    var children: [Node]
}

struct Box<T: Codable & Hashable>: Codable, Hashable {
    var value: T
}

class BaseInfo: Codable {
    var id: String = ""
}

final class DerivedInfo: BaseInfo {
    var extra: Int = 0
}

struct Custom: Codable, Hashable {
    var raw: Int
}

extension Custom {
    init(from decoder: Decoder) throws {
        raw = try decoder.singleValueContainer().decode(Int.self)
    }
}

struct TrackerAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var where_: CLLocationCoordinate2D
        var tree: Node
        var boxed: Box<Int>
        var custom: Custom
        var derived: DerivedInfo
        var pair: [Custom: Int]
        var inferred = makeDefault()
    }
    var trackerID: String
}

func makeDefault() -> Int { 0 }
