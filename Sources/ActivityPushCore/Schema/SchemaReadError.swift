/// Why the schema could not be read at all (as opposed to one unresolved type, which is a finding): a
/// ``Kind`` to branch on, the file and line when known, the reason and the fix, kept apart.
///
/// ``message`` joins them as the CLI prints them: `File.swift:12: unterminated string literal. Fix: close the
/// string with ".`.
public struct SchemaReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable kebab-case name (an open set, like ``FindingCode``).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kebab-case name.
        public let rawValue: String
        /// A kind by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The name.
        public var description: String { rawValue }

        /// `no-source`: no path was given.
        public static let noSource = Kind(rawValue: "no-source")
        /// `not-found`: a path names no file or folder.
        public static let notFound = Kind(rawValue: "not-found")
        /// `no-swift-file`: a folder holds no `.swift` file.
        public static let noSwiftFile = Kind(rawValue: "no-swift-file")
        /// `unreadable`: a file cannot be read (permissions, not a regular file).
        public static let unreadable = Kind(rawValue: "unreadable")
        /// `not-utf8`: a file is not UTF-8 text.
        public static let notUTF8 = Kind(rawValue: "not-utf8")
        /// `syntax`: a syntax problem (or nesting past the reader's limit) prevents reading; ``line`` is set.
        public static let syntax = Kind(rawValue: "syntax")
        /// `no-activity-attributes`: no file declares a type conforming to `ActivityAttributes`.
        public static let noActivityAttributes = Kind(rawValue: "no-activity-attributes")
        /// `bad-description`: a schema description (`activity-push schema --format json`) has the wrong shape.
        public static let badDescription = Kind(rawValue: "bad-description")
        /// `too-large`: a Swift source file is over ``SwiftSourceReader/maxFileBytes``.
        public static let tooLarge = Kind(rawValue: "too-large")
        /// `bad-units`: an `activity-push.units` declaration file is unreadable, malformed or names nothing read.
        public static let badUnits = Kind(rawValue: "bad-units")
    }

    /// What went wrong.
    public var kind: Kind
    /// The file (or path) concerned, when there is one.
    public var file: String?
    /// 1-based line in ``file`` (syntax problems).
    public var line: Int?
    /// What is wrong, without location or fix (already naming the path where that reads better).
    public var reason: String
    /// What to do, when the reader knows.
    public var fix: String?

    /// An error; `file` with `line` prefixes the message as `file:line:`.
    public init(_ kind: Kind, file: String? = nil, line: Int? = nil, _ reason: String, fix: String? = nil) {
        self.kind = kind
        self.file = file
        self.line = line
        self.reason = reason
        self.fix = fix
    }

    /// `[file:line: ]reason[. Fix: fix.]` — one line naming the file (and line) and the fix.
    public var message: String {
        let location = file.flatMap { file in line.map { "\(file):\($0): " } } ?? ""
        return location + reason + (fix.map { ". Fix: \($0)." } ?? "")
    }

    /// ``message``.
    public var description: String { message }
}
