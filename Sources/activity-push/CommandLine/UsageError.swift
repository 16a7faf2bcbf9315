import ActivityPushAPNs
import ActivityPushConsole
import ActivityPushCore
import ActivityPushDiagnosis
import ActivityPushQueue
import Foundation

/// A usage error: exit 2 with a one-line reason on standard error, after the command's name.
///
/// A ``Kind`` to branch on, the option or file it concerns, the reason and the fix, kept apart; ``description``
/// joins them as the CLI prints them: `reason[; fix]`, e.g. `unknown option --cuont; did you mean --count?`.
struct UsageError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, as a stable kebab-case name (an open set).
    struct Kind: RawRepresentable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        let rawValue: String
        /// A kind by name.
        init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        var description: String { rawValue }

        /// `unknown-option`: an option the command does not declare; ``option`` is set.
        static let unknownOption = Kind(rawValue: "unknown-option")
        /// `missing-value`: an option that takes a value ends the line; ``option`` is set.
        static let missingValue = Kind(rawValue: "missing-value")
        /// `bad-value`: an option's value does not convert or is out of range; ``option`` is set.
        static let badValue = Kind(rawValue: "bad-value")
        /// `missing-option`: a required option (or one of a required set) is not given.
        static let missingOption = Kind(rawValue: "missing-option")
        /// `conflicting-options`: options (or an option and an argument) that exclude each other or need another.
        static let conflictingOptions = Kind(rawValue: "conflicting-options")
        /// `bad-arguments`: the wrong number of positional arguments.
        static let badArguments = Kind(rawValue: "bad-arguments")
        /// `unreadable-input`: a file or standard input cannot be read (missing, a folder, too large, a silent FIFO).
        static let unreadableInput = Kind(rawValue: "unreadable-input")
        /// `bad-input`: an input file was read but its content is wrong (not JSON, wrong shape, not UTF-8).
        static let badInput = Kind(rawValue: "bad-input")
        /// `refused`: a library refused the input (a schema, queue, log, key, console or mock error);
        /// ``cause`` names that error's kind.
        static let refused = Kind(rawValue: "refused")
        /// `failed`: the command could not set itself up (a bench could not start mock-apns or make a key).
        static let failed = Kind(rawValue: "failed")
        /// `usage`: a usage error given no finer kind (no site in the CLI throws it now; kept so the set stays open).
        static let usage = Kind(rawValue: "usage")
    }

    /// What went wrong.
    var kind: Kind
    /// The option concerned (`--count`), when there is one.
    var option: String?
    /// The file concerned, when there is one.
    var file: String?
    /// The kind of the library error this one passes on (``Kind/refused``), e.g. `not-found`.
    var cause: String?
    /// What is wrong, without the fix (already naming the option or file where that reads better).
    var reason: String
    /// What to do, when the command knows.
    var fix: String?

    /// An error of `kind`.
    init(_ kind: Kind, option: String? = nil, file: String? = nil, _ reason: String, fix: String? = nil) {
        self.kind = kind
        self.option = option
        self.file = file
        self.reason = reason
        self.fix = fix
    }

    /// A library's error passed on (``Kind/refused``); ``cause`` is its kind when it has one. The reason is the
    /// error's text, after `prefix` when given (`--database: …`).
    init(refused error: any Error, option: String? = nil, file: String? = nil, prefix: String? = nil) {
        self.init(.refused, option: option, file: file, (prefix.map { "\($0): " } ?? "") + "\(error)")
        cause = Self.kind(of: error)
    }

    /// The kind of a library error, for ``cause``.
    static func kind(of error: any Error) -> String? {
        switch error {
        case let error as SchemaReadError: error.kind.rawValue
        case let error as DeviceLogError: error.kind.rawValue
        case let error as QueueError: error.kind.rawValue
        case let error as ProviderTokenError: error.kind.rawValue
        case let error as HTTPServerError: error.kind.rawValue
        case let error as UsageError: error.kind.rawValue
        default: nil
        }
    }

    /// `reason[; fix]`.
    var description: String { reason + (fix.map { "; \($0)" } ?? "") }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes to standard error with the given terminator.
func printError(_ message: String, terminator: String) {
    FileHandle.standardError.write(Data((message + terminator).utf8))
}
