import ActivityKit
import Foundation

// `let` with an initial value is not decoded; `var` with one is decoded AND required. Computed, lazy,
// static and class members are not keys; property observers keep a property stored.
final class RideAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var driverName: String
        var count = 0
        var ratio = 0.5
        var label = "car"
        var isLate = false
        var pickupID = UUID()
        let schemaVersion = 3
        let kind: String
        var score: Int = 0 {
            willSet { print("will \(newValue)") }
            didSet { if score > 10 { score = 10 } }
        }
        lazy var cache: [String] = { ["a", "b"] }()
        var summary: String { "\(driverName) \(count)" }
        var detail: String {
            get { driverName }
            set { driverName = newValue }
        }
        static let preview = ContentState(driverName: "Ana", kind: "x")
        static var counter = 0

        init(driverName: String, kind: String) {
            self.driverName = driverName
            self.kind = kind
        }

        func describe() -> String {
            let local = "{ not a brace }"
            return local + driverName
        }

        mutating func bump() { count += 1 }
    }

    let rideID: String
    var createdAt = Date()
    class var brand: String { "Ride" }
    static func make() -> RideAttributes { RideAttributes(rideID: "1") }

    init(rideID: String) { self.rideID = rideID }
}
