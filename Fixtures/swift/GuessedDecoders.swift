import ActivityKit
import Foundation

// Custom single-value decoders whose meaning the reader must not guess (issue 13 QA, item 1). Each one is reported
// unresolved with the reason; only the exact shapes (value as decoded, ÷ 1000 → milliseconds) are read.

struct SlashThousandDouble: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try c.decode(Double.self) / 1000.0)
    }
}

struct TimesMilli: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try c.decode(Double.self) * 0.001)
    }
}

struct SlashOneEThree: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSince1970: try c.decode(Double.self) / 1e3)
    }
}

struct ReferenceMillis: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSinceReferenceDate: try c.decode(Double.self) / 1000)
    }
}

struct ShiftedEpoch: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        date = Date(timeIntervalSinceReferenceDate: try c.decode(Double.self) + 978307200)
    }
}

struct StringNumber: Codable, Hashable {
    var value: Double
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        value = Double(try c.decode(String.self)) ?? 0
    }
}

struct LenientInt: Codable, Hashable {
    var value: Int
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        value = (try? c.decode(Int.self)) ?? 0
    }
}

struct DayOnly: Codable, Hashable {
    var date: Date
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd"
        guard let d = f.date(from: try c.decode(String.self)) else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "x") }
        date = d
    }
}

struct GuessAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var slash: SlashThousandDouble
        var times: TimesMilli
        var exp: SlashOneEThree
        var refMillis: ReferenceMillis
        var shifted: ShiftedEpoch
        var stringNumber: StringNumber
        var lenient: LenientInt
        var day: DayOnly
    }
    var id: String
}
