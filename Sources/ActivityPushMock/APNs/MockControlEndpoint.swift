import ActivityPushCore

/// The `/_mock` control API on the mock's own port: journal, counters, faults, unregistering tokens.
enum MockControlEndpoint {
    static func respond(to request: MockRequest, state: MockAPNsState) -> MockResponse {
        var path = request.path
        var query: [String: Int] = [:]
        if let mark = path.firstIndex(of: "?") {
            for pair in path[path.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Int(parts[1]), value >= 0 { query[String(parts[0])] = value }
            }
            path = String(path[..<mark])
        }
        switch (request.method, path) {
        case ("GET", "/_mock/journal"):
            // `?since=N&limit=M`: entries from index N on, at most M (the newest M without since). Rendered off
            // the event loop, so pushes keep flowing while a large journal is serialized.
            var deferred = MockResponse(status: 200)
            let since = query["since"], limit = query["limit"]
            deferred.render = {
                var entries = state.journal()
                if let since { entries = Array(entries.dropFirst(min(since, entries.count))) }
                if let limit { entries = since != nil ? Array(entries.prefix(limit)) : Array(entries.suffix(limit)) }
                return .json(200, "[" + entries.map(\.jsonLine).joined(separator: ",\n") + "]")
            }
            return deferred
        case ("GET", "/_mock/stats"):
            return .json(200, state.currentStatistics().json)
        case ("DELETE", "/_mock/journal"):
            state.clearJournal()
            return MockResponse(status: 204)
        case ("GET", "/_mock/faults"):
            return .json(200, "{\"faults\":" + JSONText.string(state.currentFaults().description) + "}")
        case ("POST", "/_mock/faults"), ("PUT", "/_mock/faults"):
            do {
                let plan = try MockFaultPlan(spec: String(decoding: request.body, as: UTF8.self))
                state.setFaults(plan)
                return .json(200, "{\"faults\":" + JSONText.string(plan.description) + "}")
            } catch {
                return .json(400, "{\"error\":" + JSONText.string("\(error)") + "}")
            }
        default:
            if request.method == "POST", path.hasPrefix("/_mock/devices/") {
                return MockDeviceRegistration.respond(deviceID: String(path.dropFirst("/_mock/devices/".count)), body: request.body,
                                                      reporter: state.configuration.tokenReporter)
            }
            if request.method == "POST", request.path.hasPrefix("/_mock/unregister/") {
                let token = String(request.path.dropFirst("/_mock/unregister/".count))
                guard MockRequestRules.isDeviceToken(token) else {
                    return .json(400, "{\"error\":\"not a device token: use an even number of hex digits, 64 to 200\"}")
                }
                state.unregister(token: token, atMilliseconds: Int64((state.configuration.clock() * 1000).rounded()))
                return MockResponse(status: 204)
            }
            return .json(404, "{\"error\":\"unknown control endpoint; use GET|DELETE /_mock/journal, GET /_mock/stats, GET|POST /_mock/faults, POST /_mock/unregister/<token>, POST /_mock/devices/<deviceID>\"}")
        }
    }
}
