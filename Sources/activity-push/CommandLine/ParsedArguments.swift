import Foundation

/// One command's arguments, parsed against the options it declares: `--option value`, `--option=value`,
/// flags (`--force`, `--force=false`), repeatable options, positionals, and `--` (everything after it is
/// positional). An option the command does not declare is refused here, with the nearest declared spelling.
struct ParsedArguments: Sendable {
    /// `send`, or `queue enqueue`: for messages.
    let commandPath: String
    /// The arguments that are not options, in order.
    let positionals: [String]
    /// The texts given per option name, in order.
    private let given: [String: [String]]
    /// The declared options by name (reading an undeclared one is a programming error).
    private let declared: [String: OptionSpec]
    /// The environment variables options fall back to (the process's; tests pass their own).
    private let environment: [String: String]

    /// - Throws: ``UsageError`` for an unknown option, or an option that needs a value at the end of the line.
    init(_ arguments: [String], options: [OptionSpec], commandPath: String,
         environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var declared: [String: OptionSpec] = [:]
        for spec in options {
            if let earlier = declared[spec.name] {
                precondition(earlier == spec, "\(commandPath): \(spec.name) is declared twice, differently")
            }
            declared[spec.name] = spec
        }
        var given: [String: [String]] = [:]
        var positionals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals += arguments[index...]
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            let name: String
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            guard let spec = declared[name] else {
                throw UsageError(.unknownOption, option: name, "unknown option \(name)",
                                 fix: Self.unknownOptionFix(name, declared: Array(declared.values), commandPath: commandPath))
            }
            if spec.arity == .flag {
                given[name, default: []].append(inlineValue ?? "true")
            } else if let inlineValue {
                given[name, default: []].append(inlineValue)
            } else {
                guard index < arguments.count else {
                    throw UsageError(.missingValue, option: name, "\(name) needs a value" + (spec.valueName.map { " (\(name) \($0))" } ?? ""))
                }
                given[name, default: []].append(arguments[index])
                index += 1
            }
        }
        self.commandPath = commandPath
        self.positionals = positionals
        self.given = given
        self.declared = declared
        self.environment = environment
    }

    /// The fix for an unknown option: "did you mean --concurrency?" for `--concurency`, or where to find the options.
    static func unknownOptionFix(_ name: String, declared: [OptionSpec], commandPath: String) -> String {
        let candidates = declared.map(\.name)
        let typed = String(name.dropFirst(2))
        let scored = candidates.map { candidate -> (String, Int) in
            (candidate, EditDistance.between(typed, String(candidate.dropFirst(2))))
        }
        let best = scored.min { ($0.1, $0.0) < ($1.1, $1.0) }
        let prefixed = candidates.filter { $0.hasPrefix(name) }.sorted()
        if let best, best.1 <= max(2, typed.count / 3) {
            return "did you mean \(best.0)?"
        }
        if prefixed.count == 1 {
            return "did you mean \(prefixed[0])?"
        }
        return "'activity-push \(commandPath) --help' lists the options"
    }

    private func spec(_ declaration: some OptionDeclaration) -> OptionSpec {
        let spec = declaration.spec
        precondition(declared[spec.name] != nil, "\(commandPath) reads \(spec.name) without declaring it")
        return spec
    }

    /// Whether the option was given on the command line.
    func isGiven(_ option: some OptionDeclaration) -> Bool {
        given[spec(option).name] != nil
    }

    /// The option's text: the last one given, else its environment variable (when not empty).
    private func text(_ spec: OptionSpec) -> String? {
        if let last = given[spec.name]?.last { return last }
        if let variable = spec.environmentVariable, let value = environment[variable], !value.isEmpty { return value }
        return nil
    }

    /// The option's value: the last one given, else its environment variable, else its default; nil when none.
    /// - Throws: ``UsageError`` naming the option when its text does not convert.
    func value<Value>(_ option: Option<Value>) throws -> Value? {
        guard let text = text(spec(option)) else { return option.defaultValue }
        return try option.convert(text, option.spec.name)
    }

    /// The value of an option declared with a default: given, else its environment variable, else the default.
    /// Reading an option without a default this way is a programming error.
    func defaultedValue<Value>(_ option: Option<Value>) throws -> Value {
        guard let value = try value(option) else {
            preconditionFailure("\(commandPath) reads \(option.spec.name) as defaulted, but it declares no default")
        }
        return value
    }

    /// Every value of a repeatable option, in order.
    func values<Value>(_ option: Option<Value>) throws -> [Value] {
        try (given[spec(option).name] ?? []).map { try option.convert($0, option.spec.name) }
    }

    /// A flag: present (`--strict`), unless given a false value (`--strict=false`, `=0`, `=no`, `=off`).
    func isSet(_ flag: Flag) -> Bool {
        guard let last = given[spec(flag).name]?.last else { return false }
        return !["false", "0", "no", "off"].contains(last.lowercased())
    }

    /// A secret (an API token) that need never be on the command line, where every user sees it in `ps`:
    /// `direct VALUE` (kept working), else `file PATH` (the file's first line; at most 64 KB), else `direct`'s
    /// environment variable. Nil when none is given; an empty value counts as none.
    func secret(_ direct: Option<String>, file: Option<String>) throws -> String? {
        let directValue = given[spec(direct).name]?.last.flatMap { $0.isEmpty ? nil : $0 }
        let path = try value(file)
        if directValue != nil, path != nil {
            throw UsageError(.conflictingOptions, option: direct.spec.name, "\(direct.spec.name) and \(file.spec.name) exclude each other",
                             fix: "keep \(file.spec.name)")
        }
        if let directValue { return directValue }
        if let path {
            let bytes = try Inputs.bytes(path, limit: 64 << 10)
            let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            guard !line.isEmpty else {
                throw UsageError(.badInput, option: file.spec.name, file: path, "\(file.spec.name) \(path): the file is empty",
                                 fix: "write the value on its first line")
            }
            return line
        }
        return direct.spec.environmentVariable.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Refuses positionals for a command that takes none.
    func expectNoPositionals() throws {
        if let first = positionals.first { throw UsageError(.badArguments, "unexpected argument '\(first)'") }
    }
}

/// Levenshtein distance, for suggesting the option a user meant.
enum EditDistance {
    static func between(_ left: String, _ right: String) -> Int {
        let leftCharacters = Array(left), rightCharacters = Array(right)
        guard !leftCharacters.isEmpty else { return rightCharacters.count }
        guard !rightCharacters.isEmpty else { return leftCharacters.count }
        var previous = Array(0...rightCharacters.count)
        for (leftIndex, leftCharacter) in leftCharacters.enumerated() {
            var current = [leftIndex + 1] + Array(repeating: 0, count: rightCharacters.count)
            for (rightIndex, rightCharacter) in rightCharacters.enumerated() {
                let substitution = previous[rightIndex] + (leftCharacter == rightCharacter ? 0 : 1)
                current[rightIndex + 1] = min(substitution, previous[rightIndex + 1] + 1, current[rightIndex] + 1)
            }
            previous = current
        }
        return previous[rightCharacters.count]
    }
}
