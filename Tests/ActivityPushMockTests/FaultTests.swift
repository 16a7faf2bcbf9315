import XCTest
@testable import ActivityPushMock

/// `--faults` / `POST /_mock/faults`: 429 with Retry-After, 500, 503, delay, GOAWAY, dropped connection.
final class FaultTests: XCTestCase {
    func testSpecParsing() throws {
        let plan = try MockFaultPlan(spec: "429=30:next=2, 503:share=10%, delay=200ms:all, goaway, drop:next=1, 500:share=0.5, delay=2s:next=1")
        XCTAssertEqual(plan.rules, [
            .init(action: .tooManyRequests(retryAfterSeconds: 30), selection: .next(2)),
            .init(action: .serviceUnavailable, selection: .share(0.1)),
            .init(action: .delay(milliseconds: 200), selection: .share(1)),
            .init(action: .goaway, selection: .next(1)),
            .init(action: .drop, selection: .next(1)),
            .init(action: .internalServerError, selection: .share(0.5)),
            .init(action: .delay(milliseconds: 2000), selection: .next(1)),
        ])
        XCTAssertEqual(try MockFaultPlan(spec: plan.description), plan)
        XCTAssertEqual(try MockFaultPlan(spec: "none").rules, [])
        for bad in ["418", "429:next=0", "503:share=150%", "delay=abc", "drop:sometimes"] {
            XCTAssertThrowsError(try MockFaultPlan(spec: bad), bad) { e in
                XCTAssertTrue("\(e)".contains(bad), "\(e)")
            }
        }
    }

    func testConnectionFaultSpellings() throws {
        let plan = try MockFaultPlan(spec: "goaway-abrupt:share=3%,drop-before:next=2,drop,drop-after:all,refused:next=1,streams=1:next=1")
        XCTAssertEqual(plan.rules.map(\.action), [.goawayAbrupt, .drop, .drop, .dropAfterProcessing, .refused, .maxConcurrentStreams(1)])
        XCTAssertEqual(plan.description, "goaway-abrupt:share=0.03,drop-before:next=2,drop-before:next=1,drop-after:all,refused:next=1,streams=1:next=1")
        XCTAssertEqual(try MockFaultPlan(spec: plan.description), plan)
        XCTAssertThrowsError(try MockFaultPlan(spec: "streams=-1")) { XCTAssertTrue("\($0)".contains("streams=N"), "\($0)") }
        // streams=N is a modifier: it combines with the deciding fault, like delay.
        var combined = try MockFaultPlan(spec: "streams=1:next=1,503:next=1,delay=10ms:next=1")
        XCTAssertEqual(combined.draw(random: { 0.5 }), .init(action: .serviceUnavailable, delayMilliseconds: 10, maxConcurrentStreams: 1))
        XCTAssertTrue(combined.rules.isEmpty)
    }

    func testDrawCountsDownAndCombinesDelay() throws {
        var plan = try MockFaultPlan(spec: "429:next=2,delay=50ms:next=1,503:share=100%")
        let a = plan.draw(random: { 0.5 })
        XCTAssertEqual(a.action, .tooManyRequests(retryAfterSeconds: 1))
        XCTAssertEqual(a.delayMilliseconds, 50)
        XCTAssertEqual(plan.draw(random: { 0.5 }).action, .tooManyRequests(retryAfterSeconds: 1))
        XCTAssertEqual(plan.draw(random: { 0.5 }).action, .serviceUnavailable)
        XCTAssertEqual(plan.rules.count, 1)
    }

    func testFaultAnswersOverTheWire() throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(
            transport: .h2c, faults: try MockFaultPlan(spec: "429=7:next=1,500:next=1,503:next=1")))
        try mock.start()
        defer { mock.stop() }
        let url = "\(mock.baseURL)/3/device/\(pushToStartToken)"
        let body = payload(event: "start", timestamp: Int(Date().timeIntervalSince1970))
        let r1 = try curl(url, headers: liveActivityHeaders, body: body)
        XCTAssertEqual(r1.status, 429)
        XCTAssertEqual(r1.body, "{\"reason\":\"TooManyRequests\"}")
        XCTAssertEqual(r1.headers["retry-after"], "7")
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: body).body, "{\"reason\":\"InternalServerError\"}")
        let r3 = try curl(url, headers: liveActivityHeaders, body: body)
        XCTAssertEqual(r3.status, 503)
        XCTAssertEqual(r3.body, "{\"reason\":\"ServiceUnavailable\"}")
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: body).status, 200)
        XCTAssertEqual(mock.journal().map(\.fault), ["429", "500", "503", nil])

        // Faults set over the control API.
        let set = try curl("\(mock.baseURL)/_mock/faults", body: Array("delay=300ms:next=1".utf8))
        XCTAssertEqual(set.status, 200, set.body)
        let start = Date()
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: body).status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.3)
        let bad = try curl("\(mock.baseURL)/_mock/faults", body: Array("teapot".utf8))
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.body.contains("unknown action"), bad.body)
    }

    func testDropAndGoawayThenServerKeepsServing() throws {
        let mock = try MockAPNsServer(configuration: MockAPNsConfiguration(transport: .h2c))
        try mock.start()
        defer { mock.stop() }
        let url = "\(mock.baseURL)/3/device/\(pushToStartToken)"
        let body = payload(event: "start", timestamp: Int(Date().timeIntervalSince1970))
        mock.setFaults(try MockFaultPlan(spec: "drop:next=1"))
        let dropped = try curl(url, headers: liveActivityHeaders, body: body)
        XCTAssertNotEqual(dropped.exitCode, 0, "curl must see the connection close without an answer")
        XCTAssertEqual(dropped.status, 0)
        mock.setFaults(try MockFaultPlan(spec: "goaway:next=1"))
        let goaway = try curl(url, headers: liveActivityHeaders, body: body)
        XCTAssertNotEqual(goaway.status, 200, "the request behind a GOAWAY is not processed")
        XCTAssertEqual(try curl(url, headers: liveActivityHeaders, body: body).status, 200)
        XCTAssertEqual(mock.journal().map(\.fault), ["drop-before", "goaway", nil], "drop is journaled under its canonical name drop-before")
    }
}
