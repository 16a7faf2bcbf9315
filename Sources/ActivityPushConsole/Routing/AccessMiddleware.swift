/// Refuses what the route's scopes do not admit: first a cross-site request (403, ``AccessCheck/crossSiteRefusal``),
/// then a missing or wrong bearer token (401) for a route whose scopes have a token configured.
///
/// A route is open when none of its scopes has a token (a loopback console started without `--api-token`);
/// otherwise the request must carry the token of one of them (`Authorization: Bearer <token>`, or HTTP Basic
/// with the token as password).
struct AccessMiddleware: ConsoleMiddleware {
    let configuration: ConsoleConfiguration

    func handle(_ context: ConsoleRequestContext,
                next: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse {
        if let refusal = AccessCheck.crossSiteRefusal(context.request, tokenRequired: configuration.apiToken != nil) {
            return refusal.response
        }
        if let refusal = Self.tokenRefusal(context.request, scopes: context.resolution.scopes, configuration: configuration) {
            return refusal.response
        }
        return await next(context)
    }

    /// The 401 for `request` under `scopes`, or nil when it is admitted.
    static func tokenRefusal(_ request: HTTPRequest, scopes: [AccessScope],
                             configuration: ConsoleConfiguration) -> APIError? {
        let configured = scopes.compactMap { scope in scope.token(configuration).map { (scope, $0) } }
        guard !configured.isEmpty else { return nil }
        if configured.contains(where: { AccessCheck.allows(request, token: $0.1) }) { return nil }
        let options = configured.map(\.0.option).joined(separator: " or ")
        return APIError(401, "unauthorized", "this console needs its API token",
                        fix: "send Authorization: Bearer <token> (the \(options) given to serve)")
    }
}
