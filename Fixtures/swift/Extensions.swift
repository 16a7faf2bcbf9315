import ActivityKit
import Foundation

// The conformance, the ContentState and a helper type all arrive through extensions.
struct WorkoutAttributes {
    var workoutName: String
    var plannedMinutes: Int
}

extension WorkoutAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        var heartRate: Int
        var zone: Zone
        var elapsed: TimeInterval
    }
}

extension WorkoutAttributes.ContentState {
    enum Zone: String, Codable, Hashable {
        case easy, moderate, hard
    }

    var isHard: Bool { zone == .hard }
    static let idle = WorkoutAttributes.ContentState(heartRate: 60, zone: .easy, elapsed: 0)
}

extension WorkoutAttributes {
    var title: String { workoutName.uppercased() }
    func minutes() -> Int { plannedMinutes }
}

// `typealias ContentState = …` pointing at a top-level type.
struct TimerState: Codable, Hashable {
    var remaining: Int
    var paused: Bool
}

struct KitchenTimerAttributes: ActivityAttributes {
    typealias ContentState = TimerState
    var dish: String
}
