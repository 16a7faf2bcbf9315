/// Why a provider token could not be made: a ``Kind`` to branch on, the key file or field concerned, the reason
/// and the fix, kept apart.
///
/// Thrown while loading the `.p8` key (unreadable file, not PEM PKCS#8, not P-256, bad Key ID or Team ID) and, in
/// practice never, while signing. ``description`` joins the parts as the CLI prints them:
/// `AuthKey_ABC123DEFG.p8: not an EC P-256 key; use the ES256 .p8 key …`. Never contains key bytes.
public struct ProviderTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public let rawValue: String
        /// A kind by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// `unreadable-key-file`: the `.p8` file does not exist or cannot be read; ``source`` is its path.
        public static let unreadableKeyFile = Kind(rawValue: "unreadable-key-file")
        /// `bad-key-id`: the Key ID (JWT header `kid`) is empty or not letters and digits; ``field`` is `key-id`.
        public static let badKeyID = Kind(rawValue: "bad-key-id")
        /// `bad-team-id`: the Team ID (JWT claim `iss`) is empty or not letters and digits; ``field`` is `team-id`.
        public static let badTeamID = Kind(rawValue: "bad-team-id")
        /// `not-pkcs8`: the bytes hold no `-----BEGIN PRIVATE KEY-----` block (Apple ships `.p8` keys as PEM PKCS#8).
        public static let notPKCS8 = Kind(rawValue: "not-pkcs8")
        /// `unparsable-key`: a PEM block is there but OpenSSL cannot read a private key from it.
        public static let unparsableKey = Kind(rawValue: "unparsable-key")
        /// `not-p256`: the key is not an EC P-256 key, so it cannot sign ES256 (spec §2.5).
        public static let notP256 = Kind(rawValue: "not-p256")
        /// `signing-failed`: OpenSSL failed while signing with a key that loaded (out of memory).
        public static let signingFailed = Kind(rawValue: "signing-failed")
    }

    /// What went wrong.
    public var kind: Kind
    /// The key file's path, or `key` for PEM bytes given directly; nil when the key is not the problem.
    public var source: String?
    /// The field at fault (`key-id`, `team-id`), when it is one.
    public var field: String?
    /// What is wrong, without the source or the fix.
    public var reason: String
    /// What to do, when there is something to do.
    public var fix: String?

    /// An error; `source` prefixes the message as `source: `.
    package init(_ kind: Kind, source: String? = nil, field: String? = nil, _ reason: String, fix: String? = nil) {
        self.kind = kind
        self.source = source
        self.field = field
        self.reason = reason
        self.fix = fix
    }

    /// `[source: ]reason[; fix]` — one line naming the key file or field and the fix.
    public var description: String {
        (source.map { "\($0): " } ?? "") + reason + (fix.map { "; \($0)" } ?? "")
    }
}
