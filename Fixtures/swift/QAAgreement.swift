import ActivityKit
import Foundation

// Shapes an adversarial test found misread (issue 13 QA), each checked against JSONDecoder by DecoderOracleTests.

/// ÷ 1000.0 of a decoded Double: UNIX milliseconds.
struct MillisDouble: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try c.decode(Double.self) / 1000.0)
    }
}

/// × 0.001 of a decoded Double: UNIX milliseconds.
struct MillisTimes: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try c.decode(Double.self) * 0.001)
    }
}

/// Keyed enum whose case renames its associated value (SE-0295 per-case CodingKeys).
enum Light: Codable, Hashable {
    case off
    case blinking(rate: Double, times: Int)
    enum BlinkingCodingKeys: String, CodingKey {
        case rate = "hz"
        case times
    }
}

struct ScoreState: Codable, Hashable {
    var homeScore: Int
    var awayScore: Int
}

/// CodingKeys declared in an extension that names the content state through a typealias.
struct ScoreAttributes: ActivityAttributes {
    typealias ContentState = ScoreState
    var venue: String
}

extension ScoreAttributes.ContentState {
    enum CodingKeys: String, CodingKey {
        case homeScore = "home"
        case awayScore = "away"
    }
}

/// ISO 8601 with fractional seconds: the fraction is required.
struct FractionalISODate: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let parsed = formatter.date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601 with fractions"))
        }
        date = parsed
    }
}

/// Milliseconds decoded as Int64: fractions and values beyond Int64 fail.
struct MillisInt: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: TimeInterval(try c.decode(Int64.self)) / 1000)
    }
}

/// Float16 has no RawRepresentable Codable default: the synthesized keyed form ({"low": {}}) is used.
enum HalfStep: Float16, Codable, Hashable {
    case low = 0.5
    case high = 2
}

/// UInt64 raw values above Int64.max, compared exactly (hex with separators included).
enum Tier: UInt64, Codable, Hashable {
    case top = 0xFFFF_FFFF_FFFF_FFFF
    case mid = 9007199254740993
}

/// Float raw values compared after rounding to Float (0.10000000149011612 is `.slow`).
enum FanSpeed: Float, Codable, Hashable {
    case slow = 0.1
    case fast = 2.5
}

/// Decimal's own range (exponent −128…127), a UInt8-keyed dictionary (a flat array with range-checked keys).
struct NumberEdges: Codable, Hashable {
    var amount: Decimal
    var bytes: [UInt8: String]
    var step: HalfStep
    var tier: Tier
    var speed: FanSpeed
}

struct LampAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var light: Light
        var since: MillisDouble
        var until: MillisTimes
        var at: FractionalISODate
        var integerMillis: MillisInt
        var edges: NumberEdges
    }
    var lampID: String
}
