/// An APNs device token — a push-to-start token or an activity's update token — as the app's token data
/// printed in hex. Checked once, here: non-empty, an even number of `0-9a-f` characters (either case, kept
/// lowercase). Apple says not to assume a length, so none is checked.
///
/// Its ``description`` is redacted, so a token printed into a log or an error shows only its ends.
/// Source: Apple, "Sending notification requests to APNs" (`/3/device/<device token>`, hex; token length varies).
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as lowercase hex, as it goes into `/3/device/<token>`.
    public let hex: String

    /// Checks `text` and keeps it lowercase.
    /// - Throws: ``DeviceTokenError`` (its message shows the token redacted) when `text` is not hex.
    public init(hex text: String) throws(DeviceTokenError) {
        guard Self.isHex(text) else { throw DeviceTokenError(redactedToken: Self.redacted(text)) }
        hex = text.lowercased()
    }

    /// True when `text` is a device token: non-empty, even length, `0-9`, `a-f`, `A-F` only.
    public static func isHex(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count % 2 == 0 && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
        }
    }

    /// This token for logs: its first and last 4 characters (`80a1…9f3c`).
    public var redacted: String { Self.redacted(hex) }
    /// The redacted form, so interpolating a token never prints it whole.
    public var description: String { redacted }

    /// Any token-like text for logs and errors: the first and last 4 characters, or only `*` when it has 12
    /// characters or fewer (too short to show any of it).
    public static func redacted(_ text: String) -> String {
        text.count <= 12 ? String(repeating: "*", count: text.count) : "\(text.prefix(4))…\(text.suffix(4))"
    }

    /// Any token-like text as the mock's journal records it: the first 8 characters and `…` (text of 8
    /// characters or fewer is kept). Device-log pairing compares the hex digits both sides show.
    public static func journalPrefix(_ text: String) -> String {
        text.count <= 8 ? text : String(text.prefix(8)) + "…"
    }
}

/// A device token was not hex.
public struct DeviceTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending text, redacted (``DeviceToken/redacted(_:)``).
    public var redactedToken: String
    /// What to do about it.
    public static let fix = "give the app's token data printed as hex (an even number of 0-9a-f characters)"
    /// `device token '<redacted>' is not hex (…)`.
    public var description: String {
        "device token '\(redactedToken)' is not hex (expected an even number of 0-9a-f characters, as the app's token data printed in hex)"
    }
}
