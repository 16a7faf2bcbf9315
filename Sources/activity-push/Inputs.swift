import ActivityPushCore
import Foundation

/// Reading the files commands take. Failures are usage-level (exit 2) with a one-line reason naming the file.
enum Inputs {
    /// Inputs are read up to this size; a Live Activity payload is at most 5 KB, so anything near it is a mistake.
    static let readLimit = 64 << 20
    /// Seconds a FIFO may go without a writer, and a pipe or FIFO without sending a byte, before a read is
    /// refused (`ACTIVITY_PUSH_READ_TIMEOUT` overrides both; a terminal on standard input waits for its user).
    static var readTimeoutSeconds: Int {
        ProcessInfo.processInfo.environment["ACTIVITY_PUSH_READ_TIMEOUT"].flatMap { Int($0) }.map { max(1, $0) } ?? 30
    }

    static var swiftSourceLimit: Int { SwiftSourceReader.maxFileBytes }

    static func displayName(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// The bytes of a file, a pipe or device (`<(…)`, `/dev/stdin`), or `-` for standard input, up to `limit`.
    /// A regular file over the limit is refused from its size, unread; a FIFO with no writer or a pipe that sends
    /// nothing for ``readTimeoutSeconds`` is refused instead of waited for.
    static func bytes(_ path: String, limit: Int = readLimit) throws -> [UInt8] {
        let name = displayName(path)
        let fd = try openForReading(path)
        defer { if path != "-" { close(fd) } }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw UsageError(.unreadableInput, file: name, "\(name): cannot be read: \(String(cString: strerror(errno)))") }
        let regular = (status.st_mode & S_IFMT) == S_IFREG
        if regular, Int(status.st_size) > limit {
            throw UsageError(.unreadableInput, file: name, "\(name): \(Int(status.st_size) >> 20 > 0 ? "\(Int(status.st_size) >> 20) MB" : "\(Int(status.st_size)) bytes"), over the \(limitText(limit)) limit for this input")
        }
        let waits = !regular && isatty(fd) == 0
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            if waits { try waitReadable(fd, name: name) }
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw UsageError(.unreadableInput, file: name, "\(name): cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            out.append(contentsOf: buffer[0..<count])
            if out.count > limit {
                throw UsageError(.unreadableInput, file: name, "\(name): more than the \(limitText(limit)) limit for this input")
            }
        }
        return out
    }

    private static func limitText(_ limit: Int) -> String {
        limit >= 1 << 20 ? "\(limit >> 20) MB" : "\(limit >> 10) KB"
    }

