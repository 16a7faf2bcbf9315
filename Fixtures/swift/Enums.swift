import ActivityKit
import Foundation

enum Priority: Int, Codable, Hashable {
    case low          // 0
    case normal = 5
    case high         // 6
    case urgent       // 7
}

enum Phase: String, Codable, Hashable {
    case queued
    case inProgress = "in_progress"
    case done
}

enum Level: Int8, Codable, Hashable {
    case minus = -1, zero, one
}

enum Ratio: Double, Codable, Hashable {
    case half = 0.5
    case full = 1.0
}

enum Step: Codable, Hashable {
    case idle
    case moving(speed: Double, heading: Int)
    case paused(String, Int)
}

struct TaskAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var phase: Phase
        var priority: Priority
        var level: Level
        var ratio: Ratio
        var step: Step
        var mood: Mood

        enum Mood: String, Codable, Hashable { case calm = "😌", busy }
    }
    var taskName: String
}
