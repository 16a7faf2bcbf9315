@testable import ActivityPushConsole
import ActivityPushCore
import XCTest

private typealias S = ConsoleTestSupport

/// The activities page and one activity's timeline page: one HTML document with its own script, under the
/// same security headers as the compose page (the browser test drives them against a live lifecycle).
final class ConsoleActivitiesPageTests: XCTestCase {
    func testListAndTimelineServeTheActivitiesDocument() async throws {
        let api = try S.api()
        for path in ["/activities", "/activities/", "/activities/game-42"] {
            let page = await api.handle(S.get(path))
            XCTAssertEqual(page.status, 200, path)
            XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")
            XCTAssertEqual(page.header("Content-Security-Policy"), "default-src 'self'; frame-ancestors 'none'")
            XCTAssertTrue(page.bodyText.contains("<script src=\"/activities.js\"></script>"), path)
            XCTAssertFalse(page.bodyText.contains("http://") || page.bodyText.contains("https://"), "external resource")
        }
        let script = await api.handle(S.get("/activities.js"))
        XCTAssertEqual(script.status, 200)
        for apiPath in ["\"/v1/activities\"", "\"/v1/activities/\""] {
            XCTAssertTrue(script.bodyText.contains(apiPath), "the script reads \(apiPath)")
        }
        let compose = await api.handle(S.get("/"))
        XCTAssertTrue(compose.bodyText.contains("href=\"/activities\""), "the compose page links the activities page")
    }
}
