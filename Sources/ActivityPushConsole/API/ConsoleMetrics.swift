import Foundation
import Synchronization

/// Counters behind `GET /metrics` (Prometheus text format 0.0.4). Thread-safe.
public final class ConsoleMetrics: Sendable {
    /// Upper bounds (seconds) of the send-latency histogram buckets.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Everything counted so far, behind one lock.
    private struct Counts {
        var requests: [String: Int] = [:]          // "route|status"
        var checks: [Bool: Int] = [:]
        var sent = 0
        var accepted = 0
        var rejected: [String: Int] = [:]          // APNs reason
        var transportFailures = 0
        var refused = 0                            // error findings: not sent
        var enqueued = 0
        var bucketCounts = [Int](repeating: 0, count: ConsoleMetrics.latencyBuckets.count)
        var latencySum = 0.0
        var latencyCount = 0
    }

    private let counts = Mutex(Counts())

    public init() {}

    func request(route: String, status: Int) { counts.withLock { $0.requests["\(route)|\(status)", default: 0] += 1 } }
    func checked(accept: Bool) { counts.withLock { $0.checks[accept, default: 0] += 1 } }
    func refusedForFindings() { counts.withLock { $0.refused += 1 } }
    func enqueued(_ count: Int) { counts.withLock { $0.enqueued += count } }

    /// One push handed to APNs: its status (nil on a transport failure), reason and round-trip time.
    func sent(status: Int?, reason: String?, seconds: Double) {
        counts.withLock { counts in
            counts.sent += 1
            if let status {
                if (200..<300).contains(status) {
                    counts.accepted += 1
                } else {
                    counts.rejected[reason ?? "HTTP \(status)", default: 0] += 1
                }
            } else {
                counts.transportFailures += 1
            }
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound { counts.bucketCounts[index] += 1 }
            counts.latencySum += seconds
            counts.latencyCount += 1
        }
    }

    /// Extra gauges read at scrape time (queue depth, retries), appended after the counters.
    public struct Gauges: Sendable {
        public var queueDepth: [String: Int]? = nil
        public var queueRetries: Int? = nil
        public var transportRetries: Int? = nil
        /// Activities by state, live tokens by kind (plus `retired`), pushes held or lowered by budget (absent
        /// without a queue).
        public var activities: [String: Int]? = nil
        public var tokens: [String: Int]? = nil
        public var budgetHolds: [String: Int]? = nil
        public init() {}
    }

    /// The Prometheus exposition text.
    func render(_ gauges: Gauges) -> String {
        let counted = counts.withLock { $0 }
        let (requests, checks, sent, accepted) = (counted.requests, counted.checks, counted.sent, counted.accepted)
        let (rejected, transportFailures, refused, enqueued) = (counted.rejected, counted.transportFailures, counted.refused, counted.enqueued)
        let (bucketCounts, latencySum, latencyCount) = (counted.bucketCounts, counted.latencySum, counted.latencyCount)
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) { out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" }
        /// One sample per key, keys sorted: `name{label="key"} value`.
        func samples(_ name: String, label: String, _ values: [String: Int]?) {
            for (key, value) in (values ?? [:]).sorted(by: { $0.key < $1.key }) {
                out += "\(name){\(label)=\"\(Self.escape(key))\"} \(value)\n"
            }
        }
        family("activity_push_http_requests_total", "counter", "HTTP requests served by the console, by route and status.")
        for (key, count) in requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1)
            out += "activity_push_http_requests_total{route=\"\(Self.escape(String(parts[0])))\",status=\"\(parts[1])\"} \(count)\n"
        }
        family("activity_push_checks_total", "counter", "Payloads judged by POST /v1/check, by verdict.")
        out += "activity_push_checks_total{result=\"accepted\"} \(checks[true] ?? 0)\n"
        out += "activity_push_checks_total{result=\"rejected\"} \(checks[false] ?? 0)\n"
        family("activity_push_sent_total", "counter", "Pushes handed to APNs by the console.")
        out += "activity_push_sent_total \(sent)\n"
        family("activity_push_accepted_total", "counter", "Pushes APNs answered with 2xx.")
        out += "activity_push_accepted_total \(accepted)\n"
        family("activity_push_rejected_total", "counter", "Pushes APNs rejected, by reason.")
        samples("activity_push_rejected_total", label: "reason", rejected)
        family("activity_push_transport_failures_total", "counter", "Sends that got no APNs answer (connection, timeout).")
        out += "activity_push_transport_failures_total \(transportFailures)\n"
        family("activity_push_refused_total", "counter", "Send or enqueue requests refused because the push has error findings.")
        out += "activity_push_refused_total \(refused)\n"
        family("activity_push_enqueued_total", "counter", "Pushes stored in the queue by POST /v1/enqueue.")
        out += "activity_push_enqueued_total \(enqueued)\n"
        family("activity_push_retries_total", "counter", "Retries: requests the HTTP/2 client resent, and queue attempts scheduled for retry.")
        out += "activity_push_retries_total{source=\"client\"} \(gauges.transportRetries ?? 0)\n"
        out += "activity_push_retries_total{source=\"queue\"} \(gauges.queueRetries ?? 0)\n"
        family("activity_push_queue_depth", "gauge", "Pushes in the queue by state (absent without a queue).")
        samples("activity_push_queue_depth", label: "state", gauges.queueDepth)
        family("activity_push_activities", "gauge", "Live Activities by state (absent without a queue).")
        samples("activity_push_activities", label: "state", gauges.activities)
        family("activity_push_activity_tokens", "gauge", "Tokens the app posted, by kind (live) and retired.")
        samples("activity_push_activity_tokens", label: "kind", gauges.tokens)
        family("activity_push_budget_holds_total", "counter", "Activity pushes a budget held (push-to-start) or lowered to priority 5.")
        samples("activity_push_budget_holds_total", label: "budget", gauges.budgetHolds)
        family("activity_push_send_latency_seconds", "histogram", "Round trip of console sends to APNs.")
        for (index, bound) in Self.latencyBuckets.enumerated() {
            out += "activity_push_send_latency_seconds_bucket{le=\"\(Self.number(bound))\"} \(bucketCounts[index])\n"
        }
        out += "activity_push_send_latency_seconds_bucket{le=\"+Inf\"} \(latencyCount)\n"
        out += "activity_push_send_latency_seconds_sum \(Self.number(latencySum))\n"
        out += "activity_push_send_latency_seconds_count \(latencyCount)\n"
        return out
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
