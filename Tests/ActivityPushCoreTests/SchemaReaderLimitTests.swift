import Foundation
import XCTest
@testable import ActivityPushCore

/// Pathological sources (generated here) end in a `SchemaReadError` naming file:line and the limit, or in an
/// `.unresolved` shape for resolution chains — never a stack overflow. Run in a debug build (big frames).
final class SchemaReaderLimitTests: XCTestCase {
    private func readError(_ text: String, file: String = "Deep.swift") -> String {
        do {
            _ = try SwiftSourceReader.read(sources: [(file: file, text: text)])
            XCTFail("expected SchemaReadError")
            return ""
        } catch let e as SchemaReadError {
            return e.message
        } catch {
            XCTFail("unexpected \(error)")
            return ""
        }
    }

    private func attributes(contentState: String, extra: String = "") -> String {
        "import ActivityKit\nstruct A: ActivityAttributes {\n    struct ContentState: Codable, Hashable {\n        var v: \(contentState)\n    }\n}\n" + extra
    }

    /// Levels of the shape tree (a leaf is 1).
    private func height(_ s: ValueShape) -> Int {
        switch s {
        case .array(let e), .set(let e), .optional(let e): return 1 + height(e)
        case .dictionary(let k, let v): return 1 + max(height(k), height(v))
        case .object(let o): return 1 + (o.properties.map { height($0.shape) }.max() ?? 0)
        case .enumeration(let e):
            return 1 + (e.cases.flatMap { $0.associatedValues.map { height($0.shape) } }.max() ?? 0)
        default: return 1
        }
    }

    private func unresolvedReasons(_ s: ValueShape) -> [String] {
        switch s {
        case .array(let e), .set(let e), .optional(let e): return unresolvedReasons(e)
        case .dictionary(let k, let v): return unresolvedReasons(k) + unresolvedReasons(v)
        case .object(let o): return o.properties.flatMap { unresolvedReasons($0.shape) }
        case .unresolved(_, let reason): return [reason]
        default: return []
        }
    }

    func testDeepArraySyntaxIsAnErrorNamingLineAndLimit() {
        for depth in [2_000, 10_000] {
            let type = String(repeating: "[", count: depth) + "Int" + String(repeating: "]", count: depth)
            let m = readError(attributes(contentState: type))
            XCTAssertTrue(m.hasPrefix("Deep.swift:4: "), m)
            XCTAssertTrue(m.contains("nested deeper than \(SwiftDeclarationParser.maxTypeNesting)"), m)
            XCTAssertTrue(m.contains("Fix:"), m)
        }
    }

    func testDeepGenericSyntaxIsAnError() {
        let depth = 10_000
        let type = String(repeating: "Array<", count: depth) + "Int" + String(repeating: ">", count: depth)
        let m = readError(attributes(contentState: type))
        XCTAssertTrue(m.hasPrefix("Deep.swift:4: ") && m.contains("nested deeper than 48"), m)
    }

    func testManyOptionalMarksAreAnError() {
        let m = readError(attributes(contentState: "Int" + String(repeating: "?", count: 100_000)))
        XCTAssertTrue(m.hasPrefix("Deep.swift:4: ") && m.contains("nested deeper than 48"), m)
        // Optionals stacked on each level of an array count too.
        let mixed = String(repeating: "[Int" + String(repeating: "?", count: 30) + "]", count: 1)
        let wrapped = "[" + mixed + String(repeating: "?", count: 30) + "]"
        XCTAssertTrue(readError(attributes(contentState: wrapped)).contains("nested deeper than 48"))
    }

    func testLongCompositionIsAnError() {
        let m = readError(attributes(contentState: "any " + Array(repeating: "P", count: 10_000).joined(separator: " & ")))
        XCTAssertTrue(m.hasPrefix("Deep.swift:4: ") && m.contains("nested deeper than 48"), m)
    }

    func testTypesUpToTheLimitStillRead() throws {
        let depth = 40
        let type = String(repeating: "[", count: depth) + "Int" + String(repeating: "]", count: depth) + "?"
        let schema = try SwiftSourceReader.read(sources: [(file: "Deep.swift", text: attributes(contentState: type))])
        guard case .object(let state) = schema.types[0].contentState else { return XCTFail("no object") }
        XCTAssertEqual(height(state.properties[0].shape), depth + 2)  // arrays, Int, Optional
        XCTAssertEqual(unresolvedReasons(state.properties[0].shape), [])
    }

    func testDeeplyNestedDeclarationsAreAnError() {
        var text = "import ActivityKit\nstruct A: ActivityAttributes { struct ContentState: Codable, Hashable { var v: Int } }\n"
        let depth = 1_000
        for i in 0..<depth { text += "struct N\(i) {\n var v: Int\n" }
        text += String(repeating: "}\n", count: depth)
        let m = readError(text)
        // N48 (the 49th) is on line 3 + 2 * 48.
        XCTAssertTrue(m.hasPrefix("Deep.swift:\(3 + 2 * SwiftDeclarationParser.maxDeclarationNesting): "), m)
        XCTAssertTrue(m.contains("nested deeper than 48"), m)
    }

