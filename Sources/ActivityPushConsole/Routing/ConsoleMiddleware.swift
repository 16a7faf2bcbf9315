/// A step every request passes through before (and every response after) its route, as in Hummingbird's
/// `RouterMiddleware`: call `next` to go on, or answer without calling it to stop the request here.
protocol ConsoleMiddleware: Sendable {
    func handle(_ context: ConsoleRequestContext,
                next: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse
}

/// Middleware in order, outermost first: the first sees the request first and the response last.
struct MiddlewareChain: Sendable {
    let middleware: [any ConsoleMiddleware]

    init(_ middleware: [any ConsoleMiddleware]) { self.middleware = middleware }

    /// Runs `context` through every middleware, then `endpoint` (the route's handler, or the 404/405 answer).
    func respond(to context: ConsoleRequestContext,
                 endpoint: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse {
        await run(from: 0, context, endpoint)
    }

    private func run(from index: Int, _ context: ConsoleRequestContext,
                     _ endpoint: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse {
        guard index < middleware.count else { return await endpoint(context) }
        return await middleware[index].handle(context) { passed in await run(from: index + 1, passed, endpoint) }
    }
}
