import ActivityKit
import Foundation
#if canImport(CoreGraphics)
import CoreGraphics
#endif

struct SensorAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var on: Bool
        var name: String
        var initial: Character
        var a: Int
        var b: Int8
        var c: Int16
        var d: Int32
        var e: Int64
        var f: UInt
        var g: UInt8
        var h: UInt16
        var i: UInt32
        var j: UInt64
        var k: Double
        var l: Float
        var m: CGFloat
        var n: TimeInterval
        var o: Decimal
        var at: Date
        var link: URL
        var id: UUID
        var blob: Data
        var qualified: Foundation.Date
        var swiftInt: Swift.Int
    }
    var sensorID: UUID
}
