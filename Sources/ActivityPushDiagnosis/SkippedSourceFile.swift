import ActivityPushCore
/// A file (or folder) below the audited directory that the audit could not judge, and why. The audit never
/// drops one silently: skipped files are listed in every output format, and `--max-sites` fails when any
/// were skipped (a site in them would not be counted).
public struct SkippedSourceFile: Sendable, Hashable {
    /// Path relative to the audited directory.
    public var file: String
    /// Why it was not scanned (`larger than 2 MB …`, `cannot be read …`, `binary data …`).
    public var reason: String

    /// A skipped file and why.
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    /// `{"file": …, "reason": …}` as the audit's JSON output prints it.
    public var json: JSONValue { .obj([("file", .string(file)), ("reason", .string(reason))]) }
}
