import ActivityKit
import Foundation

struct FlightAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var gate: String?
        var delayMinutes: Optional<Int>
        var boardingAt: Date!
        var seat: String? = nil
        var status: String
    }
    var flightNumber: String
    var terminal: Optional<String>
}
