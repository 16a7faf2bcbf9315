import ActivityPushCore

/// `POST /_mock/devices/<deviceID>` with `{"attributesType": "T"}`: the mock's device makes its push-to-start
/// token and posts it to `serve` (``MockTokenReporter/registerDevice(_:attributesType:)``); answers
/// `{"deviceID", "token"}`. Runs off the event loop (it waits for `serve`).
enum MockDeviceRegistration {
    static func respond(deviceID: String, body: [UInt8], reporter: MockTokenReporter?) -> MockResponse {
        guard let reporter else {
            return .json(409, "{\"error\":\"start mock-apns with --report-tokens-to http://HOST:PORT (the serve URL) to play the app\"}")
        }
        guard !deviceID.isEmpty, deviceID.utf8.count <= 200, !deviceID.contains("/") else {
            return .json(400, "{\"error\":\"give a device id: POST /_mock/devices/<deviceID>\"}")
        }
        guard let type = JSONReader.read(body).root?["attributesType"]?.value.stringValue, !type.isEmpty else {
            return .json(400, "{\"error\":\"body: {\\\"attributesType\\\": \\\"<ActivityAttributes type>\\\"} is required\"}")
        }
        var deferred = MockResponse(status: 200)
        deferred.render = {
            do {
                let token = try reporter.registerDevice(deviceID, attributesType: type)
                return .json(200, "{\"deviceID\":" + JSONText.string(deviceID) + ",\"token\":" + JSONText.string(token) + "}")
            } catch {
                return .json(502, "{\"error\":" + JSONText.string("\(error)") + "}")
            }
        }
        return deferred
    }
}
