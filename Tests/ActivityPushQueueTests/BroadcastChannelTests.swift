import ActivityPushAPNs
import ActivityPushCore
import ActivityPushMock
import Foundation
import XCTest
@testable import ActivityPushQueue

/// The channel registry, the channel service against mock-apns, and the broadcast budget (one broadcast per
/// second per channel) on SQLite and PostgreSQL.
final class BroadcastChannelTests: XCTestCase {
    static let bundleID = Pushes.bundleID

    // MARK: The budget as a value

    func testBudgetPlanSendsOnePerChannelAndSpacesTheRest() {
        let plan = BroadcastBudget.plan(claimed: [(1, "A"), (2, "A"), (3, "B"), (4, "A")], lastUnixSeconds: [:], nowUnixSeconds: 100)
        XCTAssertEqual(plan.send, [1, 3])
        XCTAssertEqual(plan.hold, [2: 101, 4: 102])
        XCTAssertEqual(plan.claimed, ["A": 100, "B": 100])
    }

    func testBudgetPlanHoldsAChannelUsedLessThanASecondAgo() {
        let plan = BroadcastBudget.plan(claimed: [(1, "A"), (2, "B")], lastUnixSeconds: ["A": 99.5, "B": 98.9], nowUnixSeconds: 100)
        XCTAssertEqual(plan.send, [2])
        XCTAssertEqual(plan.hold, [1: 100.5])
    }

    func testListingPutsTheRegistryBesideApplesList() {
        func channel(_ id: String, deleted: Double? = nil) -> BroadcastChannel {
            BroadcastChannel(channelID: id, environment: .sandbox, bundleID: Self.bundleID, storagePolicy: .noMessageStored,
                             createdUnixSeconds: 1, deletedUnixSeconds: deleted)
        }
        let listing = ChannelListing.reconcile(bundleID: Self.bundleID, environment: .sandbox,
                                               registered: [channel("A"), channel("B"), channel("C", deleted: 2)],
                                               atApple: ["D", "A"])
        XCTAssertEqual(listing.entries.map(\.channelID), ["A", "B", "C", "D"])
        XCTAssertEqual(listing.entries.map(\.presence), ["both", "registry-only", "deleted", "apple-only"])
    }

    // MARK: The registry

    /// Two activities taking one free channel at once: the compare-and-swap link gives it to the first only
    /// (issue 11, W2), on SQLite and PostgreSQL.
    func testLinkIfServingIsACompareAndSwap() throws {
        for store in [try SQLiteQueueStore(path: temporarySQLitePath()) as any QueueStore,
                      try PostgresQueueStore(url: try PostgresTestServer.freshDatabase())] {
            defer { store.close() }
            let registry = try ChannelRegistry(store: store)
            let slot = try registry.reserve(bundleID: Self.bundleID, environment: .sandbox, storagePolicy: .noMessageStored,
                                            activityID: nil, nowUnixSeconds: 1_800_000_000)
            let channel = try registry.confirm(slot, channelID: "dHN0LWNoYW5uZWwtMg==")
            XCTAssertTrue(try registry.link(channelID: channel.channelID, environment: .sandbox, activityID: "first", ifServing: nil))
            XCTAssertFalse(try registry.link(channelID: channel.channelID, environment: .sandbox, activityID: "second", ifServing: nil),
                           "\(store.location): the second saw the channel free, but the first took it")
            XCTAssertEqual(try registry.channel(id: channel.channelID, environment: .sandbox)?.activityID, "first")
            XCTAssertTrue(try registry.link(channelID: channel.channelID, environment: .sandbox, activityID: "second", ifServing: "first"))
            XCTAssertFalse(try registry.link(channelID: channel.channelID, environment: .production, activityID: "x", ifServing: "second"))
            try registry.markDeleted(channelID: channel.channelID, environment: .sandbox, nowUnixSeconds: 1_800_000_100)
            XCTAssertFalse(try registry.link(channelID: channel.channelID, environment: .sandbox, activityID: "third", ifServing: "second"),
                           "a deleted channel serves no new activity")
        }
    }