    func testLongChainOfFlatTypesResolvesToUnresolvedAtTheLimit() throws {
        var text = attributes(contentState: "N0")
        let count = 3_000
        for i in 0..<count { text += "struct N\(i): Codable, Hashable { var next: N\(i + 1) }\n" }
        text += "struct N\(count): Codable, Hashable { var end: Int }\n"
        let schema = try SwiftSourceReader.read(sources: [(file: "Chain.swift", text: text)])
        let state = schema.types[0].contentState
        // ContentState itself, maxShapeDepth levels below it, and the `.unresolved` that ends the chain.
        XCTAssertEqual(height(state), SwiftSchemaResolver.maxShapeDepth + 2)
        XCTAssertEqual(unresolvedReasons(state), ["nested deeper than 48 levels (types holding types); not modelled"])
        // The schema JSON of it is read back (stays within the JSON reader's depth limit).
        let json = JSONWriter.compact(ActivitySchemaDescription.json(schema))
        XCTAssertTrue(JSONReader.read(json).problems.isEmpty)
        XCTAssertNoThrow(try ActivitySchemaDescription.read(JSONReader.read(json).root!.value))
    }

    func testTypeResolvedShallowThenReusedDeepStaysWithinTheLimit() throws {
        // `Deep` is resolved first (as a property of the attributes), then reached again through a chain: the
        // reused shape must not stack past the limit.
        var text = """
        import ActivityKit
        struct A: ActivityAttributes {
            var deep: D0
            struct ContentState: Codable, Hashable { var v: C0 }
        }

        """
        for i in 0..<40 { text += "struct D\(i): Codable, Hashable { var next: D\(i + 1) }\n" }
        text += "struct D40: Codable, Hashable { var end: Int }\n"
        for i in 0..<40 { text += "struct C\(i): Codable, Hashable { var next: C\(i + 1) }\n" }
        text += "struct C40: Codable, Hashable { var d: D0 }\n"
        let schema = try SwiftSourceReader.read(sources: [(file: "Reuse.swift", text: text)])
        XCTAssertEqual(unresolvedReasons(schema.types[0].attributes), [])
        let state = schema.types[0].contentState
        XCTAssertLessThanOrEqual(height(state), SwiftSchemaResolver.maxShapeDepth + 2)
        XCTAssertEqual(unresolvedReasons(state).count, 1)
        XCTAssertTrue(unresolvedReasons(state)[0].contains("nested deeper than 48"))
    }

    func testLongTypealiasChainDoesNotOverflow() throws {
        var text = attributes(contentState: "T0")
        for i in 0..<5_000 { text += "typealias T\(i) = T\(i + 1)\n" }
        text += "typealias T5000 = Int\n"
        let schema = try SwiftSourceReader.read(sources: [(file: "Alias.swift", text: text)])
        XCTAssertTrue(unresolvedReasons(schema.types[0].contentState).first?.contains("nested deeper than 48") == true)
    }

    func testIfWithoutEndifIsAnError() {
        let m = readError("import ActivityKit\n#if os(iOS)\nstruct A: ActivityAttributes {\n    struct ContentState: Codable, Hashable { var v: Int }\n}\n",
                          file: "If.swift")
        XCTAssertTrue(m.hasPrefix("If.swift:2: ") && m.contains("'#if'") && m.contains("'#endif'"), m)
        XCTAssertTrue(m.contains("Fix:"), m)
        // Inside a type body: the `}` closes the type before the `#endif`.
        let inBody = readError("import ActivityKit\nstruct A: ActivityAttributes {\n#if DEBUG\n    var debug: Int\n    struct ContentState: Codable, Hashable { var v: Int }\n}\n#endif\n",
                               file: "If.swift")
        XCTAssertTrue(inBody.hasPrefix("If.swift:3: ") && inBody.contains("line 6"), inBody)
        let stray = readError("import ActivityKit\nstruct A: ActivityAttributes {\n    struct ContentState: Codable, Hashable { var v: Int }\n}\n#endif\n",
                              file: "If.swift")
        XCTAssertTrue(stray.hasPrefix("If.swift:5: ") && stray.contains("without a matching '#if'"), stray)
    }

    func testBalancedConditionalsStillRead() throws {
        var text = "import ActivityKit\nstruct A: ActivityAttributes {\n    struct ContentState: Codable, Hashable {\n"
        text += String(repeating: "#if X\n", count: 10_000) + "var v: Int\n" + String(repeating: "#else\n#endif\n", count: 10_000)
        text += "    }\n}\n"
        let schema = try SwiftSourceReader.read(sources: [(file: "Ok.swift", text: text)])
        XCTAssertEqual(schema.types.map(\.name), ["A"])
    }
}
