import ActivityKit
import Foundation

@propertyWrapper
public struct Clamped: Codable, Hashable {
    public var value: Int
    public var wrappedValue: Int {
        get { value }
        set { value = min(max(newValue, 0), 100) }
    }
    public init(wrappedValue: Int) { value = wrappedValue }
}

@available(iOS 16.1, *)
public struct ChargingAttributes: ActivityAttributes, Sendable {
    public struct ContentState: Codable & Hashable, Sendable {
        @available(iOS 17.0, *)
        public var percent: Int
        @Clamped public var target: Int
        public private(set) var chargerName: String
        nonisolated(unsafe) public var watts: Double
        @MainActor @preconcurrency public static var shared: Int = 0
    }

    @available(*, deprecated, message: "use stationID")
    public internal(set) var stationName: String
    fileprivate var stationID: String
    open class Unused {}
}

struct SpelledOut: Decodable, Encodable, Hashable {
    var note: String
}

@available(iOS 16.2, *)
struct ParkingMeterAttributes: ActivityAttributes {
    struct ContentState: Swift.Codable, Hashable {
        var extra: SpelledOut
    }
    var meter: String
}
