import ActivityKit
import Foundation

enum Team: String, Codable, Hashable { case home, away }

struct Goal: Codable, Hashable {
    var minute: Int
    var team: Team
}

struct MatchdayAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var goals: [Goal]
        var scorers: Array<String>
        var grid: [[Int]]
        var standings: [String: Int]
        var lookup: Dictionary<String, [Double]>
        var tags: Set<String>
        var byMinute: [Int: String]
        var byTeam: [Team: Int]
    }
    var league: String
}
