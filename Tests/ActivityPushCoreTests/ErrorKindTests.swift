import ActivityPushCore
import Foundation
import Testing

/// The payload errors carry a kind and fields to branch on; one rendered message per type names the field and the fix.
@Suite struct PayloadErrorKindTests {
    struct NotFinite: Encodable { var ratio = Double.nan }

    @Test func anEncoderFailureIsEncoderThrewNamingTheType() {
        #expect(throws: ActivityEncodingError.self) { try LiveActivityPush.jsonValue(of: NotFinite()) }
        do {
            _ = try LiveActivityPush.jsonValue(of: NotFinite())
        } catch {
            #expect(error.kind == .encoderThrew)
            #expect(error.typeName == "NotFinite")
            #expect(error.description.hasPrefix("cannot encode NotFinite: "))
            #expect(error.description.hasSuffix("; " + error.fix))
        }
    }

    @Test func aRefusedBuildListsItsErrorCodes() {
        let broadcastStart = LiveActivityPush.start(
            bundleID: "com.example.kora", attributesType: "KoraAttributes",
            attributes: .obj([("eventID", .string("e1"))]), contentState: .obj([("phase", .string("open"))]),
            alert: LiveActivityAlert(title: "T", body: "B"), timestampUnixSeconds: 1_700_000_000)
            .toBroadcast(channelID: "dHN0LTEyMw==")
        do {
            _ = try broadcastStart.build()
            Issue.record("a broadcast start was built")
        } catch {
            #expect(error.codes.contains(.startViaBroadcast))
            #expect(error.errors.allSatisfy { $0.severity == .error })
            let finding = error.errors.first { $0.code == .startViaBroadcast }
            #expect(error.description.contains("\(finding?.path ?? "?"): \(finding?.message ?? "?") [start-via-broadcast]"))
        }
    }
}
