/// The console's route table: every route, once. Dispatch, the 404/405 answers, the access scopes, the metrics
/// labels and the paths of `GET /openapi.json` all read it.
///
/// To add a route: a new file in `Routes/` with `extension ConsoleRoute { static let name = ConsoleRoute(.post,
/// "/v1/things/{id}", operation: #"""{ OpenAPI operation }"""#) { api, context throws(APIError) in … } }` (path
/// parameters from `context.parameters.require("id")`), and one line here.
enum ConsoleRoutes {
    static let all: [ConsoleRoute] = [
        .page, .pageStyle, .pageScript, .activitiesPage, .activityPage, .activitiesScript, .openAPI,
        .types, .check, .build, .send, .enqueue, .journal,
        .tokens, .startActivity, .listActivities, .showActivity, .updateActivity, .endActivity,
        .createChannel, .listChannels, .readChannel, .deleteChannel,
        .metrics,
    ]

    static let router = ConsoleRouter(all)
}
