import ActivityKit
import Foundation

// CodingKeys: renamed keys, several cases on one line, a property left out (it has a default, so it is
// not decoded at all).
struct DeliveryAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        var courierName: String
        var etaMinutes: Int
        var stopsAway: Int
        var lastRefresh: Double = 0

        enum CodingKeys: String, CodingKey {
            case courierName = "courier_name"
            case etaMinutes = "eta", stopsAway
        }
    }

    var orderID: String
    var storeName: String

    private enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case storeName
    }
}
