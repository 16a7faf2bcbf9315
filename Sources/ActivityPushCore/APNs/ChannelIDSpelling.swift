import Foundation

/// How a broadcast channel id is spelled: the standard, padded base64 APNs answers in `apns-channel-id` when a
/// channel is created (Apple, "Sending channel management requests to APNs", spec §2.4). Shared by the validator
/// (`input-push-channel`) and the channel registry (ids refused before anything is sent to Apple).
package enum ChannelIDSpelling {
    /// True for a non-empty, padded standard base64 string.
    package static func isBase64(_ text: String) -> Bool {
        guard !text.isEmpty, text.count % 4 == 0 else { return false }
        return Data(base64Encoded: text) != nil
    }
}
