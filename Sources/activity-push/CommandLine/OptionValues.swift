import ActivityPushCore

// The value types options convert to, each with its one error message naming the option.

extension Option where Value == String {
    /// Text as given.
    init(_ name: String, valueName: String, help: String, default defaultValue: String? = nil,
         defaultText: String? = nil, environment: String? = nil, repeatable: Bool = false, hidden: Bool = false) {
        self.init(name, valueName: valueName, help: help, default: defaultValue, defaultText: defaultText,
                  environment: environment, repeatable: repeatable, hidden: hidden) { text, _ in text }
    }
}

extension Option where Value == Int {
    /// A decimal integer: `--concurrency 1000`.
    static func integer(_ name: String, valueName: String = "N", help: String, default defaultValue: Int? = nil,
                        hidden: Bool = false) -> Option<Int> {
        Option(name, valueName: valueName, help: help, default: defaultValue, hidden: hidden) { text, flag in
            guard let number = Int(text) else { throw UsageError(.badValue, option: flag, "\(flag) expects an integer, got '\(text)'") }
            return number
        }
    }
}

extension Option where Value == Int64 {
    /// Whole UNIX seconds (seconds since 1970-01-01 UTC): `--stale-date 1767229200`.
    static func unixSeconds(_ name: String, valueName: String = "UNIX", help: String) -> Option<Int64> {
        Option(name, valueName: valueName, help: help) { text, flag in
            guard let seconds = Int64(text) else { throw UsageError(.badValue, option: flag, "\(flag) expects whole UNIX seconds, got '\(text)'") }
            return seconds
        }
    }
}

extension Option where Value == Double {
    /// A finite decimal number (no hexadecimal, no `nan`): `--lease 60`, `--now 1767225600.5`.
    static func decimal(_ name: String, valueName: String = "SECONDS", help: String, default defaultValue: Double? = nil,
                        defaultText: String? = nil) -> Option<Double> {
        let shownDefault = defaultText ?? defaultValue.map { value in
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        return Option(name, valueName: valueName, help: help, default: defaultValue, defaultText: shownDefault) { text, flag in
            // Double("0x10") would accept hexadecimal, Double("nan") not-a-number.
            guard text.allSatisfy({ "0123456789.eE+-".contains($0) }), let number = Double(text), number.isFinite else {
                throw UsageError(.badValue, option: flag, "\(flag) expects a decimal number, got '\(text)'")
            }
            return number
        }
    }
}

extension Option {
    /// One of a fixed set of names; help shows them as the value name (`sandbox|production`) and a bad one is
    /// refused with the list: "--env must be sandbox or production, got 'prod'".
    static func choice(_ name: String, _ choices: [(name: String, value: Value)], help: String,
                       default defaultValue: Value? = nil, defaultText: String? = nil) -> Option<Value> {
        let names = choices.map(\.name)
        return Option(name, valueName: names.joined(separator: "|"), help: help, default: defaultValue,
                      defaultText: defaultText) { text, flag in
            guard let match = choices.first(where: { $0.name == text }) else {
                throw UsageError(.badValue, option: flag, "\(flag) must be \(Self.list(names)), got '\(text)'")
            }
            return match.value
        }
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}

extension Option where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// One of `allowed`, spelled by raw value.
    static func choice(_ name: String, _ allowed: [Value], help: String, default defaultValue: Value? = nil) -> Option<Value> {
        choice(name, allowed.map { (name: $0.rawValue, value: $0) }, help: help, default: defaultValue,
               defaultText: defaultValue?.rawValue)
    }
}

/// What a command prints: `--format`. Each command accepts its own subset (``Option/format(_:default:help:)``).
enum OutputFormat: String, Sendable, CaseIterable {
    /// For people; findings as `file:line:column: error: …`.
    case text
    /// For programs.
    case json
    /// SARIF 2.1.0, for code-scanning tools.
    case sarif
    /// A JSON Schema (draft 2020-12) document.
    case jsonSchema = "json-schema"
}

extension Option where Value == OutputFormat {
    /// `--format` limited to `allowed`, listed in help and in the error for another value.
    static func format(_ allowed: [OutputFormat], default defaultValue: OutputFormat,
                       help: String = "output format") -> Option<OutputFormat> {
        choice("--format", allowed, help: help, default: defaultValue)
    }
}