    /// Opens `path` (or returns standard input for `-`) without blocking on a FIFO that has no writer yet: it
    /// waits up to ``readTimeoutSeconds`` for one, then refuses.
    static func openForReading(_ path: String) throws -> Int32 {
        if path == "-" { return STDIN_FILENO }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw UsageError(.unreadableInput, file: path, "\(path): no such file")
        }
        if isDir.boolValue { throw UsageError(.unreadableInput, file: path, "\(path): is a folder, expected a file") }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw UsageError(.unreadableInput, file: path, "\(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        if fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO {
            // With O_NONBLOCK, poll on a FIFO nobody has opened for writing reports nothing; a writer that has
            // opened it shows up as readable data or, once it closes, as hang-up.
            var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let deadline = Date().addingTimeInterval(Double(readTimeoutSeconds))
            while poll(&pending, 1, 100) == 0 {
                if Date() >= deadline {
                    close(fd)
                    throw UsageError(.unreadableInput, file: path, "\(path): a FIFO nothing wrote to for \(readTimeoutSeconds) s (no writer, or a silent one)", fix: "start the program that writes to it first, or pass a regular file")
                }
            }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Waits until `fd` has data (or its end) for at most ``readTimeoutSeconds``.
    private static func waitReadable(_ fd: Int32, name: String) throws {
        var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&pending, 1, Int32(readTimeoutSeconds * 1000))
            if ready > 0 { return }
            if ready < 0, errno == EINTR { continue }
            throw UsageError(.unreadableInput, file: name, "\(name): no data for \(readTimeoutSeconds) s", fix: "is the writer stuck? (ACTIVITY_PUSH_READ_TIMEOUT sets the wait)")
        }
    }

    /// The app's schema from `--attributes` paths (files or folders); nil when none were given.
    /// Said on standard error by every command that judges a push without the app's types.
    static func noteMissingSchema() {
        printError("note: no --attributes: attributes and content-state were not checked against the app's types (key names, types, Dates)")
    }

    static func schema(_ paths: [String]) throws -> ActivitySchema? {
        guard !paths.isEmpty else { return nil }
        do {
            var isFolder: ObjCBool = false
            if paths.contains(where: { FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && isFolder.boolValue }) {
                // Folders are walked by the reader; the files given beside them must be regular and within the cap.
                for path in paths where FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue {
                    var status = stat()
                    guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
                        throw UsageError(.unreadableInput, file: path, "\(path): not a regular file", fix: "pass .swift files (or folders of them)")
                    }
                    guard Int(status.st_size) <= swiftSourceLimit else {
                        throw UsageError(.unreadableInput, file: path, "\(path): \(Int(status.st_size) >> 20) MB, over the \(swiftSourceLimit >> 20) MB limit for a Swift source file")
                    }
                }
                return try SwiftSourceReader.read(paths: paths)
            }
            var sources: [(file: String, text: String)] = []
            for path in paths {
                guard let text = String(validating: try bytes(path, limit: swiftSourceLimit), as: UTF8.self) else {
                    throw UsageError(.badInput, file: path, "'\(path)' is not UTF-8 text", fix: "pass Swift source files (UTF-8)")
                }
                sources.append((path, text))
            }
            return try SwiftSourceReader.read(sources: sources)
        } catch let error as SchemaReadError {
            throw UsageError(refused: error, file: error.file)
        }
    }

    /// The app's schema from a file written by `activity-push schema --format json`.
    static func schemaDescription(_ path: String) throws -> ActivitySchema {
        // A schema description nests about three levels per Swift type level.
        let document = JSONReader.read(try bytes(path), maxDepth: 4096)
        if let problem = document.problems.first(where: { $0.kind != .duplicateKey }) {
            throw UsageError(.badInput, file: path, "\(path):\(problem.position.line):\(problem.position.column): not valid JSON: \(problem.message)")
        }
        guard let root = document.root else { throw UsageError(.badInput, file: path, "\(path): empty") }
        if root["$schema"] != nil {
            throw UsageError(.badInput, file: path, "\(path) is a JSON Schema export",
                             fix: "--schema takes the output of `activity-push schema --format json`")
        }
        do {
            return try ActivitySchemaDescription.read(root.value)
        } catch let error as SchemaReadError {
            throw UsageError(.badInput, file: path, "\(path): \(error.message)")
        }
    }

    /// A headers file: a JSON object of header names (any case) to string or number values.
    /// Returns the headers and where each name sits in the file (for compiler-style locations).
    static func headers(_ path: String) throws -> (APNsHeaders, [String: SourcePosition]) {
        let document = JSONReader.read(try bytes(path))
        if let problem = document.problems.first(where: { $0.kind != .duplicateKey }) {
            throw UsageError(.badInput, file: path, "\(path):\(problem.position.line):\(problem.position.column): not valid JSON: \(problem.message)")
        }
        guard let members = document.root?.value.members else {
            throw UsageError(.badInput, file: path, "\(path): expected a JSON object of header names to values, e.g. {\"apns-push-type\": \"liveactivity\"}")
        }
        var headers = APNsHeaders()
        var positions: [String: SourcePosition] = [:]
        for member in members {
            let value: String
            switch member.value.value {
            case .string(let text): value = text
            case .number(let number): value = number.lexeme
            case .bool(let flag): value = flag ? "true" : "false"
            default:
                throw UsageError(.badInput, file: path, "\(path):\(member.value.position.line):\(member.value.position.column): header \"\(member.key)\" must be a string or number")
            }
            headers[member.key] = value
            positions[member.key.lowercased()] = member.keyPosition
        }
        return (headers, positions)
    }

    static func writeStdout(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
