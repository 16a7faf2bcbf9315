import ActivityPushCore
import Foundation

/// Reading the files commands take. Failures are usage-level (exit 2) with a one-line reason naming the file.
enum Inputs {
    /// Inputs are read up to this size; a Live Activity payload is at most 5 KB, so anything near it is a mistake.
    static let readLimit = 64 << 20

    /// The bytes of a file, a pipe or device (`<(…)`, `/dev/stdin`), or `-` for standard input, up to ``readLimit``.
    static func bytes(_ path: String) throws -> [UInt8] {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw UsageError("\(path): no such file")
            }
            if isDir.boolValue { throw UsageError("\(path): is a folder, expected a file") }
            guard let h = FileHandle(forReadingAtPath: path) else {
                throw UsageError("\(path): cannot be read (permission denied)")
            }
            handle = h
        }
        defer { if path != "-" { try? handle.close() } }
        var out: [UInt8] = []
        while true {
            let chunk: Data
            do {
                guard let c = try handle.read(upToCount: 1 << 20) else { break }
                chunk = c
            } catch {
                throw UsageError("\(path == "-" ? "standard input" : path): cannot be read: \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            out.append(contentsOf: chunk)
            if out.count > readLimit {
                throw UsageError("\(path == "-" ? "standard input" : path): larger than \(readLimit >> 20) MB; a Live Activity payload is at most 5 KB")
            }
        }
        return out
    }

    /// The app's schema from `--attributes` paths (files or folders); nil when none were given.
    /// Said on standard error by every command that judges a push without the app's types.
    static func noteMissingSchema() {
        printError("note: no --attributes: attributes and content-state were not checked against the app's types (key names, types, Dates)")
    }

    static func schema(_ paths: [String]) throws -> ActivitySchema? {
        guard !paths.isEmpty else { return nil }
        do {
            return try SwiftSourceReader.read(paths: paths)
        } catch let e as SchemaReadError {
            throw UsageError(e.message)
        }
    }

    /// The app's schema from a file written by `activity-push schema --format json`.
    static func schemaDescription(_ path: String) throws -> ActivitySchema {
        // A schema description nests about three levels per Swift type level.
        let doc = JSONReader.read(try bytes(path), maxDepth: 4096)
        if let p = doc.problems.first(where: { $0.kind != .duplicateKey }) {
            throw UsageError("\(path):\(p.position.line):\(p.position.column): not valid JSON: \(p.message)")
        }
        guard let root = doc.root else { throw UsageError("\(path): empty") }
        if root["$schema"] != nil {
            throw UsageError("\(path) is a JSON Schema export; --schema takes the output of `activity-push schema --format json`")
        }
        do {
            return try ActivitySchemaDescription.read(root.value)
        } catch let e as SchemaReadError {
            throw UsageError("\(path): \(e.message)")
        }
    }

    /// A headers file: a JSON object of header names (any case) to string or number values.
    /// Returns the headers and where each name sits in the file (for compiler-style locations).
    static func headers(_ path: String) throws -> (APNsHeaders, [String: SourcePosition]) {
        let doc = JSONReader.read(try bytes(path))
        if let p = doc.problems.first(where: { $0.kind != .duplicateKey }) {
            throw UsageError("\(path):\(p.position.line):\(p.position.column): not valid JSON: \(p.message)")
        }
        guard let members = doc.root?.value.members else {
            throw UsageError("\(path): expected a JSON object of header names to values, e.g. {\"apns-push-type\": \"liveactivity\"}")
        }
        var h = APNsHeaders()
        var positions: [String: SourcePosition] = [:]
        for m in members {
            let value: String
            switch m.value.value {
            case .string(let s): value = s
            case .number(let n): value = n.lexeme
            case .bool(let b): value = b ? "true" : "false"
            default:
                throw UsageError("\(path):\(m.value.position.line):\(m.value.position.column): header \"\(m.key)\" must be a string or number")
            }
            h[m.key] = value
            positions[m.key.lowercased()] = m.keyPosition
        }
        return (h, positions)
    }

    static func writeStdout(_ s: String) {
        FileHandle.standardOutput.write(Data(s.utf8))
    }
}
