import Foundation
import XCTest

/// `activity-push activities …` against a SQLite store: exit statuses, the held update, refusals naming the flag.
final class ActivitiesCLITests: XCTestCase {
    private func run(_ args: [String]) throws -> CLITests.Result { try CLITests.run(args) }

    func testStartHoldUpdateReleaseEndAndRefusals() throws {
        guard FileManager.default.isExecutableFile(atPath: CLITests.executable.path) else {
            return XCTFail("activity-push is not built next to the tests (\(CLITests.executable.path)); run `swift build` first")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ap-activities-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let common = ["--database", directory + "/q.sqlite", "--bundle-id", "com.example.kora",
                      "--attributes", "\(CLITests.kora)/KORAActivityAttributes.swift"]
        let start = ["activities", "start", "--id", "ev-1", "--device", "phone-1", "--type", "KORAActivityAttributes",
                     "--attributes-json", #"{"eventID": "ev-1", "venueName": "Hall B"}"#,
                     "--content-state-json", #"{"phase": "doors-open", "minutesLeft": 30}"#,
                     "--alert-title", "Doors are open", "--alert-body", "In 30 minutes"] + common

        let noToken = try run(start)
        XCTAssertEqual(noToken.status, 1, noToken.stderr)
        XCTAssertTrue(noToken.stderr.contains("no device has a push-to-start token"), noToken.stderr)

        let token = try run(["activities", "token", "--kind", "push-to-start", "--device", "phone-1", "--type", "KORAActivityAttributes",
                             "--token", String(repeating: "a1", count: 32)] + common)
        XCTAssertEqual(token.status, 0, token.stderr)
        XCTAssertTrue(token.stdout.contains("a1a1…a1a1"), token.stdout)
        XCTAssertFalse(token.stdout.contains(String(repeating: "a1", count: 32)), "never shown in full")

        let started = try run(start)
        XCTAssertEqual(started.status, 0, started.stderr)
        XCTAssertTrue(started.stdout.contains("device phone-1: starting"), started.stdout)
        XCTAssertEqual(try run(start).status, 0, "a repeat")
        let conflicting = try run(start.map { $0 == "In 30 minutes" ? "In 20 minutes" : $0 })
        XCTAssertEqual(conflicting.status, 1, "another start under the same id")

        let update = try run(["activities", "update", "--id", "ev-1", "--content-state-json", #"{"phase": "on-stage", "minutesLeft": 0}"#] + common)
        XCTAssertEqual(update.status, 0, update.stderr)
        XCTAssertTrue(update.stdout.contains("update held for its update token"), update.stdout)

        let release = try run(["activities", "token", "--kind", "update", "--device", "phone-1", "--id", "ev-1",
                               "--token", String(repeating: "b2", count: 32)] + common)
        XCTAssertEqual(release.status, 0, release.stderr)
        XCTAssertTrue(release.stdout.contains("released 1 held push"), release.stdout)

        let badState = try run(["activities", "update", "--id", "ev-1", "--content-state-json", #"{"phase": 3}"#, "--format", "json"] + common)
        XCTAssertEqual(badState.status, 1, "findings: the validator judges the update against the schema")
        XCTAssertTrue(badState.stdout.contains("\"findings\""), badState.stdout)

        let wrongFlag = try run(["activities", "update", "--id", "ev-1", "--apns-id", UUID().uuidString,
                                 "--content-state-json", "{}"] + common)
        XCTAssertEqual(wrongFlag.status, 2)
        XCTAssertTrue(wrongFlag.stderr.contains("--apns-id"), wrongFlag.stderr)

        let end = try run(["activities", "end", "--id", "ev-1", "--content-state-json", #"{"phase": "done", "minutesLeft": 0}"#,
                           "--format", "json"] + common)
        XCTAssertEqual(end.status, 0, end.stderr)
        XCTAssertTrue(end.stdout.contains("\"state\": \"ended\""), end.stdout)
        let list = try run(["activities", "list", "--state", "ended"] + common)
        XCTAssertTrue(list.stdout.contains("ev-1  ended"), list.stdout)
        // Issue 11 L6: the API's limit check (ActivityListLimit), not a second one.
        for limit in ["0", "-1", "501"] {
            let refused = try run(["activities", "list", "--limit", limit] + common)
            XCTAssertNotEqual(refused.status, 0, "--limit \(limit)")
            XCTAssertTrue(refused.stderr.contains("limit") && refused.stderr.contains("1…500"), refused.stderr)
        }
        // The end again (a client retry) succeeds and changes nothing.
        let endAgain = try run(["activities", "end", "--id", "ev-1", "--content-state-json", #"{"phase": "done", "minutesLeft": 0}"#,
                                "--format", "json"] + common)
        XCTAssertEqual(endAgain.status, 0, endAgain.stderr)
        let status = try run(["queue", "status", "--database", directory + "/q.sqlite", "--format", "json"])
        XCTAssertTrue(status.stdout.contains("\"pending\""), status.stdout)
    }

    /// Issue 11 W5, W6, W3: `token` takes the one type of --attributes; errors name the flag (`--type`, `--id`), not
    /// the JSON field; without --bundle-id every subcommand that builds says so, as `build` does.
    func testTypeDefaultFlagNamesAndTheBundleIDWarning() throws {
        guard FileManager.default.isExecutableFile(atPath: CLITests.executable.path) else {
            return XCTFail("activity-push is not built next to the tests (\(CLITests.executable.path)); run `swift build` first")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ap-activities-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = ["--database", directory + "/q.sqlite"]
        let schema = ["--attributes", "\(CLITests.kora)/KORAActivityAttributes.swift"]
        let token = ["activities", "token", "--kind", "push-to-start", "--device", "phone-1", "--token", String(repeating: "a1", count: 32)]

        let defaulted = try run(token + database + schema + ["--bundle-id", "com.example.kora", "--format", "json"])
        XCTAssertEqual(defaulted.status, 0, defaulted.stderr)
        XCTAssertTrue(defaulted.stdout.contains("\"push-to-start\""), defaulted.stdout)
        XCTAssertFalse(defaulted.stderr.contains("--bundle-id"), "no warning when given")

        let noSchema = try run(token + database + ["--bundle-id", "com.example.kora"])
        XCTAssertEqual(noSchema.status, 2, noSchema.stderr)
        XCTAssertTrue(noSchema.stderr.contains("--type"), noSchema.stderr)

        let wrongCase = try run(token + ["--type", "koraActivityAttributes"] + database + schema + ["--bundle-id", "com.example.kora"])
        XCTAssertEqual(wrongCase.status, 1, wrongCase.stderr)
        XCTAssertTrue(wrongCase.stderr.contains("--type: attributes-type-mismatch"), wrongCase.stderr)
        XCTAssertTrue(wrongCase.stderr.contains(#"--type "KORAActivityAttributes""#), "the fix in flag form: \(wrongCase.stderr)")
        XCTAssertFalse(wrongCase.stderr.contains("attributesType"), wrongCase.stderr)

        let unknownActivity = try run(["activities", "token", "--kind", "update", "--device", "phone-1", "--id", "ev-404",
                                       "--token", String(repeating: "b2", count: 32)] + database + schema + ["--bundle-id", "com.example.kora"])
        XCTAssertEqual(unknownActivity.status, 1, unknownActivity.stderr)
        XCTAssertTrue(unknownActivity.stderr.contains("--id: no activity ev-404"), unknownActivity.stderr)

        let start = try run(["activities", "start", "--id", "ev-2", "--device", "phone-1",
                             "--attributes-json", #"{"eventID": "ev-2", "venueName": "Hall B"}"#,
                             "--content-state-json", #"{"phase": "doors-open", "minutesLeft": 30}"#,
                             "--alert-title", "Doors are open", "--alert-body", "In 30 minutes"] + database + schema)
        XCTAssertEqual(start.status, 0, start.stderr)
        XCTAssertTrue(start.stderr.contains("activity-push activities start: no --bundle-id; apns-topic uses com.example.app"), start.stderr)
    }
}
