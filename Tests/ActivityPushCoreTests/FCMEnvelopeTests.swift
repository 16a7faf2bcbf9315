import XCTest
@testable import ActivityPushCore

/// `check` on a Firebase Cloud Messaging v1 message judges its `apns.payload` and `apns.headers` exactly as the
/// bare APNs request, with paths and positions pointing into the message.
final class FCMEnvelopeTests: XCTestCase {
    private struct Judged: Hashable, CustomStringConvertible {
        var code: String, severity: String, path: String, line: Int?, column: Int?
        var description: String { "\(code)@\(path)[\(line ?? 0):\(column ?? 0)]" }
    }

    private func judged(_ report: ValidationReport) -> [Judged] {
        report.findings.map { Judged(code: $0.code.rawValue, severity: $0.severity.rawValue, path: $0.path, line: $0.line, column: $0.column) }
    }

    /// Every case of the corpus, sent through FCM in both spellings (`{"message": …}` and the message itself),
    /// gives the bare payload's findings; the payload text is embedded verbatim on the envelope's first line, so
    /// positions on line 1 shift by the prefix and others stay.
    func testEveryCaseThroughFCMGivesTheBarePayloadsFindings() throws {
        var compared = 0
        for folder in try FixturePaths.caseFolders() {
            let c = try CaseCorpusTests.load(folder)
            let now = c.expected.context?.now
            let bare = judged(Validator(schema: c.schema).check(body: c.body, headers: c.headers, nowUnixSeconds: now))
            let headersURL = folder.appendingPathComponent("headers.json")
            let headersText = (try? String(contentsOf: headersURL, encoding: .utf8))?.replacingOccurrences(of: "\n", with: " ")
            for (prefixPath, open, close) in [("message.apns", #"{"message": {"token": "fcm-registration-token", "apns": {"#, "}}}"),
                                              ("apns", #"{"token": "fcm-registration-token", "apns": {"#, "}}")] {
                var head = open + #""live_activity_token": "80f1c0ffee", "#
                if let headersText { head += #""headers": "# + headersText + ", " }
                head += #""payload": "#
                let envelope = Array((head + String(decoding: c.body, as: UTF8.self) + close).utf8)
                let wrapped = judged(Validator(schema: c.schema).check(body: envelope, nowUnixSeconds: now))
                let expected: [Judged] = bare.compactMap { f in
                    // FCM fills in apns-push-type and apns-topic for a Live Activity token.
                    if headersText != nil, f.code == "missing-push-type" || f.code == "missing-topic" { return nil }
                    var moved = f
                    // A body that is not JSON is judged as a whole document: no envelope is seen.
                    if f.code == "invalid-json" { return moved }
                    if f.path == "$" { moved.path = prefixPath + ".payload" }
                    else if f.path.hasPrefix("headers.") { moved.path = prefixPath + "." + f.path }
                    else { moved.path = prefixPath + ".payload." + f.path }
                    if f.path == "$" && f.code == "payload-too-large" || f.path == "$" && f.line == 1 && f.column == 1 {
                        (moved.line, moved.column) = (1, head.unicodeScalars.count + 1)
                    } else if f.line == 1, let column = f.column {
                        moved.column = column + head.unicodeScalars.count
                    }
                    return moved
                }
                let wrappedWithoutHeaderPositions = wrapped.map { f -> Judged in
                    var g = f
                    if f.path.hasPrefix(prefixPath + ".headers.") { (g.line, g.column) = (nil, nil) }
                    return g
                }
                XCTAssertEqual(Set(wrappedWithoutHeaderPositions), Set(expected), "\(c.name) via \(prefixPath): got \(wrapped) expected \(expected)")
                XCTAssertEqual(wrapped.count, expected.count, c.name)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 40)
    }

    func testHeaderFindingsPointAtTheHeaderInTheEnvelope() {
        let body = """
        {"message": {"token": "t",
          "apns": {"live_activity_token": "abc",
            "headers": {"apns-priority": "7", "apns-relevance-score": "5"},
            "payload": {"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}}}}}
        """
        let report = Validator().check(body: Array(body.utf8), nowUnixSeconds: 1_767_225_600)
        XCTAssertEqual(report.findings.map(\.code.rawValue), ["invalid-priority", "unknown-header"])
        XCTAssertEqual(report.findings.map(\.path), ["message.apns.headers.apns-priority", "message.apns.headers.apns-relevance-score"])
        XCTAssertEqual(report.findings.map(\.line), [3, 3])
        XCTAssertEqual(report.findings.map(\.column), [17, 39])
    }

    func testAnFCMMessageWithoutPayloadAndAnOrdinaryBodyAreTold() {
        let noPayload = Validator().check(body: Array(#"{"message": {"apns": {"live_activity_token": "abc"}}}"#.utf8))
        XCTAssertEqual(noPayload.findings.map(\.code.rawValue), ["missing-aps"])
        XCTAssertEqual(noPayload.findings.first?.path, "message.apns.payload")
        // A body with aps is never taken for an envelope, even with an "apns" key beside it.
        let bare = Validator().check(body: Array(#"{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}, "apns": {"payload": {}}}"#.utf8),
                                     nowUnixSeconds: 1_767_225_600)
        XCTAssertFalse(bare.findings.contains(where: { $0.path.hasPrefix("apns.") }), "\(bare.findings.map(\.path))")
    }

    /// A --headers value that overrides a message header is reported on the headers file (`headers.<name>`, no
    /// position in the message) — QA item 9.
    func testAnOverridingHeaderIsReportedOnTheHeadersFile() {
        let body = #"{"message": {"apns": {"live_activity_token": "abc", "headers": {"apns-priority": "10"}, "payload": {"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}}}}}"#
        let report = Validator().check(body: Array(body.utf8), headers: APNsHeaders([("apns-priority", "7")]), nowUnixSeconds: 1_767_225_600)
        XCTAssertEqual(report.findings.map(\.code.rawValue), ["invalid-priority"])
        XCTAssertEqual(report.findings.first?.path, "headers.apns-priority")
        XCTAssertNil(report.findings.first?.line, "the finding must not point at the message's own apns-priority")
    }

    /// Broken envelopes name `message.apns(.payload)` and the fix; headers not an object, non-string header values
    /// and a missing live_activity_token are findings (QA item 10).
    func testBrokenEnvelopesAreNamed() {
        func judge(_ text: String) -> [String] {
            Validator().check(body: Array(text.utf8), nowUnixSeconds: 1_767_225_600).findings.map { "\($0.code)@\($0.path)" }
        }
        let payload = #""payload": {"aps": {"timestamp": 1767225600, "event": "update", "content-state": {}}}"#
        XCTAssertEqual(judge(#"{"message": {"token": "t", "notification": {"title": "t"}}}"#), ["fcm-envelope-invalid@message.apns.payload"])
        XCTAssertEqual(judge(#"{"message": {"apns": "x"}}"#), ["fcm-envelope-invalid@message.apns"])
        XCTAssertEqual(judge(#"{"message": {"apns": {"live_activity_token": "L", "headers": ["apns-priority", 7], "# + payload + "}}}"),
                       ["fcm-envelope-invalid@message.apns.headers"])
        XCTAssertEqual(judge(#"{"message": {"apns": {"live_activity_token": "L", "headers": {"apns-priority": 10}, "# + payload + "}}}"),
                       ["fcm-envelope-invalid@message.apns.headers.apns-priority"])
        // Without live_activity_token FCM sends an ordinary notification and sets neither push type nor topic.
        XCTAssertEqual(Set(judge(#"{"message": {"token": "t", "apns": {"headers": {"apns-priority": "10"}, "# + payload + "}}}")),
                       ["fcm-missing-live-activity-token@message.apns.live_activity_token", "missing-push-type@headers.apns-push-type",
                        "missing-topic@headers.apns-topic"])
        // An ordinary body without aps is still told as such.
        XCTAssertEqual(judge(#"{"alert": "x"}"#).first, "missing-aps@aps")
    }
}