    func testRegistryReserveConfirmLinkDeleteAndList() throws {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let registry = try ChannelRegistry(store: store)
        let slot = try registry.reserve(bundleID: Self.bundleID, environment: .sandbox, storagePolicy: .mostRecentMessageStored,
                                        activityID: "game-42", nowUnixSeconds: 1_800_000_000)
        XCTAssertEqual(try registry.channels(bundleID: Self.bundleID, environment: .sandbox), [], "a reservation is not a channel")
        let channel = try registry.confirm(slot, channelID: "dHN0LWNoYW5uZWwtMQ==")
        XCTAssertEqual(channel, BroadcastChannel(channelID: "dHN0LWNoYW5uZWwtMQ==", environment: .sandbox, bundleID: Self.bundleID,
                                                 storagePolicy: .mostRecentMessageStored, createdUnixSeconds: 1_800_000_000,
                                                 activityID: "game-42"))
        XCTAssertEqual(try registry.channel(forActivity: "game-42", environment: .sandbox)?.channelID, channel.channelID)
        XCTAssertNil(try registry.channel(forActivity: "game-42", environment: .production), "channels are per environment")
        XCTAssertTrue(try registry.link(channelID: channel.channelID, environment: .sandbox, activityID: "game-43"))
        XCTAssertNil(try registry.channel(forActivity: "game-42", environment: .sandbox))
        XCTAssertTrue(try registry.markDeleted(channelID: channel.channelID, environment: .sandbox, nowUnixSeconds: 1_800_000_100))
        XCTAssertFalse(try registry.markDeleted(channelID: channel.channelID, environment: .sandbox, nowUnixSeconds: 1_800_000_200))
        XCTAssertEqual(try registry.channels(bundleID: Self.bundleID, environment: .sandbox), [])
        XCTAssertEqual(try registry.channels(bundleID: Self.bundleID, environment: .sandbox, includeDeleted: true).first?.deletedUnixSeconds,
                       1_800_000_100)
        let other = try registry.reserve(bundleID: Self.bundleID, environment: .sandbox, storagePolicy: .noMessageStored,
                                         activityID: nil, nowUnixSeconds: 1_800_000_000)
        registry.release(other)
        XCTAssertEqual(try registry.channels(bundleID: Self.bundleID, environment: .sandbox, includeDeleted: true).count, 1)
    }

