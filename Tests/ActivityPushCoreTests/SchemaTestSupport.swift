import Foundation
import XCTest
@testable import ActivityPushCore

/// Paths and small helpers shared by the Schema* tests.
enum SchemaTestSupport {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let swiftFixtures = repository.appendingPathComponent("Fixtures/swift")
    static let cases = repository.appendingPathComponent("Fixtures/cases")

    static func fixture(_ name: String) -> String { swiftFixtures.appendingPathComponent(name).path }

    static func caseFolders() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: cases, includingPropertiesForKeys: nil)
            .filter { $0.hasDirectoryPath || FileManager.default.fileExists(atPath: $0.appendingPathComponent("Attributes.swift").path) }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Attributes.swift").path) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Every .swift file under Fixtures/swift and Fixtures/cases.
    static func allSwiftFixtures() throws -> [String] {
        SwiftSourceReader.swiftFiles(below: swiftFixtures.path) + SwiftSourceReader.swiftFiles(below: cases.path)
    }

    static func read(_ text: String, file: String = "Test.swift") throws -> ActivitySchema {
        try SwiftSourceReader.read(sources: [(file, text)])
    }

    /// The first executable named `name` on PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = String(dir) + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a program; returns exit status, standard output and standard error.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, out: Data, err: String) {
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("schema-stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errFile) }
        let errHandle = try FileHandle(forWritingTo: errFile)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = errHandle
        try p.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try? errHandle.close()
        let err = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        return (p.terminationStatus, outData, err)
    }
}

extension StructShape {
    /// JSON key → (required, shape).
    var keyMap: [String: StoredProperty] {
        Dictionary(properties.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

extension ValueShape {
    var object: StructShape? {
        if case .object(let s) = unwrapped { return s }
        return nil
    }
    var enumeration: EnumShape? {
        if case .enumeration(let e) = unwrapped { return e }
        return nil
    }
    var unresolvedReason: String? {
        if case .unresolved(_, let r) = unwrapped { return r }
        return nil
    }
    /// A short text form used by assertions: `Int`, `String?`, `[Date]`, `enum`, `object`, `unresolved`.
    var brief: String {
        switch self {
        case .bool: return "Bool"
        case .string: return "String"
        case .character: return "Character"
        case .integer(let k): return k.name
        case .floating(let n): return n
        case .date: return "Date"
        case .customDate(let e, let d): return "Date(\(e.rawValue)\(d.integer.map { " " + $0.name } ?? "")\(d.fractionalSeconds ? " fractional" : ""))"
        case .url: return "URL"
        case .uuid: return "UUID"
        case .data: return "Data"
        case .array(let e): return "[" + e.brief + "]"
        case .set(let e): return "Set<" + e.brief + ">"
        case .dictionary(let k, let v): return "[" + k.brief + ": " + v.brief + "]"
        case .optional(let w): return w.brief + "?"
        case .object(let s): return "object " + s.name
        case .enumeration(let e): return "enum " + e.name
        case .unresolved: return "unresolved"
        }
    }
}
