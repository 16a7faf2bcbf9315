import ActivityPushAPNs
import ActivityPushCore
import Foundation

/// What the device did with a delivered push. Real APNs does not say; `activity-push mock-apns` does, in its
/// journal (`GET /_mock/journal`, keyed by `apns-id`), which the console reads when `serve --url` points at it.
struct DeviceOutcome: Sendable {
    /// `started`, `updated`, `ended`, `ignored` or `rejected`.
    var outcome: String
    /// The device log line the emulator wrote, if any.
    var log: String?
    /// The finding codes / causes behind a `rejected` or `ignored` outcome.
    var causes: [String]

    var json: JSONValue {
        .obj([("outcome", .string(outcome)), ("log", log.map { .string($0) } ?? .null),
              ("causes", .arr(causes.map { .string($0) }))])
    }

    /// Reads the mock's journal over the client's own HTTP/2 connection and returns the device verdict for
    /// `apnsID`; nil when the server is not a mock, the entry is missing, or it holds no device verdict.
    static func lookup(apnsID: String, client: APNsClient) async -> DeviceOutcome? {
        await lookupAll(client: client)?[apnsID.lowercased()]
    }

    /// Every device verdict in the mock's journal by lowercased `apns-id` (the latest entry of each), read in one
    /// request; nil when the server is not a mock.
    static func lookupAll(client: APNsClient) async -> [String: DeviceOutcome]? {
        let url = client.environment.deviceURL + "/_mock/journal"
        // Its own short-lived connection: the control endpoint is not APNs, and keeping it off the push
        // connection leaves that one to pushes only.
        var config = client.transport.configuration
        config.connections = 1
        guard let transport = try? HTTP2Transport(configuration: config) else { return nil }
        let result = await transport.send(HTTP2Request(method: "GET", url: url, headers: []))
        await transport.shutdown()
        guard case .success(let answer) = result, answer.status == 200, let root = JSONReader.read(answer.body).root,
              case .array(let items) = root.value
        else { return nil }
        var outcomes: [String: DeviceOutcome] = [:]
        for item in items {
            guard let apnsID = item[APNsHeaderName.id.rawValue]?.value.stringValue?.lowercased(),
                  let device = item["device"], let outcome = device["outcome"]?.value.stringValue else { continue }
            var causes: [String] = []
            if case .array(let listed)? = device["causes"]?.value {
                for cause in listed {
                    if let text = cause.value.stringValue { causes.append(text) }
                    else if let code = cause["code"]?.value.stringValue { causes.append(code) }
                }
            }
            outcomes[apnsID] = DeviceOutcome(outcome: outcome, log: device["log"]?.value.stringValue, causes: causes)
        }
        return outcomes
    }
}
