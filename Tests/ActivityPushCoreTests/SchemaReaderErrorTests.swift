import Foundation
import XCTest
@testable import ActivityPushCore

/// Errors name the file (and line) and say the fix.
final class SchemaReaderErrorTests: XCTestCase {
    private func refusal(_ body: () throws -> ActivitySchema, file: StaticString = #filePath,
                         line: UInt = #line) -> SchemaReadError? {
        do {
            _ = try body()
            XCTFail("expected SchemaReadError", file: file, line: line)
        } catch let error as SchemaReadError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
        return nil
    }

    /// The rendered message names the file and says the fix.
    func testMissingPath() {
        let error = refusal { try SwiftSourceReader.read(paths: ["/nonexistent/Attributes.swift"]) }
        XCTAssertEqual(error?.kind, .notFound)
        XCTAssertEqual(error?.file, "/nonexistent/Attributes.swift")
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("/nonexistent/Attributes.swift"), message)
        XCTAssertTrue(message.hasSuffix(". Fix: \(error?.fix ?? "?")."), message)
    }

    func testFolderWithoutSwiftFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("schema-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("x".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        let error = refusal { try SwiftSourceReader.read(paths: [dir.path]) }
        XCTAssertEqual(error?.kind, .noSwiftFile)
        XCTAssertEqual(error?.file, dir.path)
    }

    func testUnreadableFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("schema-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("Latin1.swift")
        try Data([0x73, 0x74, 0x72, 0x75, 0x63, 0x74, 0x20, 0xE9, 0xFF]).write(to: file)
        let error = refusal { try SwiftSourceReader.read(paths: [file.path]) }
        XCTAssertEqual(error?.kind, .notUTF8)
        XCTAssertEqual(error?.file, file.path)
    }

    func testNoActivityAttributesType() {
        let error = refusal { try SchemaTestSupport.read("struct Plain: Codable { var a: Int }", file: "Plain.swift") }
        XCTAssertEqual(error?.kind, .noActivityAttributes)
        XCTAssertTrue(error?.message.contains("Plain.swift") ?? false, error?.message ?? "")
        XCTAssertNotNil(error?.fix)
    }

    func testSyntaxProblemsNameFileAndLine() {
        let cases: [(text: String, file: String, line: Int)] = [
            ("struct A: ActivityAttributes {\n  var a: Int\n", "Open.swift", 1),
            ("struct A: ActivityAttributes {\n  var s = \"abc\n}\n", "Str.swift", 2),
            ("struct A: ActivityAttributes {}\n/* never closed\n", "Comment.swift", 2),
            ("struct A: ActivityAttributes {\n  func f() { let x = (1, 2 }\n}\n", "Paren.swift", 2),
            ("}\nstruct A: ActivityAttributes {}\n", "Close.swift", 1),
            ("struct A: ActivityAttributes {\n  let t = \"\"\"\n  open\n}\n", "Multi.swift", 2),
        ]
        for (text, file, line) in cases {
            let error = refusal { try SchemaTestSupport.read(text, file: file) }
            XCTAssertEqual(error?.kind, .syntax, file)
            XCTAssertEqual(error?.file, file)
            XCTAssertEqual(error?.line, line, file)
            XCTAssertNotNil(error?.fix, file)
            XCTAssertTrue(error?.message.hasPrefix("\(file):\(line): ") ?? false, error?.message ?? file)
        }
    }

    /// Issue 12: errors carry a kind, the file and line, and the fix apart from the reason.
    func testErrorsCarryKindFileLineAndFix() throws {
        func error(_ body: () throws -> ActivitySchema) -> SchemaReadError? {
            do { _ = try body(); return nil } catch { return error as? SchemaReadError }
        }
        XCTAssertEqual(error { try SwiftSourceReader.read(paths: []) }?.kind, .noSource)
        let missing = error { try SwiftSourceReader.read(paths: ["/nonexistent/Attributes.swift"]) }
        XCTAssertEqual(missing?.kind, .notFound)
        XCTAssertEqual(missing?.file, "/nonexistent/Attributes.swift")
        XCTAssertNotNil(missing?.fix)
        let syntax = error { try SchemaTestSupport.read("struct A: ActivityAttributes {\n  var s = \"abc\n}\n", file: "Str.swift") }
        XCTAssertEqual(syntax?.kind, .syntax)
        XCTAssertEqual(syntax?.file, "Str.swift")
        XCTAssertEqual(syntax?.line, 2)
        XCTAssertNotNil(syntax?.fix)
        XCTAssertFalse(syntax?.reason.contains("Fix:") ?? true, "the fix is kept apart from the reason")
        XCTAssertEqual(error { try SchemaTestSupport.read("struct Plain: Codable { var a: Int }", file: "Plain.swift") }?.kind,
                       .noActivityAttributes)
        XCTAssertEqual(error { try ActivitySchemaDescription.read(.obj([])) }?.kind, .badDescription)
    }

    func testBracesInsideStringsAndCommentsAreNotSyntaxErrors() throws {
        let schema = try SchemaTestSupport.read(#"""
        struct A: ActivityAttributes {
            struct ContentState: Codable, Hashable { var v: Int }
            static let a = "}}}" // }
            static let b = #"{"# /* { /* } */ { */
            static let c = "\( "}" + ")" )"
            var w: String
        }
        """#)
        XCTAssertEqual(schema.types.first?.attributes.object?.properties.map(\.key), ["w"])
    }
}
