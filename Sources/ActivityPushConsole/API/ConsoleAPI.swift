import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

/// The console's HTTP API and page, as one async function from request to response — served by
/// ``ConsoleServer`` and called directly by tests.
///
/// A front for the rest of the toolkit, not a second implementation: payloads come from ``LiveActivityPush``,
/// verdicts from ``Validator`` (`POST /v1/check` answers exactly `check --format json`), sends go through
/// ``APNsClient`` and enqueues through ``Outbox``. Routes are registered once, in `Routes/` (the table
/// `ConsoleRoutes.all`), which drives dispatch, 404/405 and `GET /openapi.json`. Every failure is a JSON ``APIError``; no input makes the server stop.
public final class ConsoleAPI: Sendable {
    public let configuration: ConsoleConfiguration
    public let client: APNsClient?
    public let outbox: Outbox?
    /// The activity lifecycle (`/v1/tokens`, `/v1/activities…`); nil answers 503.
    public let activities: LiveActivityService?
    public let metrics = ConsoleMetrics()
    let journal = ConsoleJournal()

    /// - Parameters:
    ///   - client: sends `POST /v1/send`; nil answers 503 (start `serve` with `--auth-key`, `--key-id`, `--team-id`).
    ///   - outbox: stores `POST /v1/enqueue`; nil answers 503.
    ///   - activities: the lifecycle service on the same queue (`serve --database`); nil answers 503.
    public init(configuration: ConsoleConfiguration, client: APNsClient? = nil, outbox: Outbox? = nil,
                activities: LiveActivityService? = nil) {
        self.configuration = configuration
        self.client = client
        self.outbox = outbox
        self.activities = activities
        middleware = MiddlewareChain([SecurityHeadersMiddleware(), RequestMetricsMiddleware(metrics: metrics),
                                      AccessMiddleware(configuration: configuration)])
    }

    /// Outermost first: security headers on every answer, then the request count (refusals included), then the
    /// cross-site and token checks of the route's scopes.
    let middleware: MiddlewareChain

    /// Answers one request: the router resolves it against `ConsoleRoutes.all`, the middleware run, then the
    /// route's handler (or the 404/405 answer).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let path = ConsoleRouter.normalized(request.path)
        let resolution = ConsoleRoutes.router.resolve(method: HTTPMethod(rawValue: request.method), path: path)
        let context = ConsoleRequestContext(request: request, path: path, resolution: resolution)
        return await middleware.respond(to: context) { context in await self.endpoint(context) }
    }

    /// The innermost responder: the matched route's handler, or the router's 404/405 as JSON errors.
    private func endpoint(_ context: ConsoleRequestContext) async -> HTTPResponse {
        switch context.resolution {
        case .matched(let route, _):
            do {
                return try await route.handler(self, context)
            } catch {
                return error.response
            }
        case .methodNotAllowed(let pattern, let allowed):
            let methods = allowed.map(\.rawValue).joined(separator: ", ")
            var response = APIError(405, "method-not-allowed", "\(pattern) takes \(methods), not \(context.request.method)").response
            response.headers.append(("Allow", methods))
            return response
        case .controlByte(let offset):
            return APIError(400, "bad-path", "the path has a control byte (NUL or another below 0x20, or 0x7F) at byte \(offset) "
                                + "after percent-decoding", fix: "remove the %00-style escape from the path").response
        case .notFound:
            return APIError(404, "not-found", "no route \(context.request.method) \(context.path)",
                            fix: "see GET /openapi.json; routes: "
                                + ConsoleRoutes.all.map { "\($0.method) \($0.pattern)" }.joined(separator: ", ")).response
        }
    }
}

extension Error {
    /// Any error as a JSON response (``APIError`` as itself, anything else as a 500).
    var response: HTTPResponse {
        if let e = self as? APIError { return e.response }
        return APIError(500, "internal", "\(self)").response
    }
}
