import ActivityPushCore

/// Small helpers to write JSON text for answers and journal lines (string escaping comes from Core's writer).
enum JSONText {
    static func appendString(_ s: String, to out: inout String) { JSONWriter.writeString(s, into: &out) }

    static func string(_ s: String) -> String {
        var out = ""
        JSONWriter.writeString(s, into: &out)
        return out
    }

    /// `{"k":v,…}` from already-encoded values, skipping nil values.
    static func object(_ members: [(String, String?)]) -> String {
        var out = "{"
        var first = true
        for (k, v) in members {
            guard let v else { continue }
            if !first { out += "," }
            first = false
            JSONWriter.writeString(k, into: &out)
            out += ":" + v
        }
        return out + "}"
    }

    static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}
