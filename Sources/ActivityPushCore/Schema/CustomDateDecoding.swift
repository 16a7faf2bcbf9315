/// What an app's own date decoder reads beyond its ``DateEncoding``: the Swift type it decodes the number as (an
/// integer type refuses fractions and out-of-range values, as `decode(Int64.self)` does), and for ISO 8601 whether
/// the formatter has `.withFractionalSeconds` (then a fraction is required; without it one is refused —
/// `ISO8601DateFormatter` accepts only the exact format its options name).
public struct CustomDateDecoding: Sendable, Hashable {
    /// The integer type decoded (`Int64` for `decode(Int64.self)`); nil for `Double` or a string.
    public var integer: IntegerKind?
    /// ISO 8601 only: the formatter's options include `.withFractionalSeconds`.
    public var fractionalSeconds: Bool

    /// A decoding detail; the default is a floating number (or an ISO 8601 string without fractions).
    public init(integer: IntegerKind? = nil, fractionalSeconds: Bool = false) {
        self.integer = integer
        self.fractionalSeconds = fractionalSeconds
    }
}
