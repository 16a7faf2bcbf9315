import Foundation
import XCTest

/// `activity-push channels` as a user runs it, against `activity-push mock-apns --h2c` started as a child.
final class ChannelsCLITests: XCTestCase {
    typealias CLI = CLITests

    func testCreateListDeleteAndUsageErrors() throws {
        let directory = NSTemporaryDirectory() + "channels-cli-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = directory + "/AuthKey_CHANCLI123.p8"
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        XCTAssertEqual(openssl.terminationStatus, 0)

        let mock = Process()
        mock.executableURL = CLI.executable
        mock.arguments = ["mock-apns", "--port", "0", "--h2c", "--quiet"]
        let out = Pipe()
        mock.standardOutput = out
        mock.standardError = FileHandle.nullDevice
        try mock.run()
        defer { mock.terminate(); mock.waitUntilExit() }
        // The first stdout line names the URL (bounded: the mock prints it at once or exits).
        var banner = Data()
        while !banner.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += chunk
        }
        let line = String(decoding: banner, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let url = try XCTUnwrap(line.components(separatedBy: "listening on ").last, line)
        let common = ["--url", url, "--auth-key", key, "--team-id", "TEAMID1234", "--database", directory + "/queue.sqlite"]

        // --activity-id is refused (issue 11, U7): the link is made when an activity starts on the channel.
        let withActivity = try CLI.run(["channels", "create", "--bundle-id", "com.example.kora", "--storage-policy", "0",
                                        "--activity-id", "game-42"] + common)
        XCTAssertEqual(withActivity.status, 2, withActivity.stderr)
        XCTAssertTrue(withActivity.stderr.contains("--channel-id CHANNEL_ID"), withActivity.stderr)
        let created = try CLI.run(["channels", "create", "--bundle-id", "com.example.kora", "--storage-policy", "0"] + common)
        XCTAssertEqual(created.status, 0, created.stderr)
        let channelID = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(channelID.isEmpty)
        XCTAssertTrue(created.stderr.contains("No Message Stored"), created.stderr)

        let listed = try CLI.run(["channels", "list", "--bundle-id", "com.example.kora", "--apple", "--format", "json"] + common)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let entries = try XCTUnwrap(listing["channels"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["channelID"] as? String }, [channelID])
        XCTAssertEqual(entries.first?["presence"] as? String, "both")

        // An activity on the registered channel: its start carries input-push-channel; the registry links them.
        let database = ["--database", directory + "/queue.sqlite", "--bundle-id", "com.example.kora"]
        let token = try CLI.run(["activities", "token", "--kind", "push-to-start", "--device", "phone-1", "--type", "KORAActivityAttributes",
                                 "--token", String(repeating: "ab", count: 80)] + database)
        XCTAssertEqual(token.status, 0, token.stderr)
        let started = try CLI.run(["activities", "start", "--id", "match-7", "--device", "phone-1", "--type", "KORAActivityAttributes",
                                   "--attributes-json", #"{"eventID":"ev-7","venueName":"Hall B"}"#,
                                   "--content-state-json", #"{"phase":"doors-open","minutesLeft":30}"#,
                                   "--alert-title", "Doors", "--alert-body", "Open", "--channel-id", channelID, "--format", "json"] + database)
        XCTAssertEqual(started.status, 0, started.stderr)
        XCTAssertTrue(started.stdout.contains(channelID), started.stdout)
        let unknownChannel = try CLI.run(["activities", "start", "--id", "match-8", "--type", "KORAActivityAttributes",
                                          "--attributes-json", "{}", "--content-state-json", "{}", "--alert-title", "t", "--alert-body", "b",
                                          "--channel-id", "bm90LWEtY2hhbm5lbA=="] + database)
        XCTAssertEqual(unknownChannel.status, 1, unknownChannel.stderr)
        XCTAssertTrue(unknownChannel.stderr.contains("not a live channel"), unknownChannel.stderr)

        let deleted = try CLI.run(["channels", "delete", channelID] + common)
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(deleted.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "deleted \(channelID)")
        // Deleting it again says so and exits 0 (issue 11, N11), without asking Apple.
        let twice = try CLI.run(["channels", "delete", channelID] + common)
        XCTAssertEqual(twice.status, 0, twice.stderr)
        XCTAssertEqual(twice.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "already deleted \(channelID)")
        XCTAssertTrue(twice.stderr.contains("already deleted") && twice.stderr.contains("nothing was sent to Apple"), twice.stderr)
        // An id that is not base64 is refused locally, with the fix.
        let typo = try CLI.run(["channels", "delete", "not a channel!", "--bundle-id", "com.example.kora"] + common)
        XCTAssertEqual(typo.status, 1, typo.stderr)
        XCTAssertTrue(typo.stderr.contains("is not base64") && typo.stderr.contains("channels list"), typo.stderr)
        let unknown = try CLI.run(["channels", "delete", "bm90LWEtY2hhbm5lbA==", "--bundle-id", "com.example.kora"] + common)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("ChannelNotRegistered"), unknown.stderr)

        // Usage errors: exit 2, one line naming the flag and what it means.
        let noPolicy = try CLI.run(["channels", "create", "--bundle-id", "com.example.kora"] + common)
        XCTAssertEqual(noPolicy.status, 2)
        XCTAssertTrue(noPolicy.stderr.contains("--storage-policy 0|1") && noPolicy.stderr.contains("No Message Stored"), noPolicy.stderr)
        let badPolicy = try CLI.run(["channels", "create", "--bundle-id", "com.example.kora", "--storage-policy", "2"] + common)
        XCTAssertEqual(badPolicy.status, 2)
        let noKey = try CLI.run(["channels", "create", "--bundle-id", "com.example.kora", "--storage-policy", "1",
                                 "--database", directory + "/queue.sqlite"])
        XCTAssertEqual(noKey.status, 2)
        XCTAssertTrue(noKey.stderr.contains("--auth-key"), noKey.stderr)
        let badAction = try CLI.run(["channels", "rename"])
        XCTAssertEqual(badAction.status, 2)
    }
}
