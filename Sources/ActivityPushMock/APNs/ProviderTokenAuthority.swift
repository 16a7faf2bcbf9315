import ActivityPushCore

/// APNs token authentication per connection (Apple, "Establishing a token-based connection to APNs"): a valid
/// token unlocks concurrency; replacing it within 20 minutes is `TooManyProviderTokenUpdates`; an `iat` older
/// than an hour is `ExpiredProviderToken`. With no verifier any non-empty bearer token is valid.
struct ProviderTokenAuthority {
    struct Result {
        var failure: (status: Int, reason: APNsReason)?
        var authenticated = false
    }

    private struct ConnectionToken {
        var token: String?
        var since: Double = 0
        var issuedAt: Double = 0
    }

    private let verifier: ProviderTokenVerifier?
    private var connections: [Int: ConnectionToken] = [:]

    init(verifier: ProviderTokenVerifier?) { self.verifier = verifier }

    /// Judges the `authorization` header of `request` at `now` (UNIX seconds).
    mutating func authenticate(_ request: MockRequest, now: Double) -> Result {
        guard let header = request.header("authorization"), !header.isEmpty else {
            return Result(failure: (403, .missingProviderToken))
        }
        guard header.lowercased().hasPrefix("bearer ") else { return Result(failure: (403, .invalidProviderToken)) }
        let jwt = String(header.utf8.dropFirst(7).drop(while: { $0 == 32 || $0 == 9 }))!
        guard !jwt.isEmpty else { return Result(failure: (403, .missingProviderToken)) }
        var connection = connections[request.connectionID] ?? ConnectionToken()
        if connection.token == jwt {
            if verifier != nil, now - connection.issuedAt > 3600 { return Result(failure: (403, .expiredProviderToken)) }
            return Result(authenticated: true)
        }
        var issuedAt = now
        if let verifier {
            switch verifier.verify(jwt, now: now) {
            case .invalid(let reason): return Result(failure: (403, reason))
            case .valid(let iat): issuedAt = iat
            }
        }
        if connection.token != nil, now - connection.since < 20 * 60 {
            return Result(failure: (429, .tooManyProviderTokenUpdates))
        }
        connection.token = jwt
        connection.since = now
        connection.issuedAt = issuedAt
        connections[request.connectionID] = connection
        return Result(authenticated: true)
    }

    mutating func connectionClosed(_ id: Int) { connections[id] = nil }
}
