/// What the device's `JSONDecoder` (swift-foundation) makes of a JSON number for a Swift number type, judged on
/// the number's exact lexeme — never on a `Double` that has already rounded it.
///
/// Integers (`JSONDecoderImpl.unwrapFixedWidthInteger`): a plain integer (`-128`, `18446744073709551615`) is read
/// exactly and must lie in the type's range. Any other number (`3.0`, `1e2`) is read as a `Double` (strtod) that
/// must be a whole number the type holds (`T(exactly:)`); below 2^53 that is the value. From 2^53 up the text is
/// read again as a `Decimal` (trailing zeros dropped, fraction digits truncated) whose significand must fit 64
/// bits and whose magnitude the type holds — a negative one at most `T.max`, so `-9223372036854775808.0` fails
/// for `Int64` while `-9223372036854775808` decodes.
///
/// Floating point: `Float`/`Double` are parsed with correct rounding (strtof/strtod); a result that overflows to
/// infinity, or a non-zero number that rounds to zero, fails. `Float16` decodes a `Float` and rounds it: it fails
/// only when that rounds to infinity (|x| ≥ 65520), so `65519` → 65504 and `1e-9` → 0 decode.
/// Each rule was checked against the real decoder (Swift 6.3.1); the decoder-oracle test keeps them honest.
enum DecodedNumber {
    enum IntegerVerdict: Equatable {
        case fits
        case outOfRange
        /// A number with a fractional part the decoder refuses (`1.5`).
        case fraction
    }

    private static let twoTo53: Double = 9_007_199_254_740_992

    static func integer(_ number: JSONNumber, fits kind: IntegerKind) -> IntegerVerdict {
        readVerdict(number, as: kind).verdict  // no text built on the hot path
    }

    /// The integer the decoder reads for `kind`, as decimal text (`-0` reads as `0`); nil when it throws.
    static func integerText(_ number: JSONNumber, as kind: IntegerKind) -> String? {
        read(number, as: kind).text
    }

    private static func read(_ number: JSONNumber, as kind: IntegerKind) -> (verdict: IntegerVerdict, text: String?) {
        let verdict = readVerdict(number, as: kind)
        guard verdict.verdict == .fits else { return (verdict.verdict, nil) }
        guard let magnitude = verdict.magnitude, magnitude != 0 else { return (.fits, "0") }
        return (.fits, (number.lexeme.hasPrefix("-") ? "-" : "") + String(magnitude))
    }

    /// A plain integer lexeme (no fraction, no exponent) of this magnitude and sign: read exactly, it must lie in
    /// the type's range (`-0` fits every type).
    static func plainInteger(magnitude: UInt64, negative: Bool, fits kind: IntegerKind) -> Bool {
        plainInteger(magnitude: magnitude, negative: negative, min: kind.min, maxUnsigned: kind.maxUnsigned)
    }

    /// ``plainInteger(magnitude:negative:fits:)`` for a kind given by its bounds.
    static func plainInteger(magnitude: UInt64, negative: Bool, min: Int64, maxUnsigned: UInt64) -> Bool {
        magnitude == 0 || magnitude <= (negative ? UInt64(bitPattern: 0 &- min) : maxUnsigned)
    }

    private static func readVerdict(_ number: JSONNumber, as kind: IntegerKind) -> (verdict: IntegerVerdict, magnitude: UInt64?) {
        let text = number.lexeme.utf8
        let negative = text.first == UInt8(ascii: "-")
        let negativeLimit = UInt64(bitPattern: 0 &- kind.min)  // |min|: 2^63 for Int64, 128 for Int8, 0 unsigned
        if number.isIntegerLexeme {
            guard let magnitude = UInt64(negative ? String(number.lexeme.dropFirst()) : number.lexeme) else { return (.outOfRange, nil) }
            return plainInteger(magnitude: magnitude, negative: negative, fits: kind) ? (.fits, magnitude) : (.outOfRange, nil)
        }
        let double = number.doubleValue
        guard double.isFinite else { return (.outOfRange, nil) }
        guard double == double.rounded(.towardZero) else { return (.fraction, nil) }
        // T(exactly: double)
        let below: Bool = double < -Double(negativeLimit)
        let above: Bool = kind.maxUnsigned == UInt64.max ? double >= 18_446_744_073_709_551_616.0
            : kind.maxUnsigned == UInt64(Int64.max) ? double >= 9_223_372_036_854_775_808.0
            : double > Double(kind.maxUnsigned)
        if below || above { return (.outOfRange, nil) }
        if double.magnitude < twoTo53 { return (.fits, UInt64(double.magnitude)) }
        // Decimal path: a negative value at most T.max in magnitude.
        guard let magnitude = decimalIntegerMagnitude(number.lexeme) else { return (.outOfRange, nil) }
        if negative, kind.min >= 0 { return (.outOfRange, nil) }
        return magnitude <= kind.maxUnsigned ? (.fits, magnitude) : (.outOfRange, nil)
    }

