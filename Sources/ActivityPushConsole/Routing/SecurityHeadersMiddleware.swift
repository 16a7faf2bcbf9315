/// Adds `Cache-Control: no-store` (answers carry findings and journal entries, never to be cached) and
/// `X-Content-Type-Options: nosniff` to every answer, refusals included. Outermost in ``ConsoleAPI``.
struct SecurityHeadersMiddleware: ConsoleMiddleware {
    static let headers: [(name: String, value: String)] = [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]

    func handle(_ context: ConsoleRequestContext,
                next: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse {
        var response = await next(context)
        response.headers += Self.headers
        return response
    }
}
