import Foundation
import XCTest
@testable import ActivityPushCore

/// Compares the stored properties the schema reader finds with what the Swift compiler's own parser sees,
/// over every fixture .swift file.
///
/// Uses `swiftc -frontend -dump-parse -dump-ast-format json FILE` (works with Swift 6.3.1) for structure:
/// struct/class members, `let`, `static`, `lazy`, accessors, initializers. The JSON form omits type
/// representations, so optionality comes from the default S-expression dump (`-dump-parse` without
/// `-dump-ast-format`), whose `pattern_named` entries are followed by their `type_…` node; the two are
/// joined on the pattern binding's line:column. `-dump-parse` in 6.3 also omits members inside `#if`
/// clauses (they are expanded later), so the reader's conditional properties are left out of the
/// comparison, and types the compiler does not list (a whole file under `#if`) are not compared.
final class SchemaCompilerParityTests: XCTestCase {
    struct Stored: Hashable, CustomStringConvertible {
        var name: String
        var letWithInitializer: Bool
        var optional: Bool
        var description: String { "\(letWithInitializer ? "let=" : "")\(name)\(optional ? "?" : "")" }
    }

    func testStoredPropertiesMatchTheCompilersParser() throws {
        guard let swiftc = SchemaTestSupport.which("swiftc") else { throw XCTSkip("swiftc is not on PATH") }
        var compared = 0
        for file in try SchemaTestSupport.allSwiftFixtures() {
            let compiler = try compilerView(swiftc: swiftc, file: file)
            let reader = try readerView(file: file)
            for (typeName, props) in compiler {
                guard let mine = reader[typeName] else {
                    XCTFail("\(file): the compiler sees \(typeName), the reader does not")
                    continue
                }
                XCTAssertEqual(Set(mine), Set(props),
                               "\(file) \(typeName): reader \(mine.sorted { $0.name < $1.name }) vs compiler \(props.sorted { $0.name < $1.name })")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 60, "too few structs compared; is the fixture set there?")
    }

    // MARK: reader side

    private func readerView(file: String) throws -> [String: [Stored]] {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let decls = try SwiftDeclarationParser.parse(text: text, file: file)
        var out: [String: [Stored]] = [:]
        for d in decls.types where d.kind == .struct || d.kind == .class {
            out[d.qualifiedName] = d.properties
                .filter { !$0.isStatic && !$0.isComputed && !$0.isConditional }
                .map { Stored(name: $0.name, letWithInitializer: $0.isLet && $0.hasInitializer, optional: Self.isOptional($0.type)) }
        }
        return out
    }

    private static func isOptional(_ t: SwiftTypeSyntax?) -> Bool {
        switch t {
        case .optional?: return true
        case .named(let comps)? where comps.count == 1 && comps[0].name == "Optional": return true
        default: return false
        }
    }

    // MARK: compiler side

    private func compilerView(swiftc: String, file: String) throws -> [String: [Stored]] {
        let json = try SchemaTestSupport.run(swiftc, ["-frontend", "-dump-parse", "-dump-ast-format", "json", file])
        XCTAssertEqual(json.status, 0, "swiftc -dump-parse -dump-ast-format json failed on \(file): \(json.err)")
        let text = try SchemaTestSupport.run(swiftc, ["-frontend", "-dump-parse", file])
        XCTAssertEqual(text.status, 0, "swiftc -dump-parse failed on \(file): \(text.err)")
        let optional = optionalityByBinding(String(decoding: text.out, as: UTF8.self))
        let source = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: json.out) as? [String: Any])
        var out: [String: [Stored]] = [:]

        func lineColumn(_ offset: Int) -> String {
            var line = 1
            var lineStart = 0
            for i in 0..<min(offset, source.count) where source[i] == 0x0A { line += 1; lineStart = i + 1 }
            return "\(line):\(offset - lineStart + 1)"
        }
        func name(_ node: [String: Any]) -> String? {
            ((node["name"] as? [String: Any])?["base_name"] as? [String: Any])?["name"] as? String
        }
        func visit(_ members: [[String: Any]], scope: [String]) -> [Stored] {
            var stored: [Stored] = []
            // Pattern bindings precede their var_decls: remember each binding's names → (initializer, position).
            var binding: [String: (hasInit: Bool, position: String)] = [:]
            for m in members {
                switch m["_kind"] as? String {
                case "struct_decl", "class_decl", "enum_decl", "actor_decl", "protocol_decl":
                    guard let n = name(m) else { continue }
                    let path = scope + [n]
                    let inner = visit(m["members"] as? [[String: Any]] ?? [], scope: path)
                    if m["_kind"] as? String == "struct_decl" || m["_kind"] as? String == "class_decl" {
                        out[path.joined(separator: ".")] = inner
                    }
                case "extension_decl":
                    let extended = (m["extended_type"] as? String ?? "").split(separator: ".").map(String.init)
                    _ = visit(m["members"] as? [[String: Any]] ?? [], scope: extended)
                case "pattern_binding_decl":
                    let start = (m["range"] as? [String: Any])?["start"] as? Int ?? 0
                    for entry in m["pattern_entries"] as? [[String: Any]] ?? [] {
                        var pattern = entry["pattern"] as? [String: Any]
                        if pattern?["_kind"] as? String == "pattern_typed" { pattern = pattern?["sub_pattern"] as? [String: Any] }
                        if let p = pattern, let n = name(p) {
                            binding[n] = (entry["original_init"] != nil, lineColumn(start))
                        }
                    }
                case "var_decl":
                    guard let n = name(m), m["static"] == nil else { continue }
                    let accessors = (m["accessors"] as? [[String: Any]]) ?? []
                    let observersOnly = accessors.allSatisfy { $0["willSet"] != nil || $0["didSet"] != nil }
                    guard observersOnly, let b = binding[n] else { continue }
                    let isLet = (m["let"] as? Bool) == true
                    stored.append(Stored(name: n, letWithInitializer: isLet && b.hasInit,
                                         optional: optional["\(b.position):\(n)"] ?? false))
                default:
                    continue
                }
            }
            return stored
        }
        _ = visit(root["items"] as? [[String: Any]] ?? [], scope: [])
        return out
    }

    /// From the S-expression dump: "line:column:name" of each typed pattern → whether its type is optional.
    private func optionalityByBinding(_ dump: String) -> [String: Bool] {
        var result: [String: Bool] = [:]
        var position = ""
        var pendingName: String?
        for raw in dump.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.drop(while: { $0 == " " })
            if line.hasPrefix("(pattern_binding_decl"), let r = line.range(of: "range=[") {
                // range=[/path/File.swift:12:5 - line:12:20]
                let rest = line[r.upperBound...]
                let head = rest.prefix(while: { $0 != " " })
                let parts = head.split(separator: ":")
                if parts.count >= 3 { position = parts[parts.count - 2] + ":" + parts[parts.count - 1] }
                pendingName = nil
            } else if line.hasPrefix("(pattern_named \"") {
                pendingName = String(line.dropFirst("(pattern_named \"".count).prefix(while: { $0 != "\"" }))
            } else if let n = pendingName {
                if line.hasPrefix("(type_") {
                    result["\(position):\(n)"] = line.hasPrefix("(type_optional")
                        || line.hasPrefix("(type_implicitly_unwrapped_optional")
                        || line.hasPrefix("(type_unqualified_ident id=\"Optional\"")
                }
                pendingName = nil
            }
        }
        return result
    }
}
