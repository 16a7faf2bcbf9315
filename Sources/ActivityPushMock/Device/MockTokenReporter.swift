import ActivityPushCore
import Foundation
import Synchronization

/// The mock playing the app's token handlers (`mock-apns --report-tokens-to URL [--intake-token T]`), for demos
/// and tests of `serve`'s lifecycle:
///
/// - `POST /_mock/devices/<deviceID>` (body `{"attributesType": "T"}`, or ``registerDevice(_:attributesType:)``)
///   makes a push-to-start token for that device and posts it to `URL/v1/tokens` as the app's
///   `Activity<T>.pushToStartTokenUpdates` handler would (`{"kind": "push-to-start", "deviceID", "attributesType",
///   "token", "deviceSecret"}`); the mock remembers which device the token belongs to, and gives each device a
///   secret (32 random bytes as hex) at its first registration, as an app install does (issue 11 H2).
/// - when the emulated device **starts** an activity from a push-to-start that asked `input-push-token: 1`, it
///   posts the new activity's update token as the app's `activity.pushTokenUpdates` handler would:
///   `{"kind": "update", "deviceID", "activityID", "token"}`. The device id is the one the push-to-start token
///   was registered under; the **activity id is read from the start's attributes** (`aps.attributes.<key>`,
///   key `activityIDAttribute`, default `activityID`) — as a real app reads `activity.attributes.<key>`, the
///   only place the app sees the id the backend gave the activity.
///
/// Posts run on the reporter's own queue, never on the mock's event loop; a failure is printed, not retried.
public final class MockTokenReporter: Sendable {
    /// The `serve` base URL (`http://127.0.0.1:8787`).
    public let url: String
    /// The bearer for `/v1/tokens` (`serve --intake-token`), if any.
    public let intakeToken: String?
    /// The attributes key holding the activity id.
    public let activityIDAttribute: String
    private let devices = Mutex<[String: String]>([:])
    /// Each device's install secret (`"deviceSecret"`, 32 random bytes as hex), made at its first registration as
    /// the app makes it at install and keeps it in the Keychain; sent with every post for that device.
    private let secrets = Mutex<[String: String]>([:])

    /// The install secret this reporter sends for `deviceID` (nil before its first registration) — for a test
    /// playing the same install by hand.
    public func deviceSecret(of deviceID: String) -> String? { secrets.withLock { $0[deviceID] } }
    private let queue = DispatchQueue(label: "mock-apns.token-reporter")
    private let log: @Sendable (String) -> Void

    /// - Parameter log: where a line per post goes (the command prints it on standard error).
    public init(url: String, intakeToken: String? = nil, activityIDAttribute: String = "activityID",
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.intakeToken = intakeToken
        self.activityIDAttribute = activityIDAttribute
        self.log = log
    }

    /// Makes a push-to-start token for `deviceID`, remembers it and posts it to `/v1/tokens` (waits for the answer).
    /// - Returns: the token (hex, 32 bytes).
    /// - Throws: ``MockAPNsError`` when the post failed or `serve` did not answer 2xx.
    public func registerDevice(_ deviceID: String, attributesType: String) throws(MockAPNsError) -> String {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        devices.withLock { $0[token] = deviceID }
        let secret = secrets.withLock { known in
            if let secret = known[deviceID] { return secret }
            let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            known[deviceID] = secret
            return secret
        }
        let json = JSONWriter.compact(.obj([("kind", .string("push-to-start")), ("deviceID", .string(deviceID)),
                                            ("attributesType", .string(attributesType)), ("token", .string(token)),
                                            ("deviceSecret", .string(secret))]))
        switch MockHTTP1Post.post(url: url, path: "/v1/tokens", json: json, bearer: intakeToken) {
        case .success(let status) where (200..<300).contains(status):
            log("mock-apns: device \(deviceID): push-to-start token \(DeviceToken.redacted(token)) posted to \(url)/v1/tokens (\(status))")
            return token
        case .success(let status):
            throw .socket("\(url)/v1/tokens answered \(status) to the push-to-start token of \(deviceID)")
        case .failure(let error):
            throw error
        }
    }

    /// Called for each journaled device push with its full push-to-start token; reports the update token of an
    /// activity the device started from a start that asked `input-push-token: 1`.
    func observe(token: String, entry: MockJournalEntry) {
        guard entry.device?.outcome == .started, let activityToken = entry.device?.activityToken,
              let aps = JSONReader.read(entry.body).root?["aps"],
              aps["input-push-token"]?.value.numberValue?.integralValue == 1 else { return }
        guard let deviceID = devices.withLock({ $0[token.lowercased()] }) else {
            log("mock-apns: started an activity on \(DeviceToken.redacted(token)), a token not registered with /_mock/devices; not reported")
            return
        }
        guard let activityID = aps["attributes"]?[activityIDAttribute]?.value.stringValue else {
            log("mock-apns: the start to \(deviceID) has no aps.attributes.\(activityIDAttribute); its update token is not reported "
                + "(give --activity-id-attribute the attributes key holding the activity id)")
            return
        }
        var members: [(String, JSONValue)] = [("kind", .string("update")), ("deviceID", .string(deviceID)),
                                              ("activityID", .string(activityID)), ("token", .string(activityToken))]
        if let secret = secrets.withLock({ $0[deviceID] }) { members.append(("deviceSecret", .string(secret))) }
        let json = JSONWriter.compact(.obj(members))
        let (url, bearer, log) = (self.url, intakeToken, self.log)
        queue.async {
            switch MockHTTP1Post.post(url: url, path: "/v1/tokens", json: json, bearer: bearer) {
            case .success(let status):
                log("mock-apns: device \(deviceID): update token \(DeviceToken.redacted(activityToken)) of \(activityID) posted (\(status))")
            case .failure(let error):
                log("mock-apns: device \(deviceID): could not post the update token of \(activityID): \(error)")
            }
        }
    }

    /// Waits until every post queued so far is done (tests).
    public func waitForPosts() { queue.sync {} }
}
