/// The route table as a lookup: method and path → ``RouteResolution``. A plain value, tested without sockets.
struct ConsoleRouter: Sendable {
    let routes: [ConsoleRoute]

    init(_ routes: [ConsoleRoute]) { self.routes = routes }

    /// The path as routes see it: a trailing `/` dropped (but `/` itself kept), and `/index.html` is `/`.
    static func normalized(_ path: String) -> String {
        var path = path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path == "/index.html" ? "/" : path
    }

    /// Finds the route for `method` (HEAD looks up GET) and the already-normalized `path`. When several patterns
    /// match, the most specific one (a literal before a parameter) wins.
    /// A path with a control byte (0x00–0x1F, 0x7F) after percent-decoding is refused before any route sees it:
    /// a C string would end at a NUL, so `/v1/tokens%00x` must not be taken for `/v1/tokens`.
    func resolve(method: HTTPMethod, path: String) -> RouteResolution {
        if let offset = path.utf8.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }).map({ path.utf8.distance(from: path.utf8.startIndex, to: $0) }) {
            return .controlByte(offset: offset)
        }
        var best: (route: ConsoleRoute, parameters: RouteParameters)?
        var allowed: [HTTPMethod] = []
        var pathPattern: RoutePattern?
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            if let known = pathPattern, !route.pattern.isMoreSpecific(than: known) {} else { pathPattern = route.pattern }
            if !allowed.contains(route.method) { allowed.append(route.method) }
            guard route.method == method.routed else { continue }
            if let chosen = best, !route.pattern.isMoreSpecific(than: chosen.route.pattern) { continue }
            best = (route, parameters)
        }
        if let best { return .matched(best.route, best.parameters) }
        guard let pathPattern else { return .notFound }
        if let getIndex = allowed.firstIndex(of: .get), !allowed.contains(.head) { allowed.insert(.head, at: getIndex + 1) }
        return .methodNotAllowed(pathPattern, allowed: allowed)
    }

    /// Registration mistakes: a malformed pattern, or two routes with the same method whose patterns match the
    /// same paths. Empty for a sound table (a test asserts it).
    var problems: [String] {
        var found: [String] = []
        var seen: Set<String> = []
        for route in routes {
            let key = "\(route.method) \(route.pattern.shape)"
            if !seen.insert(key).inserted { found.append("\(route.method) \(route.pattern) is registered twice") }
            if route.pattern.text != route.pattern.description
                || route.pattern.segments.contains(where: { segment in
                    if case .literal(let text) = segment { return text.contains("{") || text.contains("}") }
                    return false
                }) {
                found.append("\(route.method) \(route.pattern): malformed pattern (use /literal/{name} segments)")
            }
            if route.scopes.isEmpty { found.append("\(route.method) \(route.pattern): no access scope") }
        }
        return found
    }
}
