/// One request on its way through the middleware to its route (Hummingbird's `RequestContext`): the request,
/// its normalized path and what the router resolved it to.
struct ConsoleRequestContext: Sendable {
    var request: HTTPRequest
    /// ``ConsoleRouter/normalized(_:)`` of the request's path.
    let path: String
    let resolution: RouteResolution

    /// The path parameters of the matched route (empty for a 404 or 405).
    var parameters: RouteParameters {
        if case .matched(_, let parameters) = resolution { return parameters }
        return RouteParameters()
    }

    var method: HTTPMethod { HTTPMethod(rawValue: request.method) }
}
