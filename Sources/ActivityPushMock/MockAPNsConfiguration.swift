import ActivityPushCore
import Foundation

/// How a `MockAPNsServer` listens and judges requests.
public struct MockAPNsConfiguration: Sendable {
    /// Address to bind (`127.0.0.1` by default; `localhost` means `127.0.0.1`).
    public var host: String
    /// TCP port; `0` lets the kernel pick a free one (read it back from `MockAPNsServer.port`).
    public var port: Int
    /// TLS with ALPN `h2` (certificates in `tlsDirectory`) or cleartext HTTP/2 with prior knowledge.
    public var transport: Transport
    /// How `authorization: bearer <JWT>` is judged.
    public var providerTokens: ProviderTokenPolicy
    /// The app's `ActivityAttributes` types (from `SwiftSourceReader.read(paths:)`) for device emulation; nil:
    /// attributes and content-state are not judged against a schema.
    public var schema: ActivitySchema?
    /// Append one NDJSON line per request to this file (created if absent).
    public var journalPath: String?
    /// Faults to inject from the start (see `MockFaultPlan`).
    public var faults: MockFaultPlan
    /// SETTINGS_MAX_CONCURRENT_STREAMS after a valid provider token was seen.
    public var maxConcurrentStreams: Int
    /// SETTINGS_MAX_CONCURRENT_STREAMS before it: 1, as APNs ("Sending notification requests to APNs"), so a
    /// client that opens many streams at once gets REFUSED_STREAM for the extra ones. Load tools that cannot
    /// wait for the second SETTINGS (h2load) may raise it.
    public var streamsBeforeProviderToken: Int
    /// Push-to-start budget per token: at most `pushToStartBudget` starts within `pushToStartWindowSeconds`
    /// (Apple DTS: "about 10" in a short time, not raisable; window undocumented).
    public var pushToStartBudget: Int
    public var pushToStartWindowSeconds: Double
    /// Close a connection that sent no byte for this many seconds and has no request pending (GOAWAY
    /// `{"reason":"IdleTimeout"}`, then close); nil or 0: never. Default 300.
    public var idleTimeoutSeconds: Double?
    /// Close a TLS connection that has not completed its handshake after this many seconds (default 10).
    public var handshakeTimeoutSeconds: Double
    /// Fall silent on a connection (never answer again) when a request arrives after this many seconds without
    /// any frame from the client — PING included —, as APNs has done since 2025 to long-idle connections
    /// without PING (node `apns2` issue #97). nil: always answer (default).
    public var silentAfterIdleSeconds: Double?
    /// Journal entries kept in memory for `journal()` / `GET /_mock/journal` (oldest dropped first).
    public var journalMemoryLimit: Int
    /// The clock (UNIX seconds) for JWT age, budgets and the journal; injectable for tests.
    public var clock: @Sendable () -> Double
    /// Called on the server thread after each APNs request is journaled (not for `/_mock`); keep it short and
    /// do not call back into the server from it.
    public var onRequest: (@Sendable (MockJournalEntry) -> Void)?
    /// Plays the app's token handlers against a `serve` (``MockTokenReporter``); nil: off.
    public var tokenReporter: MockTokenReporter?

    public enum Transport: Sendable, Equatable {
        /// TLS 1.2+ with ALPN `h2`; `ca.pem`, `server.pem`, `server-key.pem` generated in `directory` when absent.
        case tls(directory: String)
        /// Cleartext HTTP/2, prior knowledge (`curl --http2-prior-knowledge`).
        case h2c
    }

    public enum ProviderTokenPolicy: Sendable, Equatable {
        /// Any non-empty bearer token counts as valid (no signature check).
        case acceptAny
        /// ES256 check against the public key of an `AuthKey_<KEYID>.p8` file: `kid` must equal `keyID`,
        /// `iss` must equal `teamID`, `iat` no older than 1 hour.
        case verify(keyPath: String, keyID: String, teamID: String)
    }

    public init(host: String = "127.0.0.1", port: Int = 0, transport: Transport = .h2c,
                providerTokens: ProviderTokenPolicy = .acceptAny, schema: ActivitySchema? = nil,
                journalPath: String? = nil, faults: MockFaultPlan = MockFaultPlan(), maxConcurrentStreams: Int = 1000,
                streamsBeforeProviderToken: Int = 1,
                pushToStartBudget: Int = 10, pushToStartWindowSeconds: Double = 3600, journalMemoryLimit: Int = 50_000,
                idleTimeoutSeconds: Double? = 300, handshakeTimeoutSeconds: Double = 10, silentAfterIdleSeconds: Double? = nil,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                onRequest: (@Sendable (MockJournalEntry) -> Void)? = nil, tokenReporter: MockTokenReporter? = nil) {
        self.host = host
        self.port = port
        self.transport = transport
        self.providerTokens = providerTokens
        self.schema = schema
        self.journalPath = journalPath
        self.faults = faults
        self.maxConcurrentStreams = maxConcurrentStreams
        self.streamsBeforeProviderToken = streamsBeforeProviderToken
        self.pushToStartBudget = pushToStartBudget
        self.pushToStartWindowSeconds = pushToStartWindowSeconds
        self.journalMemoryLimit = journalMemoryLimit
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.handshakeTimeoutSeconds = handshakeTimeoutSeconds
        self.silentAfterIdleSeconds = silentAfterIdleSeconds
        self.clock = clock
        self.onRequest = onRequest
        self.tokenReporter = tokenReporter
    }
}
