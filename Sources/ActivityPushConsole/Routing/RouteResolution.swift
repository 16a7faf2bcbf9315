/// What the router found for a method and path: a route with its parameters, a path served under other
/// methods (405, with `Allow`), nothing (404), or a path no route may see (400: a control byte in it).
enum RouteResolution: Sendable {
    case matched(ConsoleRoute, RouteParameters)
    case methodNotAllowed(RoutePattern, allowed: [HTTPMethod])
    case notFound
    /// The percent-decoded path holds a control byte (NUL, sent as `%00`, reaches the router as DEL: see
    /// `ap_mhd_unescape`) at this UTF-8 offset.
    case controlByte(offset: Int)

    /// The label `GET /metrics` counts the request under: the route's pattern (parameters stay `{id}`, so one
    /// series per route), or `other` for a path no route has.
    var metricsLabel: String {
        switch self {
        case .matched(let route, _): return route.pattern.description
        case .methodNotAllowed(let pattern, _): return pattern.description
        case .notFound, .controlByte: return "other"
        }
    }

    /// The scopes that admit the request: the route's, or — for a path no route serves under this method — the
    /// admin scope, so an unauthenticated caller cannot tell served paths from others.
    var scopes: [AccessScope] {
        if case .matched(let route, _) = self { return route.scopes }
        return [.admin]
    }
}
