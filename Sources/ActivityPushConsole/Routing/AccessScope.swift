/// Who may call a route: each scope is one bearer token `serve` was given. A route lists the scopes that admit
/// it (``ConsoleRoute/scopes``); ``AccessMiddleware`` checks the request's token against them.
///
/// `admin` is the `--api-token`: everything the console does. A narrower scope (the app's token intake) gets its
/// own token so a credential shipped inside an app cannot send pushes.
struct AccessScope: Hashable, Sendable, CustomStringConvertible {
    /// The scope's name, also its security scheme's key in `GET /openapi.json`.
    let name: String
    /// The `serve` option that sets this scope's token (named in the 401 answer's fix).
    let option: String
    /// What the token is, for the OpenAPI security scheme.
    let summary: String
    /// The token `serve` was started with for this scope; nil when none was given.
    let token: @Sendable (ConsoleConfiguration) -> String?

    var description: String { name }

    static func == (left: AccessScope, right: AccessScope) -> Bool { left.name == right.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The `--api-token` given to serve: the page and every API route.
    static let admin = AccessScope(name: "bearer", option: "--api-token",
                                   summary: "the --api-token given to serve", token: { $0.apiToken })

    /// The `--intake-token` given to serve: only the app's `POST /v1/tokens`.
    static let intake = AccessScope(name: "intake", option: "--intake-token",
                                    summary: "the --intake-token given to serve (POST /v1/tokens only)", token: { $0.intakeToken })

    /// Every scope, in the order the OpenAPI document lists their security schemes.
    static let all: [AccessScope] = [.admin, .intake]
}
