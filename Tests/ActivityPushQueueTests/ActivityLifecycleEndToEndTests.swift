import ActivityPushAPNs
import ActivityPushConsole
import ActivityPushCore
import ActivityPushMock
import Foundation
import XCTest
@testable import ActivityPushQueue

/// The "Done when" scenario of issue 11: `serve` (the console API on its HTTP server) + queue worker(s) +
/// mock-apns over TLS playing the app (it posts each device's tokens to `/v1/tokens`), on SQLite and on
/// PostgreSQL with two workers. Everything runs in this process on loopback; every wait is bounded.
final class ActivityLifecycleEndToEndTests: XCTestCase {
    static let bundleID = "com.example.match"
    static let type = "MatchAttributes"
    static let attributesSource = """
        import ActivityKit
        struct MatchAttributes: ActivityAttributes {
            public struct ContentState: Codable, Hashable {
                var phase: String
                var score: String
            }
            var activityID: String
            var venue: String
        }
        """

    /// serve + mock + workers over one database.
    final class Rig: @unchecked Sendable {
        let mock: MockAPNsServer
        let reporter: MockTokenReporter
        let server: ConsoleServer
        let api: ConsoleAPI
        let service: LiveActivityService
        let stores: [any QueueStore]
        let client: APNsClient
        var workers: [QueueWorker] = []
        var runs: [Task<WorkerSummary, Error>] = []

