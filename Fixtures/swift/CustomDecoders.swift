import ActivityKit
import Foundation

// Custom decoders of the common single-value shape: the reader reads what they decode.

/// Customer.io-style wrapper: UNIX seconds in JSON.
struct EpochSecondsDate: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try container.decode(Double.self))
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date.timeIntervalSince1970)
    }
}

struct EpochMillisecondsDate: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let milliseconds = try container.decode(Int64.self)
        date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Int64(date.timeIntervalSince1970 * 1000))
    }
}

struct ISODate: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = ISO8601DateFormatter().date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601"))
        }
        date = parsed
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(ISO8601DateFormatter().string(from: date))
    }
}

struct Code: Codable, Hashable {
    var raw: String
    init(from decoder: Decoder) throws {
        raw = try decoder.singleValueContainer().decode(String.self)
    }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(raw)
    }
}

struct CourierAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var departedAt: EpochSecondsDate
        var eta: EpochMillisecondsDate?
        var updated: ISODate
        var gate: Code
    }
    var route: Code
}
