import Foundation

/// Masks database passwords in any text meant for a person (errors, `queue status`, worker stderr, API answers).
/// The one place for it: ``QueueError`` passes its reason, fix and location through ``redact(_:)``, so every
/// message built from a failing connection string is masked without each call site remembering to.
///
/// The forms libpq accepts (PostgreSQL docs, "Connection Strings"), each masked to `***`:
/// - the userinfo password of a URL: `postgres://user:secret@host/db` → `postgres://user:***@host/db`;
/// - the `password` query parameter: `postgres://user@host/db?password=secret&sslmode=…` → `?password=***&sslmode=…`;
/// - the `password` keyword of a keyword/value string: `host=h password=secret` or `password='a b'` → `password=***`.
package enum CredentialRedaction {
    /// The mask put in place of a password.
    package static let mask = "***"

    /// `text` with every password form above replaced by ``mask``; text without one is returned unchanged.
    package static func redact(_ text: String) -> String {
        redactKeyword(redactUserInfo(text))
    }

    /// `scheme://user:secret@` → `scheme://user:***@`, for every URL in `text`.
    private static func redactUserInfo(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            output += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            // The authority ends at the first '/', '?', '#' or whitespace; a password sits before its last '@'.
            let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) || $0.isWhitespace }) ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                output += authority[...colon] + mask
                rest = rest[at...]
            }
        }
        return output + rest
    }

    /// `password=secret` (query parameter or keyword, any case, value quoted or not) → `password=***`.
    private static func redactKeyword(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let key = rest.range(of: "password", options: .caseInsensitive) {
            output += rest[..<key.upperBound]
            rest = rest[key.upperBound...]
            // Only a key: preceded by start, whitespace, '?' or '&'; followed by optional spaces and '='.
            let before = output.dropLast("password".count).last
            guard before == nil || before!.isWhitespace || before == "?" || before == "&" else { continue }
            var cursor = rest.startIndex
            while cursor < rest.endIndex, rest[cursor] == " " { cursor = rest.index(after: cursor) }
            guard cursor < rest.endIndex, rest[cursor] == "=" else { continue }
            cursor = rest.index(after: cursor)
            while cursor < rest.endIndex, rest[cursor] == " " { cursor = rest.index(after: cursor) }
            output += rest[..<cursor] + mask
            rest = rest[cursor...]
            rest = rest[valueEnd(rest)...]
        }
        return output + rest
    }

    /// Where a password value starting at `value` ends: after its closing quote when quoted (`\'` escapes), else at
    /// whitespace, `&`, `#` or the end.
    private static func valueEnd(_ value: Substring) -> Substring.Index {
        guard value.first == "'" else {
            return value.firstIndex(where: { $0.isWhitespace || $0 == "&" || $0 == "#" }) ?? value.endIndex
        }
        var cursor = value.index(after: value.startIndex)
        while cursor < value.endIndex {
            if value[cursor] == "\\" {
                cursor = value.index(after: cursor)
                if cursor < value.endIndex { cursor = value.index(after: cursor) }
                continue
            }
            if value[cursor] == "'" { return value.index(after: cursor) }
            cursor = value.index(after: cursor)
        }
        return value.endIndex
    }
}