        init(database: () throws -> any QueueStore, workers workerCount: Int, budgets: ActivityBudgets = .init(),
             intakeToken: String = "intake-secret") throws {
            let directory = temporaryDirectory("ap-lifecycle")
            let sourcePath = directory + "/MatchAttributes.swift"
            try ActivityLifecycleEndToEndTests.attributesSource.write(toFile: sourcePath, atomically: true, encoding: .utf8)
            let schema = try SwiftSourceReader.read(paths: [sourcePath])
            let serveStore = try database()
            let outbox = Outbox(store: serveStore)
            service = try LiveActivityService(outbox: outbox, bundleID: ActivityLifecycleEndToEndTests.bundleID, schema: schema,
                                              budgets: budgets)
            api = ConsoleAPI(configuration: ConsoleConfiguration(schema: schema, bundleID: ActivityLifecycleEndToEndTests.bundleID,
                                                                 environment: .sandbox, intakeToken: intakeToken),
                             outbox: outbox, activities: service)
            server = try ConsoleServer(port: 0, api: api)
            reporter = MockTokenReporter(url: server.url, intakeToken: intakeToken)
            mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
                transport: .tls(directory: directory + "/tls"), schema: schema, tokenReporter: reporter))
            try mock.start()
            stores = [serveStore] + (try (0..<workerCount).map { _ in try database() })
            let token = try ProviderToken(keyFile: try WorkerProcessHarness.authKey(), keyID: "LIFECYCLE1", teamID: "TEAMLIFE01")
            client = try APNsClient(environment: .custom(mock.baseURL), token: token,
                                    transport: HTTP2TransportConfiguration(caFile: mock.caCertificatePath, requestTimeoutSeconds: 10))
            for (index, store) in stores.dropFirst().enumerated() {
                workers.append(QueueWorker(store: store, sender: APNsPushSender(client: client),
                                           options: WorkerOptions(name: "worker-\(index + 1)", window: 50, leaseSeconds: 60,
                                                                  pollIntervalSeconds: 0.02)))
            }
        }

        func startWorkers() {
            for worker in workers { runs.append(Task { try await worker.run() }) }
        }

        func stop() async {
            for worker in workers { worker.stop() }
            for run in runs { _ = try? await run.value }
            await client.shutdown()
            await server.shutdown()
            mock.stop()
            for store in stores { store.close() }
        }

        func request(_ method: String, _ path: String, _ body: String? = nil, bearer: String? = nil) async -> (Int, JSONNode?) {
            var headers = ["Content-Type": "application/json"]
            if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
            let response = await api.handle(HTTPRequest(method: method, path: path, headers: headers, body: Array((body ?? "").utf8)))
            return (response.status, JSONReader.read(response.body).root)
        }

        /// Polls `condition` every 50 ms for at most `seconds`.
        func wait(seconds: Double = 30, _ what: String, _ condition: () async throws -> Bool) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try await condition() { return }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            XCTFail("timed out waiting for \(what)")
        }

        func view(_ id: String) throws -> ActivityView { try service.show(activityID: id) }
    }

    static func startBody(_ id: String, devices: [String]) -> String {
        """
        {"activityID": "\(id)", "type": "MatchAttributes", "attributes": {"activityID": "\(id)", "venue": "Arena"},
         "contentState": {"phase": "pre-game", "score": "0-0"}, "alert": {"title": "Kick-off", "body": "In 30 minutes"},
         "deviceIDs": [\(devices.map { "\"\($0)\"" }.joined(separator: ", "))]}
        """
    }

    /// The whole scenario on one database.
    func runScenario(database: @escaping () throws -> any QueueStore, workers: Int) async throws {
        let rig = try Rig(database: database, workers: workers)
        do {
            // Two devices post their push-to-start tokens (the mock plays the app's pushToStartTokenUpdates).
            _ = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
            _ = try rig.reporter.registerDevice("phone-2", attributesType: Self.type)
            let (created, first) = await rig.request("POST", "/v1/activities", Self.startBody("game-42", devices: ["phone-1", "phone-2"]))
            XCTAssertEqual(created, 202, first.map { JSONWriter.compact($0.value) } ?? "")
            let (repeated, _) = await rig.request("POST", "/v1/activities", Self.startBody("game-42", devices: ["phone-1", "phone-2"]))
            XCTAssertEqual(repeated, 200, "the same start again answers the current state")
            XCTAssertEqual(try rig.view("game-42").pushes.count, 2, "the repeat queued nothing")

            // An update before either device reported its update token: held.
            let (updated, _) = await rig.request("POST", "/v1/activities/game-42/update",
                                                 #"{"contentState": {"phase": "first-half", "score": "1-0"}}"#)
            XCTAssertEqual(updated, 202)
            XCTAssertEqual(try rig.view("game-42").devices.map(\.held), ["update", "update"])
            XCTAssertEqual(try rig.view("game-42").pushes.count, 2, "held, not queued")

            rig.startWorkers()
            try await rig.wait("both updates sent") {
                try rig.view("game-42").pushes.filter { $0.event == "update" && $0.queueState == "sent" }.count == 2
            }
            XCTAssertEqual(try rig.view("game-42").state, .active)
            let (ended, endAnswer) = await rig.request("POST", "/v1/activities/game-42/end", #"{"contentState": {"phase": "full-time", "score": "2-1"}}"#)
            XCTAssertEqual(ended, 202)
            // Issue 11: the answer is the summary with the pushes this end queued (one per started device).
            if case .array(let queued)? = endAnswer?["queued"]?.value {
                XCTAssertEqual(queued.compactMap { $0["event"]?.value.stringValue }, ["end", "end"])
            } else { XCTFail("no queued pushes in the end's answer") }
            XCTAssertNil(endAnswer?["journal"], "the answer is the summary, not the whole view")
            // Issue 11 L4: the client retries the end after a timeout: 200, nothing queued; another end is a 409.
            let (endedAgain, againAnswer) = await rig.request("POST", "/v1/activities/game-42/end",
                                                              #"{"contentState": {"phase": "full-time", "score": "2-1"}}"#)
            XCTAssertEqual(endedAgain, 200)
            if case .array(let queued)? = againAnswer?["queued"]?.value { XCTAssertTrue(queued.isEmpty) } else { XCTFail("no queued") }
            let (otherEnd, otherAnswer) = await rig.request("POST", "/v1/activities/game-42/end",
                                                            #"{"contentState": {"phase": "full-time", "score": "3-1"}}"#)
            XCTAssertEqual(otherEnd, 409)
            XCTAssertTrue(otherAnswer?["error"]?["message"]?.value.stringValue?.contains("ended") == true)
            try await rig.wait("both ends sent") {
                try rig.view("game-42").pushes.filter { $0.event == "end" && $0.queueState == "sent" }.count == 2
            }

            let (status, shown) = await rig.request("GET", "/v1/activities/game-42")
            XCTAssertEqual(status, 200)
            XCTAssertEqual(shown?["state"]?.value.stringValue, "ended")
            // A console that can reach the mock (serve --url … with a key) adds each push's device outcome.
            let withMock = ConsoleAPI(configuration: ConsoleConfiguration(schema: nil, bundleID: Self.bundleID, environment: .custom("mock"),
                                                                          readMockJournal: true),
                                      client: rig.client, outbox: rig.service.outbox, activities: rig.service)
            let timeline = JSONReader.read(await withMock.handle(HTTPRequest(method: "GET", path: "/v1/activities/game-42")).body).root
            if case .array(let pushes)? = timeline?["pushes"]?.value {
                XCTAssertEqual(pushes.compactMap { $0["deviceOutcome"]?.value.stringValue },
                               ["started", "started", "updated", "updated", "ended", "ended"])
            } else { XCTFail("no pushes") }
            let view = try rig.view("game-42")
            XCTAssertEqual(view.devices.map(\.state), [.ended, .ended])
            XCTAssertTrue(view.devices.allSatisfy { $0.updateToken?.contains("…") == true }, "tokens redacted")
            XCTAssertEqual(view.pushes.map(\.status), Array(repeating: 200, count: 6))
            // aps.timestamp strictly increases over the activity's pushes: start < update < end.
            func stamps(_ event: String) -> [Int64] {
                rig.mock.journal().filter { $0.event == event && $0.status == 200 }.map { NewPush.apsTimestamp(of: $0.body) }
            }
            XCTAssertLessThan(stamps("start").max() ?? 0, stamps("update").min() ?? 0)
            XCTAssertLessThan(stamps("update").max() ?? 0, stamps("end").min() ?? 0)

            let journal = rig.mock.journal().filter { $0.status == 200 }
            let outcomes = journal.map { "\($0.event ?? "?"):\($0.device?.outcome.rawValue ?? "?")" }.sorted()
            XCTAssertEqual(outcomes, ["end:ended", "end:ended", "start:started", "start:started", "update:updated", "update:updated"],
                           "exactly 2 starts, 2 updates, 2 ends, all applied")
            XCTAssertEqual(Set(journal.compactMap(\.apnsID)).count, journal.count, "no push sent twice")
            let (listed, list) = await rig.request("GET", "/v1/activities", nil)
            XCTAssertEqual(listed, 200)
            if case .array(let items)? = list?["activities"]?.value { XCTAssertEqual(items.count, 1) } else { XCTFail("no list") }
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    func testWholeLifeOnSQLite() async throws {
        let path = temporarySQLitePath()
        try await runScenario(database: { try SQLiteQueueStore(path: path) }, workers: 1)
    }

    func testWholeLifeOnPostgresWithTwoWorkers() async throws {
        let url = try PostgresTestServer.freshDatabase()
        try await runScenario(database: { try PostgresQueueStore(url: url) }, workers: 2)
    }

    func testTheEleventhStartToOneTokenWithinAnHourIsHeldAndNamedInTheJournal() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 1)
        do {
            _ = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
            for index in 1...11 {
                let (status, _) = await rig.request("POST", "/v1/activities", Self.startBody("match-\(index)", devices: ["phone-1"]))
                XCTAssertEqual(status, 202)
            }
            let eleventh = try XCTUnwrap(try rig.view("match-11").pushes.first)
            XCTAssertEqual(eleventh.budget, ActivityBudget.pushToStart.rawValue)
            XCTAssertGreaterThan(eleventh.notBeforeUnixSeconds, Date().timeIntervalSince1970 + 3000, "held for the hour")
            let held = try rig.stores[0].journal(pushID: eleventh.pushID, limit: 10)
            XCTAssertEqual(held.first?.outcome, .held)
            XCTAssertTrue(held.first?.note?.contains(ActivityBudget.pushToStart.rawValue) == true, "\(held)")
            rig.startWorkers()
            try await rig.wait("ten starts sent") {
                (1...10).allSatisfy { (try? rig.view("match-\($0)").pushes.first?.queueState) == "sent" }
            }
            // The mock reports each started activity's update token (asynchronously): all ten become active.
            try await rig.wait("ten activities active") { try rig.service.counts().activities["active"] == 10 }
            XCTAssertEqual(try rig.view("match-11").pushes.first?.queueState, "pending", "the 11th is not sent")
            XCTAssertEqual(rig.mock.journal().filter { $0.event == "start" }.count, 10)
            let metrics = await rig.api.handle(HTTPRequest(method: "GET", path: "/metrics")).bodyText
            XCTAssertTrue(metrics.contains("activity_push_budget_holds_total{budget=\"\(ActivityBudget.pushToStart.rawValue)\"} 1"), metrics)
            XCTAssertTrue(metrics.contains("activity_push_activities{state=\"active\"} 10"), metrics)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    func testAPriorityTenUpdateOverTheBudgetGoesOutAtPriorityFive() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 1,
                          budgets: ActivityBudgets(priority10UpdatesPerHour: 2))
        do {
            _ = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
            _ = await rig.request("POST", "/v1/activities", Self.startBody("game-7", devices: ["phone-1"]))
            rig.startWorkers()
            try await rig.wait("the update token") { try rig.view("game-7").devices.first?.state == .started }
            for (index, score) in ["1-0", "2-0", "3-0"].enumerated() {
                let (status, _) = await rig.request("POST", "/v1/activities/game-7/update",
                                                    #"{"contentState": {"phase": "live", "score": "\#(score)"}}"#)
                XCTAssertEqual(status, 202)
                // One at a time: a newer update queued before the older one went would supersede it (newest wins).
                try await rig.wait("update \(index + 1) answered") {
                    try rig.view("game-7").pushes.filter { $0.event == "update" && $0.status != nil }.count == index + 1
                }
            }
            let updates = try rig.view("game-7").pushes.filter { $0.event == "update" }
            XCTAssertEqual(updates.map(\.priority), [10, 10, 5])
            XCTAssertEqual(updates.last?.budget, ActivityBudget.priority10.rawValue)
            let delivered = rig.mock.journal().filter { $0.event == "update" }.map { $0.headers.priority }
            XCTAssertEqual(delivered, ["10", "10", "5"], "the third went to APNs at priority 5")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    func testBadInputIsA4xxNamingTheFieldAndNothingIsHalfWritten() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 0)
        // The intake route takes its own bearer, not the admin one.
        let tokenBody = #"{"kind": "push-to-start", "deviceID": "phone-1", "attributesType": "MatchAttributes", "token": "\#(String(repeating: "ab", count: 32))"}"#
        let (unauthorized, _) = await rig.request("POST", "/v1/tokens", tokenBody)
        XCTAssertEqual(unauthorized, 401)
        let (accepted, receipt) = await rig.request("POST", "/v1/tokens", tokenBody, bearer: "intake-secret")
        XCTAssertEqual(accepted, 202)
        XCTAssertEqual(receipt?["token"]?.value.stringValue, "abab…abab", "never returned in full")

        let cases: [(String, String, Int, String)] = [
            ("/v1/tokens", #"{"kind": "push-to-start", "deviceID": "d", "token": "xyz", "attributesType": "T"}"#, 400, "token"),
            ("/v1/tokens", #"{"kind": "update", "deviceID": "d", "token": "abab"}"#, 400, "token"),
            ("/v1/tokens", #"{"kind": "sideways", "deviceID": "d", "token": "\#(String(repeating: "ab", count: 32))"}"#, 400, "kind"),
            ("/v1/activities", #"{"type": "MatchAttributes", "deviceIDs": ["phone-1"]}"#, 400, "activityID"),
            ("/v1/activities", #"{"activityID": "a b", "deviceIDs": ["phone-1"], "contentState": {}}"#, 400, "activityID"),
            ("/v1/activities", #"{"activityID": "x", "contentState": {"phase": "p", "score": "s"}}"#, 400, "deviceIDs"),
            ("/v1/activities", #"{"activityID": "x", "deviceIDs": ["phone-1"], "contentstate": {}}"#, 400, "contentstate"),
            ("/v1/activities/nope/update", #"{"contentState": {"phase": "p", "score": "s"}}"#, 404, "activityID"),
        ]
        for (path, body, status, field) in cases {
            let bearer = path == "/v1/tokens" ? "intake-secret" : nil
            let (got, answer) = await rig.request("POST", path, body, bearer: bearer)
            XCTAssertEqual(got, status, "\(path) \(body)")
            XCTAssertEqual(answer?["error"]?["field"]?.value.stringValue, field, "\(path) \(body)")
            XCTAssertNotNil(answer?["error"]?["fix"]?.value.stringValue, "\(path) \(body): a fix is named")
        }
        // Findings: a start whose attributes the type does not store is refused (422) and nothing is written.
        let bad = #"{"activityID": "bad", "type": "MatchAttributes", "attributes": {"activityID": "bad", "venue": "A", "alert_title": "x"}, "contentState": {"phase": "p", "score": "s"}, "alert": {"title": "t", "body": "b"}, "deviceIDs": ["phone-1"]}"#
        let (refused, findings) = await rig.request("POST", "/v1/activities", bad)
        XCTAssertEqual(refused, 422)
        if case .array(let items)? = findings?["findings"]?.value {
            XCTAssertTrue(items.contains { $0["code"]?.value.stringValue == "unknown-attribute-key" })
        } else { XCTFail("no findings") }
        let (missing, _) = await rig.request("GET", "/v1/activities/bad")
        XCTAssertEqual(missing, 404, "nothing half-written")
        XCTAssertEqual(try rig.stores[0].status(nowUnixSeconds: Date().timeIntervalSince1970).counts["pending"], 0)

        // One device without a token: created for the others, and the answer names it.
        let (created, view) = await rig.request("POST", "/v1/activities", Self.startBody("game-9", devices: ["phone-1", "tablet-2"]))
        XCTAssertEqual(created, 202)
        if case .array(let items)? = view?["missingTokens"]?.value {
            XCTAssertEqual(items.compactMap { $0.value.stringValue }, ["tablet-2"])
        } else { XCTFail("no missingTokens") }
        XCTAssertEqual(try rig.view("game-9").pushes.count, 1)
        // Its push-to-start token arrives later: the running activity starts there too.
        let late = #"{"kind": "push-to-start", "deviceID": "tablet-2", "attributesType": "MatchAttributes", "token": "\#(String(repeating: "cd", count: 32))"}"#
        let (lateStatus, lateReceipt) = await rig.request("POST", "/v1/tokens", late, bearer: "intake-secret")
        XCTAssertEqual(lateStatus, 202)
        XCTAssertEqual(lateReceipt?["released"]?.value.numberValue?.integralValue, 1)
        XCTAssertEqual(try rig.view("game-9").devices.map(\.state), [.starting, .starting])
        XCTAssertEqual(try rig.view("game-9").pushes.map(\.event), ["start", "start"])
        let (conflict, _) = await rig.request("POST", "/v1/activities", Self.startBody("game-9", devices: ["phone-1"]))
        XCTAssertEqual(conflict, 409, "another body under the same activityID")
        let (channel, _) = await rig.request("POST", "/v1/activities",
            #"{"activityID": "ch", "channel": true, "type": "MatchAttributes", "attributes": {"activityID": "ch", "venue": "A"}, "contentState": {"phase": "p", "score": "s"}, "alert": {"title": "t", "body": "b"}}"#)
        // Deliberately changed with the channels work: a channel activity is wired (ChannelActivityTests); this
        // console has no APNs key to create its channel with, so it is not configured for it.
        XCTAssertEqual(channel, 503, "a channel activity needs serve's --auth-key to create its channel")
        await rig.stop()
    }

    /// Issue 11 W1: `worker --drain` (with --drain-wait) waits for the update tokens that release the held
    /// updates of the activities whose starts it sent, instead of exiting while they are still due.
    func testADrainingWorkerWaitsForTheUpdateTokensThatReleaseHeldUpdates() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 0)
        let workerStore = try SQLiteQueueStore(path: path)
        do {
            _ = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
            _ = try rig.reporter.registerDevice("phone-2", attributesType: Self.type)
            let (created, _) = await rig.request("POST", "/v1/activities", Self.startBody("game-3", devices: ["phone-1", "phone-2"]))
            XCTAssertEqual(created, 202)
            _ = await rig.request("POST", "/v1/activities/game-3/update", #"{"contentState": {"phase": "first-half", "score": "1-0"}}"#)
            XCTAssertEqual(try rig.view("game-3").devices.map(\.held), ["update", "update"])
            let worker = QueueWorker(store: workerStore, sender: APNsPushSender(client: rig.client),
                                     options: WorkerOptions(name: "drain-1", window: 10, pollIntervalSeconds: 0.02,
                                                            drain: true, drainWaitSeconds: 20))
            let watchdog = Task { try await Task.sleep(nanoseconds: 60_000_000_000); worker.stop() }
            let summary = try await worker.run()
            watchdog.cancel()
            let view = try rig.view("game-3")
            XCTAssertEqual(view.pushes.filter { $0.event == "update" }.map(\.queueState), ["sent", "sent"],
                           "the drain ended only after the released updates went (\(summary))")
            XCTAssertEqual(view.devices.map(\.state), [.started, .started])
        } catch {
            workerStore.close()
            await rig.stop()
            throw error
        }
        workerStore.close()
        await rig.stop()
    }

    /// Issue 11 W3, U3: a type not in the schema is refused at intake and at start with the validator's
    /// `attributes-type-mismatch` (naming the right spelling); an update token names a known activity and device.
    func testTheTypeAndTheUpdateTokensActivityAreCheckedAtIntake() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 0)
        let hex = String(repeating: "ab", count: 32)
        let caseOnly = #"{"kind": "push-to-start", "deviceID": "phone-1", "attributesType": "matchAttributes", "token": "\#(hex)"}"#
        let (refused, answer) = await rig.request("POST", "/v1/tokens", caseOnly, bearer: "intake-secret")
        XCTAssertEqual(refused, 422)
        XCTAssertEqual(answer?["error"]?["field"]?.value.stringValue, "attributesType")
        let message = answer?["error"]?["message"]?.value.stringValue ?? ""
        XCTAssertTrue(message.contains("attributes-type-mismatch") && message.contains("letter case"), message)
        XCTAssertTrue(answer?["error"]?["fix"]?.value.stringValue?.contains("\"MatchAttributes\"") == true, "names the right spelling")
        if case .array(let findings)? = answer?["findings"]?.value {
            XCTAssertEqual(findings.compactMap { $0["code"]?.value.stringValue }, ["attributes-type-mismatch"])
        } else { XCTFail("no findings") }
        let unknown = #"{"kind": "push-to-start", "deviceID": "phone-1", "attributesType": "PizzaAttributes", "token": "\#(hex)"}"#
        let (refusedUnknown, _) = await rig.request("POST", "/v1/tokens", unknown, bearer: "intake-secret")
        XCTAssertEqual(refusedUnknown, 422)
        XCTAssertEqual(try rig.service.counts().tokens.values.reduce(0, +), 0, "nothing stored")

        _ = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
        let wrongType = Self.startBody("game-8", devices: ["phone-1"]).replacingOccurrences(of: "\"type\": \"MatchAttributes\"",
                                                                                          with: "\"type\": \"MatchAttribute\"")
        let (startRefused, startAnswer) = await rig.request("POST", "/v1/activities", wrongType)
        XCTAssertEqual(startRefused, 422)
        XCTAssertEqual(startAnswer?["error"]?["field"]?.value.stringValue, "type")
        XCTAssertTrue(startAnswer?["error"]?["message"]?.value.stringValue?.contains("attributes-type-mismatch") == true,
                      "the finding, not \"no device has a push-to-start token\"")

        let (created, _) = await rig.request("POST", "/v1/activities", Self.startBody("game-8", devices: ["phone-1"]))
        XCTAssertEqual(created, 202)
        // phone-1 was registered by the mock's reporter, which binds it to its install secret (issue 11 H2).
        let secret = try XCTUnwrap(rig.reporter.deviceSecret(of: "phone-1"))
        let noActivity = #"{"kind": "update", "deviceID": "phone-1", "activityID": "game-80", "token": "\#(hex)", "deviceSecret": "\#(secret)"}"#
        let (missing, missingAnswer) = await rig.request("POST", "/v1/tokens", noActivity, bearer: "intake-secret")
        XCTAssertEqual(missing, 404)
        XCTAssertEqual(missingAnswer?["error"]?["field"]?.value.stringValue, "activityID")
        XCTAssertNotNil(missingAnswer?["error"]?["fix"]?.value.stringValue)
        let otherDevice = #"{"kind": "update", "deviceID": "phone-9", "activityID": "game-8", "token": "\#(hex)"}"#
        let (notIn, notInAnswer) = await rig.request("POST", "/v1/tokens", otherDevice, bearer: "intake-secret")
        XCTAssertEqual(notIn, 404)
        XCTAssertEqual(notInAnswer?["error"]?["field"]?.value.stringValue, "deviceID")
        XCTAssertTrue(notInAnswer?["error"]?["message"]?.value.stringValue?.contains("phone-1") == true, "names the activity's devices")
        let (known, _) = await rig.request("POST", "/v1/tokens",
                                           #"{"kind": "update", "deviceID": "phone-1", "activityID": "game-8", "token": "\#(hex)", "deviceSecret": "\#(secret)"}"#,
                                           bearer: "intake-secret")
        XCTAssertEqual(known, 202)
        XCTAssertEqual(try rig.view("game-8").devices.map(\.state), [.started])
        await rig.stop()
    }

    /// Issue 11 U4: an end before the start was sent takes the queued start back (nothing reached the phone).
    func testAnEndBeforeTheStartWentOutCancelsTheQueuedStart() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 0)
        _ = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
        _ = await rig.request("POST", "/v1/activities", Self.startBody("game-4", devices: ["phone-1"]))
        _ = await rig.request("POST", "/v1/activities/game-4/update", #"{"contentState": {"phase": "first-half", "score": "1-0"}}"#)
        let (ended, _) = await rig.request("POST", "/v1/activities/game-4/end", #"{"contentState": {"phase": "off", "score": "1-0"}}"#)
        XCTAssertEqual(ended, 202)
        let view = try rig.view("game-4")
        XCTAssertEqual(view.state, .ended)
        XCTAssertEqual(view.devices.map(\.state), [.cancelled])
        XCTAssertEqual(view.devices.map(\.held), [nil])
        XCTAssertEqual(view.pushes.map(\.event), ["start"])
        XCTAssertEqual(view.pushes.first?.queueState, "superseded")
        XCTAssertTrue(view.journal.contains { $0.deviceID == "phone-1" && $0.text.contains("cancelled") }, "\(view.journal)")
        XCTAssertEqual(try rig.stores[0].status(nowUnixSeconds: Date().timeIntervalSince1970).counts["pending"], 0, "nothing left to send")
        await rig.stop()
    }

    func testATokenAnsweredUnregisteredIsRetiredWithTheReasonInTheJournal() async throws {
        let path = temporarySQLitePath()
        let rig = try Rig(database: { try SQLiteQueueStore(path: path) }, workers: 1)
        do {
            let token = try rig.reporter.registerDevice("phone-1", attributesType: Self.type)
            rig.mock.unregister(token: token)
            _ = await rig.request("POST", "/v1/activities", Self.startBody("game-5", devices: ["phone-1"]))
            rig.startWorkers()
            try await rig.wait("the start answered") { try rig.view("game-5").pushes.first?.status != nil }
            try await rig.wait("the token retired") { try rig.view("game-5").devices.first?.tokenRetired != nil }
            let view = try rig.view("game-5")
            XCTAssertEqual(view.devices.first?.state, .tokenRetired)
            XCTAssertEqual(view.devices.first?.tokenRetired, "Unregistered")
            XCTAssertTrue(view.journal.contains { $0.text.contains("retired") && $0.text.contains("Unregistered") }, "\(view.journal)")
            XCTAssertEqual(try rig.service.counts().retiredTokens, 1)
            // The next start to that device finds no live token.
            let (next, answer) = await rig.request("POST", "/v1/activities", Self.startBody("game-6", devices: ["phone-1"]))
            XCTAssertEqual(next, 422, answer.map { JSONWriter.compact($0.value) } ?? "")
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}
