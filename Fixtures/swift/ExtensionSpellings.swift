import ActivityKit
import Foundation

// Every spelling of an extended type the Swift grammar allows (SE-0361 sugar, generic arguments, qualified
// names, where-clauses): none of them may stop the reader.
struct Player: Codable, Hashable {
    var name: String
    var score: Int
}

protocol Scored { var score: Int { get } }
extension Player: Scored {}

extension [Player] {
    var best: Player? { self.max(by: { $0.score < $1.score }) }
}

extension [String: Player] {
    var names: [String] { Array(keys) }
}

extension Player? {
    var label: String { self?.name ?? "—" }
}

extension Array<Player> {
    var total: Int { reduce(0) { $0 + $1.score } }
}

extension Swift.Array where Element == Player {
    var first3: [Player] { Array(prefix(3)) }
}

extension Dictionary<String, Int> {
    var sum: Int { values.reduce(0, +) }
}

extension Optional where Wrapped == Int {
    var orZero: Int { self ?? 0 }
}

extension Set<String> {}

extension Match.ContentState {
    var leader: Player? { players.best }
}

struct Match: ActivityAttributes {
    var venue: String
}

extension Match {
    struct ContentState: Codable, Hashable {
        var players: [Player]
        var round: Int
    }
}
