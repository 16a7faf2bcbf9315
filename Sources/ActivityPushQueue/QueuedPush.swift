import ActivityPushAPNs
import ActivityPushCore

/// A push to store: the built request (headers and body bytes exactly as the builder made them, `apns-id` set)
/// and where and how to send it. Made by ``Outbox/rows(for:to:environment:credential:notBeforeUnixSeconds:)``.
public struct NewPush: Sendable, Hashable {
    /// The validated request; its body bytes are stored as they are.
    public var request: PushRequest
    /// Stored headers: the request's headers plus `apns-collapse-id` for a start (see ``Outbox``).
    public var headers: APNsHeaders
    /// Hex device token (push-to-start or update token), or the channel id for a broadcast.
    public var target: String
    /// The APNs environment it is for; its ``APNsEnvironment/name`` (`sandbox`, `production`) is what the queue
    /// stores and what a worker started with the same environment claims.
    public var environment: APNsEnvironment
    /// Name of the signing credential (auth key) a worker must hold to send it.
    public var credential: String
    /// Not sent before this time, UNIX seconds.
    public var notBeforeUnixSeconds: Double

    /// `aps.timestamp` of the body (UNIX seconds), used to decide which update is newer; 0 when absent.
    public var apsTimestamp: Int64

    /// Makes a row; each parameter sets the property of the same name. `apsTimestamp` nil: read from the body.
    public init(request: PushRequest, headers: APNsHeaders, target: String, environment: APNsEnvironment, credential: String,
                notBeforeUnixSeconds: Double, apsTimestamp: Int64? = nil) {
        self.request = request
        self.headers = headers
        self.target = target
        self.environment = environment
        self.credential = credential
        self.notBeforeUnixSeconds = notBeforeUnixSeconds
        self.apsTimestamp = apsTimestamp ?? Self.apsTimestamp(of: request.body)
    }

    /// The stored `apns-id` header (set by ``Outbox``); empty when the headers have none.
    public var apnsID: String { headers.apnsID ?? "" }

    /// `aps.timestamp` (UNIX seconds) read from a body; 0 when absent or not an integer.
    public static func apsTimestamp(of body: [UInt8]) -> Int64 {
        JSONReader.read(body).root?["aps"]?["timestamp"]?.value.numberLexeme.flatMap { Int64($0) } ?? 0
    }
}

/// A push read back from the queue: the stored bytes and routing, as claimed by a worker.
public struct StoredPush: Sendable, Hashable {
    /// The row id, as returned by ``QueueStore/enqueue(_:nowUnixSeconds:)``.
    public var id: Int64
    /// The app's bundle id (the `apns-topic` is `<bundle id>.push-type.liveactivity`).
    public var bundleID: String
    /// The ActivityKit event of the body: `start`, `update` or `end`.
    public var event: LiveActivityEvent
    /// The stored request headers (`apns-push-type`, `apns-topic`, `apns-id`, …).
    public var headers: APNsHeaders
    /// The stored JSON body bytes, exactly as the builder made them.
    public var body: [UInt8]
    /// Hex device token, or the channel id for a broadcast.
    public var target: String
    /// True when ``target`` is a broadcast channel id (sent to `/4/broadcasts/apps/<bundle id>`).
    public var isBroadcast: Bool
    /// The environment it was enqueued for, read back from its stored name (``APNsEnvironment/stored(_:)``).
    public var environment: APNsEnvironment
    /// The credential name a worker must hold to send it.
    public var credential: String
    /// The push's `apns-id`, the same on every attempt.
    public var apnsID: String
    /// The state when read (``PushState/inflight`` for a claimed push).
    public var state: PushState
    /// Attempts made so far, counting the claim that returned this push.
    public var attempts: Int
    /// Not sent before this time, UNIX seconds (moved forward by each retry).
    public var notBeforeUnixSeconds: Double
    /// When it was enqueued, UNIX seconds.
    public var enqueuedUnixSeconds: Double
    /// HTTP status of the last answer; nil before the first or when none came.
    public var lastStatus: Int?
    /// `reason` of the last answer (Apple's spelling) or the queue's own label; nil when none.
    public var lastReason: String?
    /// Claimed again because an earlier claim's lease expired (its worker crashed or hung holding it): APNs
    /// may have processed that earlier attempt.
    public var reclaimedAfterExpiredLease = false
    /// Set at claim time for an update overtaken by a newer update or end for its token (that push's id).
    public var supersededBy: Int64?

    /// The stored push as a ``PushRequest``, re-checked by the validator (never re-assembled).
    /// - Throws: ``PushBuildError`` when the stored bytes are no longer a valid push.
    public func restore() throws(PushBuildError) -> PushRequest {
        try PushRequest(bundleID: bundleID, storedHeaders: headers, body: body)
    }

    /// The token shown in logs and the journal: first and last 4 characters.
    public var redactedTarget: String { DeviceToken.redacted(target) }
}

extension JSONValue {
    var numberLexeme: String? {
        if case .number(let n) = self { return n.lexeme }
        return nil
    }
}

