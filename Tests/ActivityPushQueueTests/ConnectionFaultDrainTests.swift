import ActivityPushAPNs
import ActivityPushCore
import ActivityPushMock
import Foundation
import XCTest
@testable import ActivityPushQueue

/// A 3 000-push drain through the real APNs client to mock-apns with connection faults (issue 10): nothing
/// lost, and every duplicate delivery explained by a "may have been processed" outcome the policy resends —
/// never by a refused or GOAWAY'd stream. Written against whatever client and mock are built: with an honest
/// mock and an exact client the duplicates fall to what the drops make; the printed figures show which.
final class ConnectionFaultDrainTests: XCTestCase {
    struct Figures: CustomStringConvertible {
        var deliveries = 0, duplicates = 0, refusedOutcomes = 0, unknownOutcomes = 0, otherRetries = 0
        var attemptsHistogram: [Int: Int] = [:]
        var seconds = 0.0
        var description: String {
            let histogram = attemptsHistogram.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            return "deliveries \(deliveries), duplicates \(duplicates), refused \(refusedOutcomes), may-have-been-processed "
                + "\(unknownOutcomes), other retries \(otherRetries), attempts per push [\(histogram)], \(String(format: "%.1f", seconds)) s"
        }
    }

    private func drain(faults: String, total: Int = 3000, postgres: Bool = false) async throws -> Figures {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: .tls(directory: temporaryDirectory("ap-fault-tls")), faults: try MockFaultPlan(spec: faults),
            journalMemoryLimit: 200_000))
        try mock.start()
        defer { mock.stop() }
        let store: any QueueStore = postgres ? try PostgresQueueStore(url: try PostgresTestServer.freshDatabase())
                                             : try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1_800_000_000), to: (0..<total).map(Pushes.token))
        let token = try ProviderToken(keyFile: try WorkerProcessHarness.authKey(), keyID: "QUEUETEST1", teamID: "TEAMQUEUE1")
        let client = try APNsClient(environment: .custom(mock.baseURL), token: token,
                                    transport: HTTP2TransportConfiguration(caFile: mock.caCertificatePath,
                                                                           requestTimeoutSeconds: 10))
        let policy = QueueRetryPolicy(maxAttempts: 40, backoffBaseSeconds: 0.05, backoffMaxSeconds: 0.5)
        let worker = QueueWorker(store: store, sender: APNsPushSender(client: client),
                                 options: WorkerOptions(name: "faults", window: 200, leaseSeconds: 60,
                                                        pollIntervalSeconds: 0.02, drain: true, drainWaitSeconds: 30,
                                                        policy: policy))
        let started = Date()
        // Bounded: stop claiming after 240 s whatever happens.
        let watchdog = Task { try await Task.sleep(nanoseconds: 240_000_000_000); worker.stop() }
        let summary = try await worker.run()
        watchdog.cancel()
        await client.shutdown()
        var figures = Figures()
        figures.seconds = Date().timeIntervalSince(started)

        let status = try store.status(nowUnixSeconds: Date().timeIntervalSince1970)
        XCTAssertEqual(status.counts["sent"], total, "\(faults): nothing lost (\(status), \(summary))")
        XCTAssertEqual(status.counts["dead"], 0, "\(faults): \(status.deadByReason)")

        let journal = try store.journal(pushID: nil, limit: total * 50)
        var unknownByID: [String: Int] = [:]
        for row in journal {
            if row.outcome == .refused { figures.refusedOutcomes += 1 }
            else if row.note?.contains("(\(APNsTransportError.Kind.mayHaveBeenProcessed))") == true {
                figures.unknownOutcomes += 1
                unknownByID[row.apnsID, default: 0] += 1
            } else if row.outcome == .retry { figures.otherRetries += 1 }
        }
        let delivered = mock.journal().filter { $0.status == 200 }
        figures.deliveries = delivered.count
        var unexplained: [String] = []
        for (apnsID, copies) in Dictionary(grouping: delivered, by: { $0.apnsID ?? "" }) where copies.count > 1 {
            figures.duplicates += copies.count - 1
            // Each extra delivery needs a journaled "may have been processed" outcome of that push.
            if copies.count - 1 > unknownByID[apnsID, default: 0] { unexplained.append(apnsID) }
        }
        XCTAssertEqual(Set(delivered.compactMap(\.apnsID)).count, total, "\(faults): every push delivered")
        XCTAssertTrue(unexplained.isEmpty, "\(faults): \(unexplained.count) pushes delivered more often than their "
                      + "may-have-been-processed outcomes explain (a refused or GOAWAY'd stream was resent after processing): \(unexplained.prefix(3))")
        XCTAssertLessThanOrEqual(figures.duplicates, figures.unknownOutcomes)
        for id in 1...Int64(total) {
            if let push = try store.push(id: id) { figures.attemptsHistogram[push.attempts, default: 0] += 1 }
        }
        print("drain with '\(faults)' on \(postgres ? "PostgreSQL" : "SQLite"): \(figures)")
        return figures
    }

    func testGracefulGoawayLosesNothingAndDuplicatesOnlyUnknownOutcomes() async throws {
        _ = try await drain(faults: "goaway:share=3%")
    }

    func testDropsLoseNothingAndDuplicateOnlyUnknownOutcomes() async throws {
        _ = try await drain(faults: "drop:share=2%")
    }

    /// The same on PostgreSQL, where claims and records run beside the sends on two connections.
    func testPostgresGracefulGoawayLosesNothingAndDuplicatesOnlyUnknownOutcomes() async throws {
        _ = try await drain(faults: "goaway:share=3%", postgres: true)
    }

    func testPostgresDropsLoseNothingAndDuplicateOnlyUnknownOutcomes() async throws {
        _ = try await drain(faults: "drop:share=2%", postgres: true)
    }
}

