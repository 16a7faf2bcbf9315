import ActivityPushCore
import ActivityPushDiagnosis

/// One fuzz input through each reader of untrusted bytes. Shared by the libFuzzer harnesses in `Fuzz/Targets`
/// (compiled with `swiftc -sanitize=fuzzer,address` by `make fuzz`) and by `FuzzCorpusReplayTests`, which replays
/// the checked-in corpus `Fuzz/Corpus/<target>/` on every `make test`. A driver must never trap: every input is
/// either read or refused with an error value.
enum FuzzInputDrivers {
    /// The fuzz targets, by corpus folder name.
    static let targets: [(name: String, run: @Sendable ([UInt8]) -> Void)] = [
        ("json-validator", jsonValidator),
        ("swift-source", swiftSource),
        ("device-log", deviceLog),
        ("payload-audit", payloadAudit),
    ]

    /// A small app schema, so the schema rules run too.
    static let schema: ActivitySchema? = try? SwiftSourceReader.read(sources: [(file: "Attributes.swift", text: """
        import ActivityKit
        enum Vehicle: String, Codable, Hashable { case bike, car }
        struct DeliveryAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var status: String
                var vehicle: Vehicle
                var etaMinutes: Int
                var progress: Double
                var expectedAt: Date
                var note: String?
                var stops: [String]
            }
            var orderNumber: String
            var placedAt: Date
        }
        """)])

    /// The JSON reader, then the validator with and without headers (a broadcast request on odd lengths).
    static func jsonValidator(_ bytes: [UInt8]) {
        _ = JSONReader.read(bytes)
        let validator = Validator(schema: schema, strict: bytes.count % 3 == 0)
        _ = validator.check(body: bytes)
        let headers = bytes.count % 2 == 0
            ? APNsHeaders([("apns-push-type", "liveactivity"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                           ("apns-priority", "10"), ("apns-expiration", "0")])
            : APNsHeaders([(":path", "/4/broadcasts/apps/com.example.app"), ("apns-channel-id", "dHdvY2hhbm5lbA=="),
                           ("apns-push-type", "liveactivity"), ("apns-priority", "5")])
        _ = validator.check(body: bytes, headers: headers, nowUnixSeconds: 1_760_000_000)
    }

    /// The Swift source reader (lexer, declaration parser, resolver) over one file.
    static func swiftSource(_ bytes: [UInt8]) {
        _ = try? SwiftSourceReader.read(sources: [(file: "Fuzz.swift", text: String(decoding: bytes, as: UTF8.self))])
    }

    /// The device-log reader, fed in chunks whose size the first byte picks (chunk boundaries are where
    /// streaming readers break).
    static func deviceLog(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let chunkSize = 1 + Int(first) * 7
        var offset = 1
        _ = try? DeviceLogReader().read(name: "fuzz.log", chunks: {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + chunkSize)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }, onEntry: { _ in })
    }

    /// The payload-site audit over one file whose language the first byte picks.
    static let auditFileNames = ["push.ts", "push.js", "push.py", "push.go", "Push.kt", "Push.java", "Push.swift",
                                 "push.rb", "push.php", "payload.json", "payload.tmpl"]
    static func payloadAudit(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let name = auditFileNames[Int(first) % auditFileNames.count]
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        _ = PayloadSiteAudit(schema: first & 0x80 == 0 ? nil : schema).run(files: [(path: "src/" + name, text: text)])
    }
}
