import ActivityPushCore

/// A JSON request body read with the strict reader, with typed accessors whose errors name the field and
/// its line:column in the body.
struct RequestBody {
    let root: JSONNode
    private(set) var used: Set<String> = []

    /// - Throws: ``APIError`` 413 when the body was over the limit, 400 `bad-json` with line:column when it is not
    ///   JSON, 400 when it is not an object.
    init(_ request: HTTPRequest, maxBytes: Int) throws(APIError) {
        if request.bodyTooLarge {
            throw APIError.payloadTooLarge(maxBytes: maxBytes)
        }
        guard !request.body.isEmpty else {
            throw APIError(400, "bad-json", "the request body is empty; expected a JSON object",
                           fix: "send a JSON object, e.g. {\"payload\": {\"aps\": {…}}}")
        }
        let doc = JSONReader.read(request.body)
        if let p = doc.problems.first(where: { $0.kind != .duplicateKey }) {
            throw APIError(400, "bad-json", "the request body is not valid JSON at line \(p.position.line), column \(p.position.column): \(p.message)",
                           fix: "send strict JSON (RFC 8259): no comments, no trailing commas, double-quoted keys",
                           position: p.position)
        }
        guard let root = doc.root, root.value.members != nil else {
            throw APIError(400, "bad-json", "the request body must be a JSON object, got \(doc.root?.value.kindName ?? "nothing")",
                           fix: "wrap the fields in {…}")
        }
        var seen: Set<String> = []
        for m in root.value.members ?? [] where !seen.insert(m.key).inserted {
            // A repeated request field is ambiguous (repeats inside the payload are the validator's to report).
            throw APIError(400, "bad-json", "the field \"\(m.key)\" appears twice in the request body", fix: "keep one",
                           field: m.key, position: m.keyPosition)
        }
        self.root = root
    }

    /// The member named `key`, marking it as read.
    mutating func node(_ key: String) -> JSONMember? {
        used.insert(key)
        guard let m = root.member(key), m.value.value != .null else { return nil }
        return m
    }

    mutating func string(_ key: String) throws(APIError) -> String? {
        guard let m = node(key) else { return nil }
        guard let s = m.value.value.stringValue else {
            throw .badRequest(key, "expected a string, got \(m.value.value.kindName)", position: m.value.position)
        }
        return s
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool? {
        guard let m = node(key) else { return nil }
        guard case .bool(let b) = m.value.value else {
            throw .badRequest(key, "expected true or false, got \(m.value.value.kindName)", position: m.value.position)
        }
        return b
    }

    mutating func int64(_ key: String, unit: String) throws(APIError) -> Int64? {
        guard let m = node(key) else { return nil }
        guard let n = m.value.value.numberValue, let i = n.integralValue else {
            throw .badRequest(key, "expected whole \(unit), got \(m.value.value.kindName)", position: m.value.position)
        }
        return i
    }

    mutating func double(_ key: String) throws(APIError) -> Double? {
        guard let m = node(key) else { return nil }
        guard let n = m.value.value.numberValue, n.doubleValue.isFinite else {
            throw .badRequest(key, "expected a number, got \(m.value.value.kindName)", position: m.value.position)
        }
        return n.doubleValue
    }

    mutating func strings(_ key: String) throws(APIError) -> [String]? {
        guard let m = node(key) else { return nil }
        guard case .array(let items) = m.value.value else {
            throw .badRequest(key, "expected an array of strings, got \(m.value.value.kindName)", position: m.value.position)
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let s = item.value.stringValue else {
                throw .badRequest("\(key)[\(i)]", "expected a string, got \(item.value.kindName)", position: item.position)
            }
            out.append(s)
        }
        return out
    }

    /// A JSON object given inline (`{…}`) or as JSON text (`"{…}"`, as typed in a form); text is read with
    /// the strict reader and its problems name the field and the column inside the text.
    mutating func object(_ key: String) throws(APIError) -> JSONValue? {
        guard let m = node(key) else { return nil }
        switch m.value.value {
        case .object: return m.value.value
        case .string(let text):
            let doc = JSONReader.read(text)
            if let p = doc.problems.first(where: { $0.kind != .duplicateKey }) {
                throw .badRequest(key, "not valid JSON at line \(p.position.line), column \(p.position.column) of the text: \(p.message)",
                                  fix: "write a JSON object, e.g. {\"name\": \"value\"}", position: m.value.position)
            }
            guard let v = doc.root?.value, v.members != nil else {
                throw .badRequest(key, "must be a JSON object", fix: "write {…}", position: m.value.position)
            }
            return v
        default:
            throw .badRequest(key, "expected a JSON object (or its text), got \(m.value.value.kindName)", position: m.value.position)
        }
    }

    /// Fails on a field no route reads (catches typos such as `contentstate`).
    func rejectUnknown(allowed: Set<String>) throws(APIError) {
        for m in root.value.members ?? [] where !used.contains(m.key) && !allowed.contains(m.key) {
            let known = (used.union(allowed)).sorted()
            let near = known.first(where: { $0.lowercased() == m.key.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "") })
            throw .badRequest(m.key, "unknown field", fix: near.map { "did you mean \"\($0)\"?" } ?? "known fields: " + known.joined(separator: ", "),
                              position: m.keyPosition)
        }
    }
}
