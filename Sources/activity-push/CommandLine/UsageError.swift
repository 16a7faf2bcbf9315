import Foundation

/// A usage error: exit 2 with a one-line reason on standard error, after the command's name.
struct UsageError: Error, CustomStringConvertible, Equatable {
    var description: String
    init(_ message: String) { description = message }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes to standard error with the given terminator.
func printError(_ message: String, terminator: String) {
    FileHandle.standardError.write(Data((message + terminator).utf8))
}
