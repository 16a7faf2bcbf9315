import ActivityKit
import Foundation

typealias Minutes = Int
typealias Celsius = Double
typealias Temperature = Celsius
typealias Readings = [Temperature]

struct OvenAttributes: ActivityAttributes {
    typealias Label = String
    struct ContentState: Codable, Hashable {
        var remaining: Minutes
        var temperature: Temperature
        var history: Readings
        var label: Label
        var unit: OvenAttributes.Unit
    }
    enum Unit: String, Codable, Hashable { case c, f }
    var model: Label
}
