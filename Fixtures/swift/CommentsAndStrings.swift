import ActivityKit
import Foundation

/* A block comment with a brace { and /* a nested comment } with */ more } text. */
// A line comment with a brace }
struct NoteAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var title: String // trailing comment {
        /* var commentedOut: Int */
        var body: String

        var preview: String {
            let braces = "{ } \" }"
            let raw = #"raw "quoted" { \(not interpolation) }"#
            let multi = """
                multi-line with "quotes" and { braces }
                and \(body.count > 3 ? "a { b" : "}") interpolation
                """
            let rawMulti = #"""
                raw multi "" { \#(title) }
                """#
            return braces + raw + multi + rawMulti
        }

        static let template = "ContentState { title: \("x" + "}") }"
        var count: Int
    }

    var author: String
    static let banner = """
        }}}} not code {{{{
        """
    var folder: String
}
