import ActivityKit
import Foundation

protocol BrandedActivity: ActivityAttributes {}

struct PickupAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var ready: Bool
    }
    var shop: String
}

struct ReturnAttributes: ActivityAttributes, Identifiable {
    var id: String { shop }
    struct ContentState: Codable, Hashable {
        var labelPrinted: Bool
    }
    var shop: String
}

struct LoyaltyAttributes: BrandedActivity {
    struct ContentState: Codable, Hashable {
        var points: Int
    }
    var member: String
}

struct NotAnActivity: Codable {
    var x: Int
}
