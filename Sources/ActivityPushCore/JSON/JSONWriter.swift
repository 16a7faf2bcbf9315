/// Writes a ``JSONValue`` back to JSON text, keeping member order and number lexemes.
public enum JSONWriter {
    /// Compact form (no insignificant whitespace): what is sent to APNs and counted against the size limit.
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: nil, level: 0)
        return out
    }

    /// Two-space indented form for people.
    public static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: "  ", level: 0)
        return out
    }

    private static func write(_ value: JSONValue, into out: inout String, indent: String?, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.lexeme
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                write(e.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                writeString(m.key, into: &out)
                out += indent == nil ? ":" : ": "
                write(m.value.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n"
        for _ in 0..<level { out += indent }
    }

    /// Appends `s` as a JSON string literal (RFC 8259 §7 escapes; non-ASCII written as UTF-8).
    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// `s` as a JSON string literal, quotes and escapes included.
    public static func quoted(_ s: String) -> String {
        var out = ""
        writeString(s, into: &out)
        return out
    }
}

extension JSONValue {
    /// Convenience constructors for building trees in code (positions are `.start`).
    public static func obj(_ pairs: [(String, JSONValue)]) -> JSONValue {
        .object(pairs.map { JSONMember(key: $0.0, value: JSONNode($0.1)) })
    }
    /// An array of `values`.
    public static func arr(_ values: [JSONValue]) -> JSONValue { .array(values.map { JSONNode($0) }) }
    /// An integer number.
    public static func int(_ v: Int) -> JSONValue { .number(JSONNumber(v)) }
    /// A number from a Double (whole values below 10^15 without a fraction).
    public static func double(_ v: Double) -> JSONValue { .number(JSONNumber(v)) }
}
