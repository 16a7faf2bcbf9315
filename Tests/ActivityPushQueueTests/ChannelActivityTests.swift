import ActivityPushAPNs
import ActivityPushCore
import ActivityPushMock
import Foundation
import XCTest
@testable import ActivityPushQueue

/// `"channel": true` activities end to end: the lifecycle service, the channel service and a worker against
/// mock-apns over TLS, on SQLite.
final class ChannelActivityTests: XCTestCase {
    static let bundleID = Pushes.bundleID

    func testChannelActivityStartsWithInputPushChannelBroadcastsUpdateAndEndAndDeletesItsChannel() async throws {
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        try await channelActivity(stores: [store])
    }

    func testChannelActivityOnPostgreSQLWithTwoWorkersSendsNothingTwice() async throws {
        let url = try PostgresTestServer.freshDatabase()
        let first = try PostgresQueueStore(url: url)
        let second = try PostgresQueueStore(url: url)
        defer { first.close(); second.close() }
        try await channelActivity(stores: [first, second])
    }

    /// Starts a channel activity on two devices, updates and ends it, drained by one worker per store.
    private func channelActivity(stores: [any QueueStore]) async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .tls(directory: temporaryDirectory("ap-ca-tls"))))
        try mock.start()
        defer { mock.stop() }
        let store = stores[0]
        let outbox = Outbox(store: store)
        let client = try APNsClient(environment: .custom(mock.baseURL), token: try BroadcastChannelTests.token(),
                                    transport: HTTP2TransportConfiguration(caFile: mock.caCertificatePath))
        defer { Task { await client.shutdown() } }
        let channels = BroadcastChannels(registry: try ChannelRegistry(store: store), client: client, environment: .sandbox)
        let service = try LiveActivityService(outbox: outbox, bundleID: Self.bundleID)
        for device in 1...2 {
            _ = try service.register(ActivityTokenRegistration(kind: .pushToStart, deviceID: "device-\(device)",
                                                               attributesType: "PizzaDeliveryAttributes",
                                                               token: String(repeating: String(format: "%02x", device), count: 80)))
        }
        var start = ActivityStartRequest(activityID: "game-42")
        start.attributesType = "PizzaDeliveryAttributes"
        start.attributes = .obj([("orderNumber", .int(42))])
        start.contentState = .obj([("minutesLeft", .int(30))])
        start.alertTitle = "Kick-off"
        start.alertBody = "Game 42 has started"
        start.deviceIDs = ["device-1", "device-2"]
        start.channel = true
        start.deleteChannelOnEnd = true
        let (started, created) = try await service.start(start, channels: channels)
        XCTAssertTrue(created)
        let channelID = try XCTUnwrap(started.channelID)
        XCTAssertEqual(try channels.registry.channel(forActivity: "game-42", environment: .sandbox)?.channelID, channelID,
                       "the registry links the channel to the activity")
        // The same start again: nothing new, no second channel.
        let (again, createdAgain) = try await service.start(start, channels: channels)
        XCTAssertFalse(createdAgain)
        XCTAssertEqual(again.channelID, channelID)
        XCTAssertEqual(try channels.registry.channels(bundleID: Self.bundleID, environment: .sandbox).count, 1)

        var update = ActivityChangeRequest(contentState: .obj([("minutesLeft", .int(20))]))
        update.priority = 10
        _ = try service.update(activityID: "game-42", update)
        try await drain(stores, client)
        // Issue 11 W9: no update token comes back on a channel activity; the delivered start is what subscribes.
        let subscribed = try service.show(activityID: "game-42")
        XCTAssertEqual(subscribed.devices.map(\.state), [.started, .started], "start answered 200: subscribed")
        XCTAssertEqual(subscribed.state, .active)
        XCTAssertTrue(subscribed.journal.contains { $0.text.contains("subscribed to channel \(channelID)") }, "\(subscribed.journal)")
        _ = try service.end(activityID: "game-42", ActivityChangeRequest(contentState: .obj([("minutesLeft", .int(0))])))
        try await drain(stores, client)

        let journal = mock.journal()
        let starts = journal.filter { $0.path.hasPrefix("/3/device/") && $0.status == 200 }
        XCTAssertEqual(starts.count, 2, "one start per device")
        for entry in starts {
            XCTAssertTrue(String(decoding: entry.body, as: UTF8.self).contains("\"input-push-channel\":\"\(channelID)\""),
                          String(decoding: entry.body, as: UTF8.self))
            XCTAssertEqual(entry.device?.outcome, .started)
        }
        XCTAssertEqual(Set(journal.compactMap(\.apnsID)).count, journal.count, "no push sent twice")
        let broadcasts = journal.filter { $0.path.hasPrefix("/4/broadcasts/") && $0.status == 200 }
        XCTAssertEqual(broadcasts.map(\.event), ["update", "end"], "each update and end is one broadcast")
        XCTAssertEqual(broadcasts.map { $0.device?.outcome }, [.updated, .ended])
        XCTAssertTrue(broadcasts.allSatisfy { $0.channelID == channelID })
        if broadcasts.count == 2 { XCTAssertGreaterThanOrEqual(broadcasts[1].time - broadcasts[0].time, BroadcastBudget.spacingSeconds - 0.001) }
        let view = try service.show(activityID: "game-42")
        XCTAssertEqual(view.state, .ended)
        XCTAssertEqual(view.devices.map(\.state), [.ended, .ended], "the end broadcast reached both")
        XCTAssertEqual(view.pushes.map(\.event), ["start", "start", "update", "end"])

        // deleteChannelOnEnd: once the end broadcast is sent, the channel goes at Apple and in the registry.
        let deleted = await channels.deleteChannelsOfEndedActivities()
        XCTAssertEqual(deleted, [channelID])
        let listing = try await channels.list(bundleID: Self.bundleID, askApple: true, includeDeleted: true)
        XCTAssertEqual(listing.entries.map(\.presence), ["deleted"])
    }

    func testAChannelActivityThatCannotStartLeavesNoChannelBehind() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let client = try APNsClient(environment: .custom(mock.baseURL), token: try BroadcastChannelTests.token())
        defer { Task { await client.shutdown() } }
        let channels = BroadcastChannels(registry: try ChannelRegistry(store: store), client: client, environment: .sandbox)
        let service = try LiveActivityService(outbox: Outbox(store: store), bundleID: Self.bundleID)
        var start = ActivityStartRequest(activityID: "game-43")
        start.attributesType = "PizzaDeliveryAttributes"
        start.attributes = .obj([("orderNumber", .int(43))])
        start.contentState = .obj([("minutesLeft", .int(30))])
        start.alertTitle = "Kick-off"
        start.alertBody = "Game 43"
        start.channel = true
        var untyped = start
        untyped.attributesType = nil   // no schema to take the only type from: 400 after the channel was made
        do {
            _ = try await service.start(untyped, channels: channels)
            XCTFail("a start without its type is refused")
        } catch {
            XCTAssertEqual(error.status, 400, error.description)
            XCTAssertEqual(error.field, "type")
        }
        let listing = try await channels.list(bundleID: Self.bundleID, askApple: true)
        XCTAssertEqual(listing.entries.count, 0, "the channel made for the failed start was deleted again")
        var unknown = start
        unknown.channelID = "bm90LWEtY2hhbm5lbA=="
        do {
            _ = try await service.start(unknown, channels: channels)
            XCTFail("an unregistered channelID is refused")
        } catch {
            XCTAssertEqual(error.status, 404)
            XCTAssertEqual(error.field, "channelID")
        }
        do {
            _ = try await service.start(start, channels: nil)
            XCTFail("no channel service")
        } catch {
            XCTAssertEqual(error.status, 503)
        }
    }

    /// Issue 11 M1: the same `"channel": true` start posted 20 times at once creates one channel and answers every
    /// request with the activity (one created, 19 repeats); no 409, no channel created and deleted again.
    func testTwentyConcurrentIdenticalChannelStartsCreateOneChannel() async throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let store = try SQLiteQueueStore(path: temporarySQLitePath())
        defer { store.close() }
        let client = try APNsClient(environment: .custom(mock.baseURL), token: try BroadcastChannelTests.token())
        defer { Task { await client.shutdown() } }
        let channels = BroadcastChannels(registry: try ChannelRegistry(store: store), client: client, environment: .sandbox)
        let service = try LiveActivityService(outbox: Outbox(store: store), bundleID: Self.bundleID)
        var start = ActivityStartRequest(activityID: "game-44")
        start.attributesType = "PizzaDeliveryAttributes"
        start.attributes = .obj([("orderNumber", .int(44))])
        start.contentState = .obj([("minutesLeft", .int(30))])
        start.alertTitle = "Kick-off"
        start.alertBody = "Game 44"
        start.channel = true
        let request = start
        let outcomes = try await withThrowingTaskGroup(of: (created: Bool, channelID: String?).self) { group in
            for _ in 1...20 {
                group.addTask {
                    let (view, created) = try await service.start(request, channels: channels)
                    return (created, view.channelID)
                }
            }
            var all: [(created: Bool, channelID: String?)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        XCTAssertEqual(outcomes.filter(\.created).count, 1, "one start created the activity, 19 were repeats")
        XCTAssertEqual(Set(outcomes.compactMap(\.channelID)).count, 1, "every answer names the same channel")
        let creations = mock.journal().filter { $0.method == "POST" && $0.path.contains("channels") }
        XCTAssertEqual(creations.count, 1, "one channel created at Apple: \(creations.map(\.path))")
        let listing = try await channels.list(bundleID: Self.bundleID, askApple: true)
        XCTAssertEqual(listing.entries.count, 1)
        // A repeat after the fact still compares equal (the fingerprint is the request as sent, without the channel).
        let (_, createdAgain) = try await service.start(request, channels: channels)
        XCTAssertFalse(createdAgain)
    }

    /// One draining worker per store, at once (bounded: stopped after 60 s whatever happens).
    private func drain(_ stores: [any QueueStore], _ client: APNsClient) async throws {
        let workers = stores.enumerated().map { index, store in
            QueueWorker(store: store, sender: APNsPushSender(client: client),
                        options: WorkerOptions(name: "channel-activity-\(index)", window: 10, pollIntervalSeconds: 0.02, drain: true))
        }
        let watchdog = Task { try await Task.sleep(nanoseconds: 60_000_000_000); workers.forEach { $0.stop() } }
        defer { watchdog.cancel() }
        try await withThrowingTaskGroup(of: WorkerSummary.self) { group in
            for worker in workers { group.addTask { try await worker.run() } }
            for try await _ in group {}
        }
    }
}
