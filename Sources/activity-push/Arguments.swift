import Foundation

/// A usage error: exit 2 with a one-line reason.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// Command-line arguments for one subcommand, parsed in one place: `--flag value`, `--flag=value`,
/// boolean `--flag`, repeatable flags, and positionals.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var consumed: Set<String> = []

    /// - Parameter booleanFlags: flags that take no value (e.g. `["--strict", "--force"]`).
    init(_ argv: [String], booleanFlags: Set<String> = []) throws {
        var i = 0
        while i < argv.count {
            let a = argv[i]
            if a == "--" {
                positionals += argv[(i + 1)...]
                break
            }
            if a.hasPrefix("--"), a.count > 2 {
                if let eq = a.firstIndex(of: "=") {
                    values[String(a[..<eq]), default: []].append(String(a[a.index(after: eq)...]))
                } else if booleanFlags.contains(a) {
                    values[a, default: []].append("true")
                } else {
                    guard i + 1 < argv.count else { throw UsageError("\(a) needs a value") }
                    values[a, default: []].append(argv[i + 1])
                    i += 1
                }
            } else {
                positionals.append(a)
            }
            i += 1
        }
    }

    /// The last value of `flag`, or nil.
    mutating func value(_ flag: String) -> String? {
        consumed.insert(flag)
        return values[flag]?.last
    }

    /// Every value of a repeatable flag.
    mutating func values(_ flag: String) -> [String] {
        consumed.insert(flag)
        return values[flag] ?? []
    }

    /// A boolean flag: present (`--strict`), or given a value (`--strict=false`, `--strict=0`, `--strict=no`).
    mutating func flag(_ flag: String) -> Bool {
        consumed.insert(flag)
        guard let v = values[flag]?.last else { return false }
        return !["false", "0", "no", "off"].contains(v.lowercased())
    }

    mutating func int(_ flag: String) throws -> Int? {
        guard let v = value(flag) else { return nil }
        guard let i = Int(v) else { throw UsageError("\(flag) expects an integer, got '\(v)'") }
        return i
    }

    mutating func double(_ flag: String) throws -> Double? {
        guard let v = value(flag) else { return nil }
        // Decimal only: Double("0x10") would accept hexadecimal, Double("nan") not-a-number.
        guard v.allSatisfy({ "0123456789.eE+-".contains($0) }), let d = Double(v), d.isFinite else {
            throw UsageError("\(flag) expects a decimal number, got '\(v)'")
        }
        return d
    }

    /// `flag`'s value, else the environment variable `variable` (for key paths, which scripts and services
    /// then need not put on the command line).
    mutating func value(_ flag: String, environment variable: String) -> String? {
        value(flag) ?? ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A secret (an API token, a key path) that need never be on the command line, where every user sees it
    /// in `ps`: `flag VALUE` (kept working), else `flag-file PATH` (the file's first line; at most 64 KB), else
    /// the environment variable `environment`. Nil when none is given; an empty value counts as none.
    /// `--url`: the server to send to instead of Apple's, `https://host[:port]` or `http://host[:port]` (h2c),
    /// checked once here so that a bad one is a usage error (exit 2) rather than a failure per token — and never
    /// echoed with credentials in it. IPv6 literals in brackets (`https://[::1]:2197`).
    mutating func serverURL(_ flag: String = "--url") throws -> String? {
        guard let text = value(flag) else { return nil }
        guard text.hasPrefix("https://") || text.hasPrefix("http://"),
              let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw UsageError("\(flag) must be https://HOST[:PORT] or http://HOST[:PORT] (h2c), e.g. https://127.0.0.1:2197")
        }
        guard components.user == nil, components.password == nil else {
            throw UsageError("\(flag) must not carry a user name or password; the server is authenticated by the provider token")
        }
        guard components.query == nil, components.fragment == nil, components.path.isEmpty || components.path == "/" else {
            throw UsageError("\(flag) takes only the scheme, host and port (the client adds /3/device/…), e.g. https://127.0.0.1:2197")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw UsageError("\(flag): port \(port) is not 1…65535")
        }
        return components.path == "/" ? String(text.dropLast()) : text
    }

    mutating func secret(_ flag: String, environment variable: String) throws -> String? {
        let fileFlag = flag + "-file"
        let direct = value(flag).flatMap { $0.isEmpty ? nil : $0 }
        let path = value(fileFlag)
        if direct != nil, path != nil {
            throw UsageError("\(flag) and \(fileFlag) exclude each other; keep \(fileFlag)")
        }
        if let direct { return direct }
        if let path {
            let bytes = try Inputs.bytes(path, limit: 64 << 10)
            let text = String(decoding: bytes, as: UTF8.self)
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            guard !line.isEmpty else { throw UsageError("\(fileFlag) \(path): the file is empty; write the value on its first line") }
            return line
        }
        if let fromEnvironment = ProcessInfo.processInfo.environment[variable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return nil
    }

    /// Call after reading every flag: unknown flags are usage errors.
    func finish() throws {
        let unknown = values.keys.filter { !consumed.contains($0) }.sorted()
        if let first = unknown.first { throw UsageError("unknown option \(first)") }
    }
}

/// Writes to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
