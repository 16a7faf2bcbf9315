import ActivityKit
import Foundation

// Decoders the reader cannot read, declared in activity-push.units next to this file.

/// Decoded from a keyed container with a conversion: declared `keyed`, with its converted property declared.
struct HomeAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var state: String
        var lastChanged: Date

        enum CodingKeys: String, CodingKey {
            case state
            case lastChanged = "last_changed"
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            state = try container.decode(String.self, forKey: .state)
            lastChanged = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .lastChanged))
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try container.encode(lastChanged.timeIntervalSince1970, forKey: .lastChanged)
        }
    }
    var entityID: String
    var expiresAt: Deadline
}

/// A value decoded by a helper the reader does not follow: declared `unix-seconds`.
struct Deadline: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        date = try Self.read(decoder)
    }
    private static func read(_ decoder: Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected UNIX seconds"))
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date.timeIntervalSince1970)
    }
}
