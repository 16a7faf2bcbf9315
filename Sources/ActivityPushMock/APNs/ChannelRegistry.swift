import ActivityPushCore
import Foundation

/// Broadcast channels per app (bundle ID), in creation order, with their message-storage-policy
/// (0 "No Message Stored", 1 "Most Recent Message Stored"; Apple, "Sending channel management requests to APNs").
struct ChannelRegistry {
    struct Channel: Equatable {
        var id: String
        var storagePolicy: Int
    }

    /// Channels per app per environment (spec §2.4).
    static let limit = APNsLimits.channelsPerAppPerEnvironment

    private var channelsByBundle: [String: [Channel]] = [:]

    func channels(of bundle: String) -> [Channel] { channelsByBundle[bundle] ?? [] }

    func channel(_ id: String, of bundle: String) -> Channel? { channelsByBundle[bundle]?.first { $0.id == id } }

    func isFull(_ bundle: String) -> Bool { (channelsByBundle[bundle]?.count ?? 0) >= Self.limit }

    /// Creates a channel with a random 16-byte base64 ID (as APNs's look).
    mutating func create(in bundle: String, storagePolicy: Int) -> Channel {
        let raw = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let channel = Channel(id: Data(raw).base64EncodedString(), storagePolicy: storagePolicy)
        channelsByBundle[bundle, default: []].append(channel)
        return channel
    }

    /// Deletes a channel; false when it does not exist.
    mutating func delete(_ id: String, of bundle: String) -> Bool {
        guard let index = channelsByBundle[bundle]?.firstIndex(where: { $0.id == id }) else { return false }
        channelsByBundle[bundle]?.remove(at: index)
        return true
    }
}
