import ActivityKit
import Foundation

enum CourierVehicle: String, Codable, Hashable {
    case bike, scooter, car
    case cargoBike = "cargo-bike"
}

struct StopInfo: Codable, Hashable {
    var label: String
    var address: String
    var etaMinutes: Int
    var done: Bool
}

struct DeliveryActivityAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var status: String
        var courierName: String
        var vehicle: CourierVehicle
        var etaMinutes: Int
        var progress: Double
        var expectedAt: Date
        var stops: [StopInfo]
        var note: String?
        var trackingURL: URL?
    }

    var orderNumber: String
    var restaurantName: String
    var customerFirstName: String
    var itemCount: Int
    var placedAt: Date
    var orderID: UUID
}
