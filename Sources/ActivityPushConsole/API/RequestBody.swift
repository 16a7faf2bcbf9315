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
        let document = JSONReader.read(request.body)
        if let problem = document.problems.first(where: { $0.kind != .duplicateKey }) {
            throw APIError(400, "bad-json", "the request body is not valid JSON at line \(problem.position.line), column \(problem.position.column): \(problem.message)",
                           fix: "send strict JSON (RFC 8259): no comments, no trailing commas, double-quoted keys",
                           position: problem.position)
        }
        guard let root = document.root, root.value.members != nil else {
            throw APIError(400, "bad-json", "the request body must be a JSON object, got \(document.root?.value.kindName ?? "nothing")",
                           fix: "wrap the fields in {…}")
        }
        var seen: Set<String> = []
        for member in root.value.members ?? [] where !seen.insert(member.key).inserted {
            // A repeated request field is ambiguous (repeats inside the payload are the validator's to report).
            throw APIError(400, "bad-json", "the field \"\(member.key)\" appears twice in the request body", fix: "keep one",
                           field: member.key, position: member.keyPosition)
        }
        self.root = root
    }

    /// The member named `key`, marking it as read.
    mutating func node(_ key: String) -> JSONMember? {
        used.insert(key)
        guard let member = root.member(key), member.value.value != .null else { return nil }
        return member
    }

    mutating func string(_ key: String) throws(APIError) -> String? {
        guard let member = node(key) else { return nil }
        guard let text = member.value.value.stringValue else {
            throw .badRequest(key, "expected a string, got \(member.value.value.kindName)", position: member.value.position)
        }
        return text
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool? {
        guard let member = node(key) else { return nil }
        guard case .bool(let flag) = member.value.value else {
            throw .badRequest(key, "expected true or false, got \(member.value.value.kindName)", position: member.value.position)
        }
        return flag
    }

    mutating func int64(_ key: String, unit: String) throws(APIError) -> Int64? {
        guard let member = node(key) else { return nil }
        guard let number = member.value.value.numberValue, let whole = number.integralValue else {
            throw .badRequest(key, "expected whole \(unit), got \(member.value.value.kindName)", position: member.value.position)
        }
        return whole
    }

    mutating func double(_ key: String) throws(APIError) -> Double? {
        guard let member = node(key) else { return nil }
        guard let number = member.value.value.numberValue, number.doubleValue.isFinite else {
            throw .badRequest(key, "expected a number, got \(member.value.value.kindName)", position: member.value.position)
        }
        return number.doubleValue
    }

    mutating func strings(_ key: String) throws(APIError) -> [String]? {
        guard let member = node(key) else { return nil }
        guard case .array(let items) = member.value.value else {
            throw .badRequest(key, "expected an array of strings, got \(member.value.value.kindName)", position: member.value.position)
        }
        var out: [String] = []
        for (index, item) in items.enumerated() {
            guard let text = item.value.stringValue else {
                throw .badRequest("\(key)[\(index)]", "expected a string, got \(item.value.kindName)", position: item.position)
            }
            out.append(text)
        }
        return out
    }

    /// A JSON object given inline (`{…}`) or as JSON text (`"{…}"`, as typed in a form); text is read with
    /// the strict reader and its problems name the field and the column inside the text.
    mutating func object(_ key: String) throws(APIError) -> JSONValue? {
        guard let member = node(key) else { return nil }
        switch member.value.value {
        case .object: return member.value.value
        case .string(let text):
            let document = JSONReader.read(text)
            if let problem = document.problems.first(where: { $0.kind != .duplicateKey }) {
                throw .badRequest(key, "not valid JSON at line \(problem.position.line), column \(problem.position.column) of the text: \(problem.message)",
                                  fix: "write a JSON object, e.g. {\"name\": \"value\"}", position: member.value.position)
            }
            guard let object = document.root?.value, object.members != nil else {
                throw .badRequest(key, "must be a JSON object", fix: "write {…}", position: member.value.position)
            }
            return object
        default:
            throw .badRequest(key, "expected a JSON object (or its text), got \(member.value.value.kindName)", position: member.value.position)
        }
    }

    /// Fails on a field no route reads (catches typos such as `contentstate`).
    func rejectUnknown(allowed: Set<String>) throws(APIError) {
        for member in root.value.members ?? [] where !used.contains(member.key) && !allowed.contains(member.key) {
            let known = (used.union(allowed)).sorted()
            let near = known.first(where: { $0.lowercased() == member.key.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "") })
            throw .badRequest(member.key, "unknown field", fix: near.map { "did you mean \"\($0)\"?" } ?? "known fields: " + known.joined(separator: ", "),
                              position: member.keyPosition)
        }
    }
}
