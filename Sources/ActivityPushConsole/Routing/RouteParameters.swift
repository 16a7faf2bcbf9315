/// The path parameters a matched ``RoutePattern`` bound, by name (`id` for `/v1/activities/{id}`).
struct RouteParameters: Sendable, Hashable {
    private let values: [String: String]

    init(_ values: [String: String] = [:]) { self.values = values }

    /// The value bound to `name`, or nil when the route has no such parameter.
    subscript(name: String) -> String? { values[name] }

    /// The value bound to `name`.
    /// - Throws: ``APIError`` 500 `internal` when the route's pattern has no `{name}` — a registration mistake,
    ///   not the client's (a path that lacks the segment never reaches the handler).
    func require(_ name: String) throws(APIError) -> String {
        guard let value = values[name] else {
            throw APIError(500, "internal", "the route has no path parameter {\(name)}",
                           fix: "name the parameter in the route's pattern, e.g. /v1/activities/{\(name)}")
        }
        return value
    }
}
