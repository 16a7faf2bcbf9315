/// Counts every answer in `activity_push_http_requests_total` by route pattern and status — refusals of the
/// access check too, since it runs inside this one.
struct RequestMetricsMiddleware: ConsoleMiddleware {
    let metrics: ConsoleMetrics

    func handle(_ context: ConsoleRequestContext,
                next: (ConsoleRequestContext) async -> HTTPResponse) async -> HTTPResponse {
        let response = await next(context)
        metrics.request(route: context.resolution.metricsLabel, status: response.status)
        return response
    }
}