    /// `FixedWidthInteger(Decimal)` as swift-foundation computes it: the significand (trailing zeros dropped)
    /// must fit 64 bits, a negative exponent truncates, a positive one multiplies without overflow.
    private static func decimalIntegerMagnitude(_ lexeme: String) -> UInt64? {
        var digits: [UInt8] = []
        var exponent = 0
        var seenPoint = false
        var iterator = lexeme.utf8.makeIterator()
        var exponentText = ""
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "+"): continue
            case UInt8(ascii: "."): seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                while let e = iterator.next() { exponentText.append(Character(Unicode.Scalar(e))) }
            default:
                digits.append(byte - UInt8(ascii: "0"))
                if seenPoint { exponent -= 1 }
            }
        }
        guard let written = Int(exponentText.isEmpty ? "0" : exponentText) else { return nil }
        exponent += written
        while let first = digits.first, first == 0 { digits.removeFirst() }
        while let last = digits.last, last == 0 { digits.removeLast(); exponent += 1 }
        var significand: UInt64 = 0
        for d in digits {
            let (times, o1) = significand.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(d))
            if o1 || o2 { return nil }
            significand = sum
        }
        if exponent < 0 {
            for _ in 0..<min(-exponent, 40) { significand /= 10 }
        } else {
            for _ in 0..<exponent {
                let (times, overflow) = significand.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                significand = times
            }
        }
        return significand
    }

    /// Whether the floating-point type `name` decodes `number` (see the type's documentation).
    static func floatingFits(_ number: JSONNumber, name: String) -> Bool {
        let lexeme = number.lexeme
        // Without an exponent and within 38 characters a number is below 1e38 in magnitude and, unless zero, at
        // least 1e-37: Float and Double hold it after rounding (Float16 and Decimal have narrower limits).
        if name != "Float16", name != "Decimal", lexeme.utf8.count <= 38,
           !lexeme.utf8.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
            return true
        }
        let nonZero = lexeme.utf8.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
            .contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") })
        switch name {
        case "Float", "Float32", "Float16":
            guard let value = Float(lexeme), value.isFinite, !(value == 0 && nonZero) else { return false }
            return name != "Float16" || value.magnitude < 65520
        case "Decimal":
            return decimalFits(lexeme)
        default:
            guard let value = Double(lexeme), value.isFinite, !(value == 0 && nonZero) else { return false }
            return true
        }
    }

    /// `Decimal` as `JSONDecoder` parses it (checked against swift-foundation): the digits (integer and fraction)
    /// form the mantissa, the exponent is the written one minus the fraction digits; while the mantissa is 2^128 or
    /// more its last digit is dropped (exponent + 1). It decodes when the exponent ends in −128…127 — so `1e128`,
    /// `1e300`, `1e-129` and `0e500` fail while `10e127` and 39-digit mantissas fit. No normalisation otherwise.
    static func decimalFits(_ lexeme: String) -> Bool {
        var digits: [UInt8] = []
        var fractionDigits = 0
        var inFraction = false
        var exponentText: Substring = ""
        let bytes = Array(lexeme.utf8)
        var i = bytes.first == UInt8(ascii: "-") ? 1 : 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: ".") { inFraction = true }
            else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                exponentText = Substring(String(decoding: bytes[(i + 1)...], as: UTF8.self))
                break
            } else {
                if !(digits.isEmpty && c == UInt8(ascii: "0")) { digits.append(c) }
                if inFraction { fractionDigits += 1 }
            }
            i += 1
        }
        if exponentText.hasPrefix("+") { exponentText = exponentText.dropFirst() }
        let negativeExponent = exponentText.hasPrefix("-")
        let magnitudeText = negativeExponent ? exponentText.dropFirst() : exponentText
        let trimmed = magnitudeText.drop(while: { $0 == "0" })
        guard trimmed.count <= 6 else { return false }  // |exponent| ≥ 10^6: far outside either way
        let written = (Int(trimmed) ?? 0) * (negativeExponent ? -1 : 1)
        var exponent = written - fractionDigits
        let limit = Array("340282366920938463463374607431768211455".utf8)  // 2^128 − 1
        if digits.count > limit.count { exponent += digits.count - limit.count; digits.removeLast(digits.count - limit.count) }
        if digits.count == limit.count, digits.lexicographicallyPrecedes(limit) == false, digits != limit { exponent += 1 }
        return (-128...127).contains(exponent)
    }

    /// The largest magnitude the type holds, for messages.
    static func floatingLimit(_ name: String) -> String {
        switch name {
        case "Decimal": return "a mantissa below 2^128 with exponent −128…127 (1e127 at most)"
        case "Float", "Float32": return "3.4028235e38"
        case "Float16": return "65504"
        default: return "1.7976931348623157e308"
        }
    }
}
