import ActivityPushAPNs
import ActivityPushCore
import ActivityPushQueue
import Foundation

extension ConsoleRoute {
    /// `GET /metrics`: Prometheus metrics.
    static let metrics = ConsoleRoute(.get, "/metrics", operation: #"""
        {
          "summary": "Prometheus metrics: requests, sent, accepted, rejected by reason, retries, queue depth, activities by state, tokens by kind, budget holds, send latency histogram",
          "operationId": "metrics",
          "responses": {
            "200": { "description": "Prometheus text format 0.0.4", "content": { "text/plain": { "schema": { "type": "string" } } } }
          }
        }
        """#) { api, context throws(APIError) in api.metricsResponse() }
}

extension ConsoleAPI {
    func metricsResponse() -> HTTPResponse {
        var gauges = ConsoleMetrics.Gauges()
        if let outbox {
            let now = Date().timeIntervalSince1970
            gauges.queueDepth = (try? outbox.store.status(nowUnixSeconds: now))?.counts
            gauges.queueRetries = (try? outbox.store.journal(pushID: nil, limit: 100_000))?.filter { $0.outcome == .retry }.count
        }
        if let client { gauges.transportRetries = client.transport.statistics.retriedUnsent }
        if let counts = try? activities?.counts() {
            (gauges.activities, gauges.budgetHolds) = (counts.activities, counts.budgetHolds)
            gauges.tokens = counts.tokens.merging(["retired": counts.retiredTokens]) { first, _ in first }
        }
        return .text(200, metrics.render(gauges), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
