/// What the mock knows about device tokens: the ones unregistered (answered `410 Unregistered`) and the
/// bundle each token was first used with (a token belongs to one app: `DeviceTokenNotForTopic` otherwise).
/// Keys are lowercase hex.
struct DeviceRegistry {
    /// Token → unregistration time in UNIX milliseconds (the `timestamp` of the 410 answer).
    private var unregisteredAt: [String: Int64] = [:]
    private var bundleByToken: [String: String] = [:]

    mutating func unregister(_ token: String, atMilliseconds milliseconds: Int64) {
        unregisteredAt[token.lowercased()] = milliseconds
    }

    func unregistrationTime(of token: String) -> Int64? { unregisteredAt[token] }

    func bundle(of token: String) -> String? { bundleByToken[token] }

    mutating func bind(_ token: String, to bundle: String) { bundleByToken[token] = bundle }
}
