/// The option layer of `activity-push` — declared options that parse the command line and write `--help`.
///
/// Modelled on swift-argument-parser (`@Option`, `@Flag`, `@OptionGroup`), without property wrappers: each
/// option is a value (``Option`` or ``Flag``) declared once, with its spelling, value name, help, default and
/// parse function; a ``Command`` lists the ``OptionGroup``s it accepts, and ``ParsedArguments`` hands out typed
/// values. The same declarations produce the command's `--help`, so help and parsing cannot drift.
///
/// ## Adding a command
/// One file, e.g. `ActivitiesCommand.swift`:
/// ```swift
/// enum ActivitiesOptions {
///     static let limit = Option<Int>.integer("--limit", valueName: "N", help: "rows to show", default: 100)
///     static let format = Option<OutputFormat>.format([.text, .json], default: .text)
/// }
///
/// let activitiesCommand = Command(
///     name: "activities", summary: "one line for the command list",
///     synopsis: ["[options] [FILE]"],
///     groups: [OptionGroup(ActivitiesOptions.limit, ActivitiesOptions.format), APNsConnectionOptions.group],
///     notes: "exit: 0 …, 1 …, 2 usage error"
/// ) { arguments in
///     let limit = try arguments.defaultedValue(ActivitiesOptions.limit)   // given, else its default
///     let format = try arguments.defaultedValue(ActivitiesOptions.format)
///     let connection = try APNsConnectionOptions(arguments)         // the shared APNs options, read once
///     …
///     return 0
/// }
/// ```
/// then add `activitiesCommand` to ``ActivityPushCLI/commands``. Shared groups: ``APNsConnectionOptions``
/// (`--auth-key`, `--key-id`, `--team-id`, `--env`, `--url`, `--ca-file`), ``DeviceTokenFlags``, ``BuildFlags``,
/// ``CommonOptions`` (`--bundle-id`, `--attributes`, `--database`, `--credential`). Throw ``UsageError`` for a bad
/// combination (exit 2, one line on standard error, prefixed with the command's name); an unknown option is
/// refused before `run` is called, with a suggestion.

/// One command-line option as declared: its spelling, what it takes, and how `--help` shows it.
struct OptionSpec: Sendable, Hashable {
    /// What follows the option on the command line.
    enum Arity: Sendable, Hashable {
        /// No value (`--force`); `--force=false` (or `0`, `no`, `off`) turns it off.
        case flag
        /// One value (`--env sandbox` or `--env=sandbox`); given twice, the last counts.
        case single
        /// Any number of values, one per occurrence (`--token A --token B`).
        case repeatable
    }

    /// The spelling, with its dashes: `--env`.
    let name: String
    /// What the value is, in help: `PATH`, `N`, `sandbox|production`. Nil for a flag.
    let valueName: String?
    /// One line (or a few) for `--help`.
    let help: String
    /// The default as `--help` shows it ("(default 1000)"); nil when there is none to show.
    let defaultText: String?
    /// An environment variable read when the option is not given (for paths and secrets scripts keep off the
    /// command line); shown in help.
    let environmentVariable: String?
    let arity: Arity
    /// Kept working for old scripts but not shown in help (an old name of another option).
    let isHidden: Bool

    /// The left column of help: `--env sandbox|production`.
    var usageText: String { name + (valueName.map { " " + $0 } ?? "") }

    /// The right column of help: the help text with the default, the environment variable and repeatability.
    var helpText: String {
        var notes: [String] = []
        if let defaultText { notes.append("default \(defaultText)") }
        if let environmentVariable { notes.append("or env \(environmentVariable)") }
        if arity == .repeatable { notes.append("repeatable") }
        return notes.isEmpty ? help : help + " (" + notes.joined(separator: "; ") + ")"
    }
}

/// Anything a command declares on its command line: an ``Option`` or a ``Flag``.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// An option that takes a value, typed: the text is converted by `convert` when a command reads it, and a bad
/// value is a ``UsageError`` naming the option.
struct Option<Value: Sendable>: OptionDeclaration {
    let spec: OptionSpec
    /// The value when the option is absent (and its environment variable unset or empty).
    let defaultValue: Value?
    /// Text → value; `flag` is the option's name, for the error.
    let convert: @Sendable (_ text: String, _ flag: String) throws -> Value

    init(_ name: String, valueName: String, help: String, default defaultValue: Value? = nil,
         defaultText: String? = nil, environment: String? = nil, repeatable: Bool = false, hidden: Bool = false,
         convert: @escaping @Sendable (_ text: String, _ flag: String) throws -> Value) {
        spec = OptionSpec(name: name, valueName: valueName, help: help,
                          defaultText: defaultText ?? defaultValue.map { "\($0)" }, environmentVariable: environment,
                          arity: repeatable ? .repeatable : .single, isHidden: hidden)
        self.defaultValue = defaultValue
        self.convert = convert
    }
}

/// An option without a value: present or not.
struct Flag: OptionDeclaration {
    let spec: OptionSpec

    init(_ name: String, help: String, hidden: Bool = false) {
        spec = OptionSpec(name: name, valueName: nil, help: help, defaultText: nil, environmentVariable: nil,
                          arity: .flag, isHidden: hidden)
    }
}

/// Options shown together in help under one title (nil: the command's own options, shown first).
struct OptionGroup: Sendable {
    let title: String?
    let options: [OptionSpec]

    init(_ title: String? = nil, _ options: [any OptionDeclaration]) {
        self.title = title
        self.options = options.map(\.spec)
    }

    init(_ options: any OptionDeclaration...) {
        self.init(nil, options)
    }
}
