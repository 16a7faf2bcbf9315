#if canImport(ActivityKit)
import ActivityKit
import Foundation

struct StreamAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var viewers: Int
        #if os(iOS)
        var pipActive: Bool
        #elseif os(macOS)
        var windowCount: Int
        #else
        var fallback: String?
        #endif
        var title: String
    }
    var channel: String
    #if DEBUG
    var debugTag: String
    #endif
}
#endif
