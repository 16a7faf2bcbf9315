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

    static func scan(_ b: UnsafeBufferPointer<UInt8>) -> TopLevelStringFields? {
        var i = 0
        let n = b.count
        func ws() { while i < n, b[i] == 32 || b[i] == 10 || b[i] == 13 || b[i] == 9 { i += 1 } }
        /// Range of a string's raw content (between the quotes); `i` ends after the closing quote.
        func rawString() -> (Range<Int>, Bool)? {
            guard i < n, b[i] == 34 else { return nil }
            i += 1
            let start = i
            var escaped = false
            while i < n, b[i] != 34 {
                if b[i] == 92 { escaped = true; i += 1 }
                i += 1
            }
            guard i < n else { return nil }
            defer { i += 1 }
            return (start..<i, escaped)
        }
        func skipValue() -> Bool {
            ws()
            guard i < n else { return false }
            switch b[i] {
            case 34: return rawString() != nil
            case 123, 91:
                var depth = 0
                while i < n {
                    let c = b[i]
                    if c == 34 { guard rawString() != nil else { return false }; continue }
                    if c == 123 || c == 91 { depth += 1 } else if c == 125 || c == 93 {
                        depth -= 1
                        if depth == 0 { i += 1; return true }
                    }
                    i += 1
                }
                return false
            default:
                while i < n, b[i] != 44, b[i] != 125, b[i] != 93, b[i] != 32, b[i] != 10, b[i] != 13 { i += 1 }
                return true
            }
        }
        var out = TopLevelStringFields()
        ws()
        guard i < n, b[i] == 123 else { return nil }
        i += 1
        while true {
            ws()
            guard i < n else { return nil }
            if b[i] == 125 { return out }
            guard let (key, keyEscaped) = rawString() else { return nil }
            ws()
            guard i < n, b[i] == 58 else { return nil }
            i += 1
            ws()
            var which = -1
            if !keyEscaped {
                for (k, want) in keys.enumerated() where want.count == key.count {
                    if UnsafeBufferPointer(rebasing: b[key]).elementsEqual(want) { which = k; break }
                }
            }
            if which >= 0, i < n, b[i] == 34 {
                guard let (r, esc) = rawString() else { return nil }
                guard let s = esc ? unescape(UnsafeBufferPointer(rebasing: b[r])) : String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self)
                else { return nil }
                switch which {
                case 0: out.message = s
                case 1: out.timestamp = s
                case 2: out.process = s
                default: out.imagePath = s
                }
            } else {
                guard skipValue() else { return nil }
            }
            ws()
            guard i < n else { return nil }
            if b[i] == 44 { i += 1; continue }
            if b[i] == 125 { return out }
            return nil
        }
    }

    /// JSON string escapes (RFC 8259 §7), surrogate pairs included; nil for a malformed escape.
    static func unescape(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for k in at..<(at + 4) {
                let c = b[k]
                let d: UInt8
                switch c {
                case 48...57: d = c - 48
                case 65...70: d = c - 55
                case 97...102: d = c - 87
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        while i < b.count {
            let c = b[i]
            guard c == 92 else { out.append(c); i += 1; continue }
            guard i + 1 < b.count else { return nil }
            switch b[i + 1] {
            case 34: out.append(34)
            case 92: out.append(92)
            case 47: out.append(47)
            case 98: out.append(8)
            case 102: out.append(12)
            case 110: out.append(10)
            case 114: out.append(13)
            case 116: out.append(9)
            case 117:
                guard var u = hex4(i + 2) else { return nil }
                i += 4
                if u >= 0xD800, u < 0xDC00, i + 7 < b.count, b[i + 2] == 92, b[i + 3] == 117, let lo = hex4(i + 4), lo >= 0xDC00, lo < 0xE000 {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                    i += 6
                }
                out += Array(String(Character(Unicode.Scalar(u) ?? "\u{FFFD}")).utf8)
            default: return nil
            }
            i += 2
        }
        return String(decoding: out, as: UTF8.self)
    }
}
