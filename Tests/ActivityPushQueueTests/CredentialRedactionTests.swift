import XCTest
@testable import ActivityPushQueue

/// Issue 11 H1/L5: every password form is masked in one place, and a libpq keyword string is not a SQLite path.
final class CredentialRedactionTests: XCTestCase {
    func testEveryPasswordFormIsMasked() {
        XCTAssertEqual(CredentialRedaction.redact("postgres://u:S3cret@h:5432/db"), "postgres://u:***@h:5432/db")
        XCTAssertEqual(CredentialRedaction.redact("postgres://u@h/db?password=S3cret"), "postgres://u@h/db?password=***")
        XCTAssertEqual(CredentialRedaction.redact("postgres://u@h/db?sslmode=disable&PASSWORD=S3cret&x=1"),
                       "postgres://u@h/db?sslmode=disable&PASSWORD=***&x=1")
        XCTAssertEqual(CredentialRedaction.redact("host=127.0.0.1 port=1 password=S3cret dbname=q"),
                       "host=127.0.0.1 port=1 password=*** dbname=q")
        XCTAssertEqual(CredentialRedaction.redact("host=h password = 'a b\\' c' user=u"), "host=h password = *** user=u")
        XCTAssertEqual(CredentialRedaction.redact("cannot connect to PostgreSQL postgres://u:p@h/db: password authentication failed"),
                       "cannot connect to PostgreSQL postgres://u:***@h/db: password authentication failed")
        XCTAssertEqual(CredentialRedaction.redact("/tmp/q.sqlite"), "/tmp/q.sqlite")
    }

    func testQueueErrorMasksReasonLocationAndFix() {
        let error = QueueError("cannot connect to PostgreSQL postgres://u@h/db?password=S3cret: refused", kind: .unavailable,
                               location: "postgres://u@h/db?password=S3cret", fix: "check password=S3cret")
        XCTAssertFalse(error.description.contains("S3cret"), error.description)
        XCTAssertFalse(error.location?.contains("S3cret") ?? true)
        XCTAssertFalse(ActivityError.store(error).description.contains("S3cret"))
    }

    func testPostgresConnectErrorDoesNotCarryQueryPassword() {
        // Port 1 on loopback refuses at once; the libpq message and the location must not show the password.
        XCTAssertThrowsError(try PostgresConnection(url: "postgres://u@127.0.0.1:1/db?password=S3cret")) { error in
            XCTAssertFalse("\(error)".contains("S3cret"), "\(error)")
        }
    }

    func testKeywordConnectionStringIsRefusedNotMadeASQLiteFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let previous = FileManager.default.currentDirectoryPath
        FileManager.default.changeCurrentDirectoryPath(directory.path)
        defer { FileManager.default.changeCurrentDirectoryPath(previous) }
        let dsn = "host=127.0.0.1 port=1 password=S3cret"
        XCTAssertThrowsError(try Outbox.open(database: dsn)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("postgres://"), text)
            XCTAssertFalse(text.contains("S3cret"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent(dsn).path))
        XCTAssertNil(Outbox.keywordConnectionStringRefusal("/tmp/a=b.sqlite"))
        XCTAssertNotNil(Outbox.keywordConnectionStringRefusal("dbname=q"))
    }

    func testIntakeAnswerCarriesNoDatabaseDetail() {
        let generic = ActivityError.storeUnreachable
        XCTAssertEqual(generic.status, 503)
        XCTAssertEqual(generic.message, "the service cannot reach its database; retry later")
    }
}
