import Foundation

/// Why the schema could not be read at all (as opposed to one unresolved type, which is a finding).
public struct SchemaReadError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads `ActivityAttributes` types from the app's own Swift source files.
///
/// PLACEHOLDER — being implemented (Schema helper). API shape is fixed:
public enum SwiftSourceReader {
    /// Reads every `.swift` file given (folders: every `.swift` file below them, sorted).
    /// - Throws: ``SchemaReadError`` when a path is unreadable, a folder holds no `.swift` file,
    ///   or no file declares a type conforming to `ActivityAttributes`.
    public static func read(paths: [String]) throws -> ActivitySchema {
        throw SchemaReadError("schema reader not implemented yet")
    }

    /// Reads source text given in memory (`file` is the name used in locations).
    public static func read(sources: [(file: String, text: String)]) throws -> ActivitySchema {
        throw SchemaReadError("schema reader not implemented yet")
    }
}
