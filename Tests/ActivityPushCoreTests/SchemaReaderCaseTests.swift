import Foundation
import XCTest
@testable import ActivityPushCore

/// Every Fixtures/cases/*/Attributes.swift reads without error, and the keys it yields agree with the case's
/// payload and expected findings: valid controls send every required key and no unknown attribute key;
/// `missing-required-key` paths are required and absent; `unknown-attribute-key` paths are not keys.
final class SchemaReaderCaseTests: XCTestCase {
    private func json(_ url: URL) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    }

    func testEveryCaseAgreesWithItsPayloadAndFindings() throws {
        let folders = try SchemaTestSupport.caseFolders()
        XCTAssertGreaterThanOrEqual(folders.count, 20)
        for folder in folders {
            let name = folder.lastPathComponent
            let schema = try SwiftSourceReader.read(paths: [folder.appendingPathComponent("Attributes.swift").path])
            XCTAssertEqual(schema.types.count, 1, name)
            let expected = try XCTUnwrap(json(folder.appendingPathComponent("expected.json")) as? [String: Any])
            let findings = (expected["findings"] as? [[String: Any]]) ?? []
            let paths = Set(findings.compactMap { f -> String? in
                guard let code = f["code"] as? String, let path = f["path"] as? String else { return nil }
                return code + " " + path
            })
            let payloadURL = folder.appendingPathComponent("payload.json")
            guard JSONReader.read(Array(try Data(contentsOf: payloadURL))).problems.isEmpty,
                  let payload = try? json(payloadURL) as? [String: Any],
                  let aps = payload["aps"] as? [String: Any] else { continue }  // C05: invalid JSON on purpose
            let type = try XCTUnwrap(aps["attributes-type"].flatMap { schema.type(named: $0 as! String) } ?? schema.types.first)
            for (section, shape) in [("attributes", type.attributes), ("content-state", type.contentState)] {
                guard let sent = aps[section] as? [String: Any] else { continue }
                guard let object = shape.object else {
                    XCTAssertNotNil(shape.unresolvedReason, "\(name) \(section)")
                    continue
                }
                for p in object.properties where p.isRequired && sent[p.key] == nil {
                    XCTAssertTrue(paths.contains("missing-required-key aps.\(section).\(p.key)"),
                                  "\(name): required \(section) key '\(p.key)' is absent but no finding expects it")
                }
                for key in sent.keys where object.property(forKey: key) == nil {
                    let code = section == "attributes" ? "unknown-attribute-key" : "unknown-content-state-key"
                    XCTAssertTrue(paths.contains("\(code) aps.\(section).\(key)"), "\(name): '\(key)' is not a \(section) key")
                }
            }
            for entry in paths where entry.hasPrefix("missing-required-key ") {
                let parts = entry.dropFirst("missing-required-key aps.".count).split(separator: ".", maxSplits: 1)
                let shape = parts[0] == "attributes" ? type.attributes : type.contentState
                XCTAssertEqual(shape.object?.property(forKey: String(parts[1]))?.isRequired, true, "\(name): \(entry)")
            }
        }
    }

    func testCaseKeysSpotChecks() throws {
        func read(_ c: String) throws -> ActivityAttributesType {
            try XCTUnwrap(SwiftSourceReader.read(paths: [SchemaTestSupport.cases.appendingPathComponent(c).path]).types.first)
        }
        XCTAssertEqual(try read("C24").contentState.object?.properties.map(\.key), ["title", "detail", "status", "metric", "updated_at"])
        XCTAssertEqual(try read("C25").attributes.object?.properties.map(\.key), ["routeName", "color"])
        XCTAssertEqual(try read("C25").contentState.object?.properties.map(\.key), ["stopsLeft", "isDelayed"])
        XCTAssertEqual(try read("C14").attributes.object?.properties.map { "\($0.key):\($0.shape.brief)" }, ["id:UUID", "machineName:String?"])
        XCTAssertEqual(try read("C27").attributes.object?.properties.map(\.key), ["homeTeam", "awayTeam", "badgeURL"])
        XCTAssertEqual(try read("C01").attributes.object?.properties.map(\.key), ["plan"])
        XCTAssertEqual(try read("S02").name, "KORAActivityAttributes")
    }

    func testWholeCaseFolderReadsEveryFile() throws {
        let schema = try SwiftSourceReader.read(paths: [SchemaTestSupport.cases.path])
        XCTAssertEqual(schema.files.count, try SchemaTestSupport.caseFolders().count)
        XCTAssertTrue(schema.files.allSatisfy { $0.hasSuffix("/Attributes.swift") })
        XCTAssertNotNil(schema.type(named: "PizzaDeliveryAttributes"))
    }
}
