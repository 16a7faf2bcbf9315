/// A route's path with its parameters: `/v1/activities/{id}/update` is the literal segments `v1`, `activities`,
/// `update` and the parameter `id`, which matches one whole non-empty path segment.
///
/// The spelling is OpenAPI's path template (OpenAPI 3.1 §4.8.8), so the same text is the key of the route's
/// entry in `GET /openapi.json`.
struct RoutePattern: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One `/`-separated piece of a pattern.
    enum Segment: Hashable, Sendable {
        /// Matches exactly this text.
        case literal(String)
        /// Matches any one non-empty segment and binds it to this name.
        case parameter(String)
    }

    let segments: [Segment]
    /// The pattern as registered (``ConsoleRouter/problems`` reports one that does not read back as itself).
    let text: String

    /// - Parameter text: `/` alone, or `/`-separated segments where `{name}` is a parameter. A malformed pattern
    ///   (no leading `/`, an empty segment, a brace inside a segment) is a programming error caught by the route
    ///   table test (``ConsoleRoutes``), not at request time.
    init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().compactMap { piece in
            if piece.isEmpty { return nil }
            if piece.hasPrefix("{"), piece.hasSuffix("}"), piece.count > 2 {
                return .parameter(String(piece.dropFirst().dropLast()))
            }
            return .literal(String(piece))
        }
    }

    init(stringLiteral value: String) { self.init(value) }

    /// The OpenAPI path template: `/v1/activities/{id}`.
    var description: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): return text
            case .parameter(let name): return "{\(name)}"
            }
        }.joined(separator: "/")
    }

    /// Names of the parameters, in path order.
    var parameterNames: [String] {
        segments.compactMap { segment in
            if case .parameter(let name) = segment { return name }
            return nil
        }
    }

    /// The parameters bound by `path` (already percent-decoded, without the query), or nil when it does not match.
    func match(_ path: String) -> RouteParameters? {
        let pieces = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let given = pieces.count == 1 && pieces.first == "" ? [] : Array(pieces)
        guard given.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, piece) in zip(segments, given) {
            switch segment {
            case .literal(let text):
                guard piece == text else { return nil }
            case .parameter(let name):
                guard !piece.isEmpty else { return nil }
                values[name] = String(piece)
            }
        }
        return RouteParameters(values)
    }

    /// Orders two patterns that match the same path: the one with a literal where the other has a parameter,
    /// at the first place they differ, is the more specific (`/v1/activities/stats` before `/v1/activities/{id}`).
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) {
            switch (mine, theirs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }

    /// The pattern with every parameter name replaced by the same placeholder: two routes whose shapes are equal
    /// would match the same paths.
    var shape: String {
        "/" + segments.map { segment in
            if case .literal(let text) = segment { return text }
            return "{}"
        }.joined(separator: "/")
    }
}
