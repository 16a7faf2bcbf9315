/// A queue operation failed: the database could not be opened or a statement failed, or an input was wrong.
/// `description` names what failed and, where there is one, the fix.
public struct QueueError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
