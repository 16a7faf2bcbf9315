import Foundation

// #DECOY codable declaration
struct ApsBody: Codable {
    var event: String
    var timestamp: Int
    var contentState: [String: Double]
}

enum Pushes {
    static func update(level: Double) -> [String: Any] {
        let body: [String: Any] = [ // #SITE update-dict
            "aps": [
                "event": "update",
                "timestamp": Int(Date().timeIntervalSince1970),
                "content-state": ["level": level],
            ],
        ] // #END
        return body
    }

    static func start(harbor: String) -> [String: Any] {
        [ // #SITE start-dict
            "aps": [
                "event": "start",
                "timestamp": Int(Date().timeIntervalSince1970),
                "attributes-type": "TideAttributes",
                "attributes": ["harbor": harbor],
                "content-state": ["level": 0.1],
            ],
        ] // #END
    }
}
