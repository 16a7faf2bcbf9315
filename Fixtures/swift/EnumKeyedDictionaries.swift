import ActivityKit
import Foundation

// Dictionaries keyed by enums that adopt CodingKeyRepresentable: JSONEncoder writes them as JSON objects keyed by
// the raw values (String raw values as written, Int raw values as decimal text); JSONDecoder refuses any other key.
enum ShiftStage: String, Codable, Hashable, CodingKeyRepresentable {
    case prep, service
    case cleanUp = "clean-up"
}

enum Priority: Int, Codable, Hashable, CodingKeyRepresentable {
    case low = 1, high = 2
}

struct KitchenShiftAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var minutesByStage: [ShiftStage: Int]
        var labels: [Priority: String]
        var notes: [ShiftStage: [String]]?
    }

    var kitchen: String
}