    func testRegistryRefusesTheChannelOverApplesLimitBeforeCallingApple() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let registry = try ChannelRegistry(store: store)
        let limit = APNsLimits.channelsPerAppPerEnvironment
        try registry.outbox.run { sql throws(QueueError) in
            try sql.db.transaction { () throws(QueueError) in
                for index in 0..<limit {
                    _ = try sql.db.query("""
                        INSERT INTO ap_channels (channel_id, environment, bundle_id, storage_policy, created_unix) VALUES (?, 'sandbox', ?, 0, 1)
                        """, [.text("c\(index)"), .text(Self.bundleID)])
                }
            }
        }
        let client = try APNsClient(environment: .custom(mock.baseURL), token: try Self.token())
        defer { Task { await client.shutdown() } }
        let channels = BroadcastChannels(registry: registry, client: client, environment: .sandbox)
        do {
            _ = try await channels.create(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
            XCTFail("the 10 001st channel must be refused")
        } catch {
            XCTAssertEqual(error.kind, .limitReached)
            XCTAssertTrue(error.description.contains("\(limit)"), error.description)
            XCTAssertNotNil(error.fix)
        }
        XCTAssertEqual(mock.journal().count, 0, "nothing was sent to Apple")
        // Another app, or the other environment, still has room.
        let production = BroadcastChannels(registry: registry, client: client, environment: .production)
        _ = try await production.create(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        XCTAssertEqual(mock.journal().count, 1)
    }

    // MARK: The service against mock-apns

    func testCreateListReconcileAndDeleteAgainstTheMock() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: temporaryDirectory("ap-ch-tls"))))
        try mock.start()
        defer { mock.stop() }
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let client = try APNsClient(environment: .custom(mock.baseURL), token: try Self.token(),
                                    transport: HTTP2TransportConfiguration(caFile: mock.caCertificatePath))
        defer { Task { await client.shutdown() } }
        let channels = BroadcastChannels(registry: try ChannelRegistry(store: store), client: client, environment: .sandbox)
        let first = try await channels.create(bundleID: Self.bundleID, storagePolicy: .noMessageStored, activityID: "game-1")
        let second = try await channels.create(bundleID: Self.bundleID, storagePolicy: .mostRecentMessageStored)
        XCTAssertNotEqual(first.channelID, second.channelID)
        XCTAssertEqual(first.activityID, "game-1")
        // A channel made at Apple by another tool: Apple lists it, the registry does not.
        let made = await client.createChannel(bundleID: Self.bundleID, storagePolicy: .noMessageStored)
        let outside = try XCTUnwrap(made.response?.channelID)
        let listing = try await channels.list(bundleID: Self.bundleID, askApple: true)
        XCTAssertEqual(listing.entries.map(\.channelID), [first.channelID, second.channelID, outside])
        XCTAssertEqual(listing.entries.map(\.presence), ["both", "both", "apple-only"])
        // Deleted at Apple behind the registry's back: registry-only.
        _ = await client.deleteChannel(bundleID: Self.bundleID, channelID: second.channelID)
        let after = try await channels.list(bundleID: Self.bundleID, askApple: true)
        XCTAssertEqual(after.entries.map(\.presence), ["both", "registry-only", "apple-only"])
        let registryOnly = try await channels.list(bundleID: Self.bundleID, askApple: false)
        XCTAssertEqual(registryOnly.entries.map(\.presence), ["registered", "registered"])
        // Delete through the service: gone at Apple, marked in the registry; a channel Apple already forgot is marked too.
        let deleted = try await channels.delete(channelID: first.channelID)
        XCTAssertNotNil(deleted?.deletedUnixSeconds)
        _ = try await channels.delete(channelID: second.channelID)
        let last = try await channels.list(bundleID: Self.bundleID, askApple: true)
        XCTAssertEqual(last.entries.map(\.presence), ["apple-only"])
        do {
            _ = try await channels.delete(channelID: "bm90LWEtY2hhbm5lbA==", bundleID: Self.bundleID)
            XCTFail("Apple does not know this channel")
        } catch {
            XCTAssertEqual(error.kind, .notFound, error.description)
        }
        do {
            _ = try await channels.create(bundleID: Self.bundleID, storagePolicy: MessageStoragePolicy(rawValue: 2))
            XCTFail("policy 2 is not Apple's")
        } catch {
            XCTAssertEqual(error.kind, .badRequest)
        }
    }

    // MARK: The budget across workers, against mock-apns

    func testASecondBroadcastRightAfterTheFirstWaitsASecondOnSQLite() async throws {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        try await broadcastRightAfterAnother(stores: [store, store])
    }

    func testASecondBroadcastRightAfterTheFirstWaitsASecondTwoWorkersOnPostgreSQL() async throws {
        let url = try PostgresTestServer.freshDatabase()
        let first = try PostgresQueueStore(url: url)
        let second = try PostgresQueueStore(url: url)
        defer { first.close(); second.close() }
        try await broadcastRightAfterAnother(stores: [first, second])
    }

    /// Two broadcasts on one channel enqueued as fast as a backend can (the second as soon as the mock has the
    /// first; two broadcasts *pending* at once would be one: the newer supersedes the older, newest wins), one
    /// worker per store running meanwhile: the mock sees them ≥ 1 s apart and the journal names the budget. A
    /// broadcast on another channel is not held.
    private func broadcastRightAfterAnother(stores: [any QueueStore]) async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: temporaryDirectory("ap-bb-tls"))))
        try mock.start()
        defer { mock.stop() }
        let client = try APNsClient(environment: .custom(mock.baseURL), token: try Self.token(),
                                    transport: HTTP2TransportConfiguration(caFile: mock.caCertificatePath))
        defer { Task { await client.shutdown() } }
        let channels = BroadcastChannels(registry: try ChannelRegistry(store: stores[0]), client: client, environment: .sandbox)
        let busy = try await channels.create(bundleID: Self.bundleID, storagePolicy: .noMessageStored).channelID
        let quiet = try await channels.create(bundleID: Self.bundleID, storagePolicy: .noMessageStored).channelID
        func broadcast(_ channel: String, _ minutes: Int, _ ts: Int64) throws -> [NewPush] {
            let request = try LiveActivityPush.update(bundleID: Self.bundleID, contentState: .obj([("minutesLeft", .int(minutes))]),
                                                      timestampUnixSeconds: ts)
                .toBroadcast(channelID: channel).build()
            return try Outbox.rows(for: request, to: [], notBeforeUnixSeconds: Date().timeIntervalSince1970)
        }
        func delivered(_ channel: String) -> [MockJournalEntry] {
            mock.journal().filter { $0.path.hasPrefix("/4/broadcasts/") && $0.channelID == channel && $0.status == 200 }
        }
        let workers = stores.enumerated().map { index, store in
            QueueWorker(store: store, sender: APNsPushSender(client: client),
                        options: WorkerOptions(name: "w\(index)", window: 10, pollIntervalSeconds: 0.02))
        }
        let running = Task {
            try await withThrowingTaskGroup(of: WorkerSummary.self) { group -> Int in
                for worker in workers { group.addTask { try await worker.run() } }
                var sent = 0
                for try await summary in group { sent += summary.sent }
                return sent
            }
        }
        let ts = Int64(Date().timeIntervalSince1970)
        _ = try stores[0].enqueue(try broadcast(busy, 5, ts), nowUnixSeconds: Date().timeIntervalSince1970)
        let deadline = Date().addingTimeInterval(30)
        while delivered(busy).isEmpty, Date() < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        let secondEnqueued = Date().timeIntervalSince1970
        _ = try stores[1].enqueue(try broadcast(busy, 4, ts + 1) + broadcast(quiet, 3, ts + 1), nowUnixSeconds: secondEnqueued)
        while delivered(busy).count < 2 || delivered(quiet).isEmpty, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        workers.forEach { $0.stop() }
        let sent = try await running.value
        XCTAssertEqual(sent, 3, "each broadcast sent once")
        let onBusy = delivered(busy)
        XCTAssertEqual(onBusy.count, 2, "\(mock.journal().map { "\($0.path) \($0.status) \($0.reason ?? "")" })")
        guard onBusy.count == 2, let quietAt = delivered(quiet).first?.time else { return }
        let gap = onBusy[1].time - onBusy[0].time
        XCTAssertGreaterThanOrEqual(gap, BroadcastBudget.spacingSeconds, "second broadcast \(gap) s after the first")
        XCTAssertLessThan(quietAt - secondEnqueued, 1, "another channel is not held")
        let held = try stores[0].journal(pushID: nil, limit: 100).filter { $0.outcome == .held }
        print("broadcast budget (\(stores[0].location.prefix(8))): second enqueued \(String(format: "%.3f", secondEnqueued - onBusy[0].time)) s "
              + "after the first reached the mock, sent \(String(format: "%.3f", gap)) s after it; \(held.count) held journal row(s); "
              + "other channel \(String(format: "%.3f", quietAt - secondEnqueued)) s after enqueue")
        if secondEnqueued - onBusy[0].time < BroadcastBudget.spacingSeconds * 0.9 {
            XCTAssertFalse(held.isEmpty, "the journal shows the held broadcast")
        }
        XCTAssertTrue(held.allSatisfy { $0.reason == BroadcastBudget.reason && ($0.note ?? "").contains("1 broadcast per second per channel") })
    }

    static func token() throws -> ProviderToken {
        try ProviderToken(keyFile: try WorkerProcessHarness.authKey(), keyID: "QUEUETEST1", teamID: "TEAMQUEUE1")
    }
}
