import ActivityPushCore
/// Reads the few top-level string fields the analyzer needs (`eventMessage`, `timestamp`, `process`,
/// `processImagePath`) from one `log --style json|ndjson` object without building a tree: other values are
/// skipped structurally. Returns nil when the bytes are not a well-formed object, so the caller can fall back
/// to ``JSONReader`` for a precise answer.
struct TopLevelStringFields {
    var message: String?
    var timestamp: String?
    var process: String?
    var imagePath: String?

    private static let keys: [[UInt8]] = ["eventMessage", "timestamp", "process", "processImagePath"].map { Array($0.utf8) }

    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> TopLevelStringFields? {
        var cursor = 0
        let byteCount = bytes.count
        func ws() { while cursor < byteCount, bytes[cursor] == 32 || bytes[cursor] == 10 || bytes[cursor] == 13 || bytes[cursor] == 9 { cursor += 1 } }
        /// Range of a string's raw content (between the quotes); `cursor` ends after the closing quote.
        func rawString() -> (Range<Int>, Bool)? {
            guard cursor < byteCount, bytes[cursor] == 34 else { return nil }
            cursor += 1
            let start = cursor
            var escaped = false
            while cursor < byteCount, bytes[cursor] != 34 {
                if bytes[cursor] == 92 { escaped = true; cursor += 1 }
                cursor += 1
            }
            guard cursor < byteCount else { return nil }
            defer { cursor += 1 }
            return (start..<cursor, escaped)
        }
        func skipValue() -> Bool {
            ws()
            guard cursor < byteCount else { return false }
            switch bytes[cursor] {
            case 34: return rawString() != nil
            case 123, 91:
                var depth = 0
                while cursor < byteCount {
                    let byte = bytes[cursor]
                    if byte == 34 { guard rawString() != nil else { return false }; continue }
                    if byte == 123 || byte == 91 { depth += 1 } else if byte == 125 || byte == 93 {
                        depth -= 1
                        if depth == 0 { cursor += 1; return true }
                    }
                    cursor += 1
                }
                return false
            default:
                while cursor < byteCount, bytes[cursor] != 44, bytes[cursor] != 125, bytes[cursor] != 93, bytes[cursor] != 32, bytes[cursor] != 10, bytes[cursor] != 13 { cursor += 1 }
                return true
            }
        }
        var out = TopLevelStringFields()
        ws()
        guard cursor < byteCount, bytes[cursor] == 123 else { return nil }
        cursor += 1
        while true {
            ws()
            guard cursor < byteCount else { return nil }
            if bytes[cursor] == 125 { return out }
            guard let (key, keyEscaped) = rawString() else { return nil }
            ws()
            guard cursor < byteCount, bytes[cursor] == 58 else { return nil }
            cursor += 1
            ws()
            var which = -1
            if !keyEscaped {
                for (keyIndex, want) in keys.enumerated() where want.count == key.count {
                    if UnsafeBufferPointer(rebasing: bytes[key]).elementsEqual(want) { which = keyIndex; break }
                }
            }
            if which >= 0, cursor < byteCount, bytes[cursor] == 34 {
                guard let (r, esc) = rawString() else { return nil }
                guard let value = esc ? unescape(UnsafeBufferPointer(rebasing: bytes[r])) : String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self)
                else { return nil }
                switch which {
                case 0: out.message = value
                case 1: out.timestamp = value
                case 2: out.process = value
                default: out.imagePath = value
                }
            } else {
                guard skipValue() else { return nil }
            }
            ws()
            guard cursor < byteCount else { return nil }
            if bytes[cursor] == 44 { cursor += 1; continue }
            if bytes[cursor] == 125 { return out }
            return nil
        }
    }

    /// JSON string escapes (RFC 8259 §7), surrogate pairs included; nil for a malformed escape.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var cursor = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for index in at..<(at + 4) {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case 48...57: digit = byte - 48
                case 65...70: digit = byte - 55
                case 97...102: digit = byte - 87
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while cursor < bytes.count {
            let byte = bytes[cursor]
            guard byte == 92 else { out.append(byte); cursor += 1; continue }
            guard cursor + 1 < bytes.count else { return nil }
            switch bytes[cursor + 1] {
            case 34: out.append(34)
            case 92: out.append(92)
            case 47: out.append(47)
            case 98: out.append(8)
            case 102: out.append(12)
            case 110: out.append(10)
            case 114: out.append(13)
            case 116: out.append(9)
            case 117:
                guard var scalar = hex4(cursor + 2) else { return nil }
                cursor += 4
                if scalar >= 0xD800, scalar < 0xDC00, cursor + 7 < bytes.count, bytes[cursor + 2] == 92, bytes[cursor + 3] == 117, let lo = hex4(cursor + 4), lo >= 0xDC00, lo < 0xE000 {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (lo - 0xDC00)
                    cursor += 6
                }
                out += Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: return nil
            }
            cursor += 2
        }
        return String(decoding: out, as: UTF8.self)
    }
}
