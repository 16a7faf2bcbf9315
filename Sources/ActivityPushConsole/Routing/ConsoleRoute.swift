/// One registered route: method, path pattern, who may call it, its OpenAPI operation, and its handler.
///
/// A route is registered once, in its own file under `Routes/` (an `extension ConsoleRoute` with a `static let`),
/// and listed in ``ConsoleRoutes/all``. Dispatch, the 404/405 answers, the metrics label and the paths of
/// `GET /openapi.json` all come from that table, so a route cannot be served without being documented, nor
/// documented without being served.
struct ConsoleRoute: Sendable {
    /// Answers one request the router matched to this route; the ``APIError`` it throws is the JSON answer.
    typealias Handler = @Sendable (ConsoleAPI, ConsoleRequestContext) async throws(APIError) -> HTTPResponse

    let method: HTTPMethod
    let pattern: RoutePattern
    /// The tokens that admit a request (any one of them); ``AccessMiddleware`` enforces them and the OpenAPI
    /// document derives the operation's `security` from them.
    let scopes: [AccessScope]
    /// The OpenAPI 3.1 Operation Object as JSON text (`summary`, `operationId`, `requestBody`, `responses` …).
    /// The generator adds `security`, the 401/403 answers of the access check and the path parameters.
    let operation: String
    /// Component schemas only this route uses, as `(name, JSON Schema text)`; referenced as
    /// `#/components/schemas/<name>`.
    let schemas: [(name: String, text: String)]
    let handler: Handler

    init(_ method: HTTPMethod, _ pattern: RoutePattern, scopes: [AccessScope] = [.admin],
         schemas: [(name: String, text: String)] = [], operation: String, handler: @escaping Handler) {
        self.method = method
        self.pattern = pattern
        self.scopes = scopes
        self.schemas = schemas
        self.operation = operation
        self.handler = handler
    }
}
