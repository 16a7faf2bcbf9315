import Foundation

/// Rules against the app's own types (read from its Swift source by ``SwiftSourceReader``):
/// `attributes-type-mismatch`, `missing-required-key`, `unknown-attribute-key`, `unknown-content-state-key`,
/// `type-mismatch`, `integer-out-of-range`, `enum-value-invalid`, `date-not-numeric`, `date-not-reference-epoch`,
/// `custom-date-implausible` (a date in the app's own unit that decodes but looks like another unit: a warning),
/// `schema-unresolved`.
/// Source: the device decodes `attributes` and `content-state` with `JSONDecoder`'s default strategies (Apple,
/// "Starting and updating Live Activities…"; `JSONDecoder.dateDecodingStrategy` default `deferredToDate`);
/// unknown keys in `attributes` reject the whole message (field report; spec §0).
extension PushCheck {
    mutating func checkSchema() {
        guard let schema = validator.schema, !schema.types.isEmpty else { return }
        let typeLoc = locate(LiveActivityKeys.attributesType)
        let contentState = locate(LiveActivityKeys.contentState).flatMap { $0.node.value.members != nil ? $0 : nil }
        let attributes = locate(LiveActivityKeys.attributes).flatMap { $0.node.value.members != nil ? $0 : nil }
        var chosen: ActivityAttributesType? = nil
        var namedButUnknown = false

        // attributes-type-mismatch: the name must equal a Swift type name exactly, case included, no module prefix.
        if let typeLoc, let name = typeLoc.node.value.stringValue {
            let match = AttributesTypeMatch(name, in: schema)
            chosen = match.closest
            if let finding = match.finding(at: typeLoc.path, typeLoc.node.position) {
                findings.append(finding)
                if match.closest == nil { namedButUnknown = true }
            }
        }

        // Without a name (update / end, or a start without one) the type is the one whose content-state fits.
        // A name that matches nothing known is not judged against an unrelated type.
        if chosen == nil, !namedButUnknown {
            if schema.types.count == 1 {
                chosen = schema.types[0]
            } else if let contentState {
                var best: (ActivityAttributesType, Int)? = nil
                for candidate in schema.types {
                    var judge = ShapeJudge(strict: validator.strict, now: now)
                    judge.judge(root: contentState.node, candidate.contentState, at: contentState.path, region: .contentState)
                    let errors = judge.findings.filter { $0.severity == .error }.count
                    if best == nil || errors < best!.1 { best = (candidate, errors) }
                }
                chosen = best?.0
            }
        }
        guard let type = chosen else { return }
        var judge = ShapeJudge(strict: validator.strict, now: now)
        if let contentState {
            judge.judge(root: contentState.node, type.contentState, at: contentState.path, region: .contentState)
        }
        if let attributes, event == .start || event == nil {
            judge.judge(root: attributes.node, type.attributes, at: attributes.path, region: .attributes(type.contentState))
        }
        findings += judge.findings
    }

    enum Closeness { case caseOnly, modulePrefix, similar, none }

    static func closestType(to name: String, in schema: ActivitySchema) -> (ActivityAttributesType?, Closeness) {
        if let t = schema.types.first(where: { $0.name.lowercased() == name.lowercased() }) { return (t, .caseOnly) }
        if let dot = name.lastIndex(of: ".") {
            let bare = String(name[name.index(after: dot)...])
            if let t = schema.types.first(where: { $0.name == bare }) { return (t, .modulePrefix) }
            if let t = schema.types.first(where: { $0.name.lowercased() == bare.lowercased() }) { return (t, .caseOnly) }
        }
        let scored = schema.types.compactMap { type in
            editDistance(type.name.lowercased(), name.lowercased(), atMost: max(2, type.name.count / 5)).map { (type, $0) }
        }.min(by: { $0.1 < $1.1 })
        if let (t, _) = scored { return (t, .similar) }
        return (nil, .none)
    }
}

/// Walks a JSON value against a ``ValueShape`` the way synthesized `Decodable` with default strategies would,
/// collecting every mismatch (not stopping at the first, as the real decoder does).
struct ShapeJudge {
    enum Region {
        /// Inside `aps.attributes`; carries the ContentState shape so a content-state key sent here is named as such.
        case attributes(ValueShape)
        case contentState
    }

    let strict: Bool
    var findings: [Finding] = []
    /// The dotted path of the value being judged, kept as a stack and joined only when a finding needs it.
    private var components: [String] = []
    var path: String { components.joined(separator: ".") }

    /// Judges a whole `attributes` / `content-state` value found at `path`.
    mutating func judge(root node: JSONNode, _ shape: ValueShape, at path: String, region: Region) {
        components = [path]
        judge(node, shape, region: region)
        components = []
    }

    private mutating func descend(_ key: String, _ body: (inout ShapeJudge) -> Void) {
        components.append(key)
        body(&self)
        components.removeLast()
    }
    private var reportedUnresolved: Set<String> = []

    /// The check's clock (`--now`), UNIX seconds; nil uses the real clock, only for the example values in fixes.
    let now: Double?

    init(strict: Bool, now: Double? = nil) {
        self.strict = strict
        self.now = now
    }

    /// UNIX seconds in this range are taken for a `Date` sent as UNIX time (2001-09-09 … 2049-03-22), which the
    /// default decoder reads ~31 years late.
    static let unixRange: ClosedRange<Double> = 1.0e9...2.5e9
    static let referenceOffset: Double = 978_307_200

    mutating func add(_ code: FindingCode, severity: Severity? = nil, _ path: String, _ position: SourcePosition,
                      _ message: String, fix: String? = nil) {
        findings.append(Finding(code: code, severity: severity ?? FindingCatalog.entry(code)?.severity ?? .error,
                                path: path, position: position, message: message, fix: fix))
    }

    mutating func judge(_ node: JSONNode, _ shape: ValueShape, region: Region) {
        if case .null = node.value { return }  // null-value is reported by the placement rules
        switch shape {
        case .optional(let inner):
            judge(node, inner, region: region)
        case .unresolved(let typeName, let reason):
            if reportedUnresolved.insert(typeName).inserted {
                add(.schemaUnresolved, path, node.position,
                    "\(typeName) is not judged: \(reason)",
                    fix: reason.contains("none of the files")
                        ? "pass the .swift file that declares \(typeName) with --attributes, if it is in the app"
                        : "declare how \(typeName) is carried in \(UnitDeclarations.fileName) next to the Swift source (see the reason)")
            }
        case .bool:
            if case .bool = node.value { return }
            mismatch(node, path, "Bool", fix: boolFix(node))
        case .string:
            if case .string = node.value { return }
            mismatch(node, path, "String", fix: node.value.numberValue.map { "send it as a string: \"\($0.lexeme)\"" })
        case .character:
            guard let text = node.value.stringValue else { return mismatch(node, path, "Character") }
            if text.count != 1 {
                add(.typeMismatch, path, node.position, "the app's type declares this as a Character; the string must hold exactly one character, not \(text.count)",
                    fix: "send a one-character string")
            }
        case .integer(let kind):
            judgeInteger(node, kind)
        case .floating(let name):
            guard let number = node.value.numberValue else {
                return mismatch(node, path, name, fix: node.value.stringValue.flatMap(Double.init).map { "send the number without quotes: \($0)" })
            }
            judgeFloatingRange(node, number, name)
        case .date:
            judgeDate(node)
        case .customDate(let encoding, let decoding):
            judgeCustomDate(node, encoding, decoding)
        case .url:
            guard let text = node.value.stringValue else { return mismatch(node, path, "URL") }
            if !Self.decodesAsURL(text) {
                add(.typeMismatch, path, node.position, "the app's type declares this as a URL but \"\(text)\" does not parse as one; decoding fails",
                    fix: "send an absolute URL string such as \"https://example.com/…\" (percent-encode spaces)")
            }
        case .uuid:
            guard let text = node.value.stringValue else { return mismatch(node, path, "UUID") }
            if !UUIDText.isValid(text) {
                add(.typeMismatch, path, node.position, "the app's type declares this as a UUID but \"\(text)\" is not in 8-4-4-4-12 hex form; decoding fails",
                    fix: "send a UUID string such as \"\(UUID().uuidString)\"")
            }
        case .data:
            guard let text = node.value.stringValue else { return mismatch(node, path, "Data") }
            if Data(base64Encoded: text) == nil {
                add(.typeMismatch, path, node.position, "the app's type declares this as Data, which decodes from base64; \"\(text.prefix(40))\" is not base64",
                    fix: "send the bytes base64-encoded")
            }
        case .array(let element), .set(let element):
            guard case .array(let elements) = node.value else { return mismatch(node, path, "an array") }
            for (i, e) in elements.enumerated() { descend(String(i)) { $0.judge(e, element, region: region) } }
        case .dictionary(let key, let value):
            judgeDictionary(node, key: key, value: value, region: region)
        case .object(let structShape):
            judgeObject(node, structShape, region: region)
        case .enumeration(let enumShape):
            judgeEnum(node, enumShape, region: region)
        }
    }

    /// `Int` → "an Int", `String` → "a String"; a phrase that already has its article ("an array of …") is kept.
    /// (`U` is left to "a": "a UInt", "a URL", "a UUID".)
    static func withArticle(_ swiftType: String) -> String {
        if swiftType.hasPrefix("a ") || swiftType.hasPrefix("an ") { return swiftType }
        return (swiftType.first.map { "AEIOaeio".contains($0) } ?? false ? "an " : "a ") + swiftType
    }

    private mutating func mismatch(_ node: JSONNode, _ path: String, _ swiftType: String, fix: String? = nil) {
        add(.typeMismatch, path, node.position,
            "the app's type declares this as \(Self.withArticle(swiftType)) but the payload has a JSON \(node.value.kindName); decoding fails and the push is dropped",
            fix: fix ?? "send a value of type \(swiftType)")
    }

    private func boolFix(_ node: JSONNode) -> String? {
        switch node.value {
        case .string(let s) where ["true", "false"].contains(s.lowercased()): return "send \(s.lowercased()) without quotes"
        case .number(let n) where n.lexeme == "0" || n.lexeme == "1": return "send \(n.lexeme == "1" ? "true" : "false"), not \(n.lexeme)"
        default: return "send true or false"
        }
    }

    /// A number the floating type cannot hold after rounding (overflow to infinity, or a non-zero value that
    /// rounds to 0; `Float16` only overflow) fails to decode — see ``DecodedNumber``.
    private mutating func judgeFloatingRange(_ node: JSONNode, _ number: JSONNumber, _ name: String) {
        if DecodedNumber.floatingFits(number, name: name) { return }
        let limit = DecodedNumber.floatingLimit(name)
        if name == "Decimal" {
            return add(.typeMismatch, path, node.position,
                       "the app's type declares this as Decimal; \(number.lexeme) is outside what JSONDecoder reads into one (\(limit)), so decoding fails",
                       fix: "send a number with at most 38 significant digits between 1e-128 and 1e127 in magnitude, or 0")
        }
        add(.typeMismatch, path, node.position,
            "the app's type declares this as \(name); \(number.lexeme) rounds to \(number.doubleValue == 0 || number.doubleValue.magnitude < 1 ? "zero (too small)" : "infinity (too large)") in \(name), so decoding fails",
            fix: "send a number within ±\(limit)\(name == "Float16" ? "" : ", or 0 instead of a value below the smallest subnormal")")
    }

    /// Judged on the exact lexeme at both ends of every width (``DecodedNumber/integer(_:fits:)``).
    private mutating func judgeInteger(_ node: JSONNode, _ kind: IntegerKind) {
        guard let number = node.value.numberValue else {
            return mismatch(node, path, kind.name,
                            fix: node.value.stringValue.flatMap { Int64($0) }.map { "send the number without quotes: \($0)" })
        }
        switch DecodedNumber.integer(number, fits: kind) {
        case .fits:
            return
        case .outOfRange:
            add(.integerOutOfRange, path, node.position,
                "the app's type declares this as \(kind.name) (\(kind.min)…\(kind.maxUnsigned)); \(number.lexeme) is outside what the decoder reads into it, so decoding fails",
                fix: "send a whole number within \(kind.min)…\(kind.maxUnsigned) written without fraction or exponent, or widen the Swift type")
        case .fraction:
            add(.typeMismatch, path, node.position,
                "the app's type declares this as \(kind.name) but the payload has \(number.lexeme), which has a fraction; the default decoder refuses it and the push is dropped",
                fix: "send a whole number (\(JSONNumber.wholeText(number.doubleValue.rounded()))), or make the Swift property Double")
        }
    }

    /// A string `JSONDecoder` decodes as a `URL` (`URL(string:)`, empty refused).
    static func decodesAsURL(_ text: String) -> Bool {
        if let plain = text.utf8.withContiguousStorageIfAvailable(isPlainWebURL), plain { return true }
        return !text.isEmpty && URL(string: text) != nil
    }

    /// ``decodesAsURL(_:)`` on UTF-8 bytes, building the string only when the shortcut does not settle it.
    static func decodesAsURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isPlainWebURL(bytes) || decodesAsURL(String(decoding: bytes, as: UTF8.self))
    }

    /// `http(s)://host/path?query` in RFC 3986 unreserved characters, sub-delimiters, `:` `@` `/` `?` (host:
    /// letters, digits, `-`, `.`; no port, no `%`, no fragment): a spelling `URL(string:)` always accepts, judged
    /// without Foundation's parser (the slowest step of a check that has a URL). Anything else goes to the parser.
    static func isPlainWebURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        for byte in "http".utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "s") { index += 1 }
        for byte in "://".utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        let hostStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?") {
            switch bytes[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."):
                index += 1
            default:
                return false
            }
        }
        guard index > hostStart else { return false }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
                 UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
                 UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
                 UInt8(ascii: "?"):
                index += 1
            default:
                return false
            }
        }
        return true
    }

    /// A `Date` number (seconds since 2001) no date rule below names: finite, at most 1e15 in magnitude, not
    /// milliseconds (below 1e11), not UNIX seconds (outside ``unixRange``).
    static func isQuietReferenceDate(_ v: Double) -> Bool {
        v.isFinite && abs(v) <= 1e15 && v < 1.0e11 && !unixRange.contains(v)
    }

    private mutating func judgeDate(_ node: JSONNode) {
        switch node.value {
        case .number(let number):
            let value = number.doubleValue
            if Self.isQuietReferenceDate(value) { return }
            if !value.isFinite || abs(value) > 1e15 {
                add(.typeMismatch, path, node.position,
                    "the app's type declares this as a Date (seconds since 2001-01-01); \(number.lexeme) is not a usable time",
                    fix: "send seconds since 2001-01-01 00:00:00 UTC, e.g. \(JSONNumber.wholeText((now ?? Date().timeIntervalSince1970) - Self.referenceOffset))")
            } else if value >= 1.0e11 {
                let seconds = (value / 1000).rounded(.down)
                // Milliseconds since 1970 (≈1.7e12 today) or since 2001 (≈7.9e11): the fix differs.
                let fromUnix = seconds >= Self.referenceOffset
                add(.dateNotReferenceEpoch, path, node.position,
                    "the app's type declares this as a Date, decoded as seconds since 2001-01-01; \(number.lexeme) looks like \(fromUnix ? "UNIX milliseconds" : "milliseconds") and lands thousands of years ahead",
                    fix: fromUnix ? "send \(JSONNumber.wholeText(seconds - Self.referenceOffset)) (= \(number.lexeme) / 1000 − 978307200)"
                                  : "send \(JSONNumber.wholeText(seconds)) (= \(number.lexeme) / 1000)")
            } else if Self.unixRange.contains(value) {
                add(.dateNotReferenceEpoch, path, node.position,
                    "the app's type declares this as a Date, decoded as seconds since 2001-01-01; \(number.lexeme) is UNIX seconds and decodes ~31 years late (\(Self.yearOf(referenceSeconds: value)))",
                    fix: "send \(Self.format(value - Self.referenceOffset)) (= \(number.lexeme) − 978307200), or make the property a Double of UNIX seconds")
            }
        case .string(let text):
            var fix = "send a number of seconds since 2001-01-01 00:00:00 UTC"
            if let date = Self.parseISO8601(text) {
                fix = "send \(Self.format(date.timeIntervalSinceReferenceDate)) (\(text) as seconds since 2001-01-01)"
            }
            add(.dateNotNumeric, path, node.position,
                "the app's type declares this as a Date; the default decoder reads a number of seconds since 2001-01-01, so the string \"\(text.prefix(40))\" fails to decode",
                fix: fix)
        default:
            mismatch(node, path, "Date", fix: "send a number of seconds since 2001-01-01 00:00:00 UTC")
        }
    }

    /// A date the app decodes itself (custom single-value `init(from:)` or `activity-push.units`). What fails to
    /// decode is an error; a value that decodes but lands far from now in a way that suggests the wrong unit is the
    /// `custom-date-implausible` warning (the decoder accepts it, so the push is not dropped).
    private mutating func judgeCustomDate(_ node: JSONNode, _ encoding: DateEncoding, _ decoding: CustomDateDecoding) {
        let nowUnix = now ?? Date().timeIntervalSince1970
        switch encoding {
        case .referenceSeconds:
            if let integer = decoding.integer {
                guard node.value.numberValue != nil else { return judgeDate(node) }
                let before = findings.count
                judgeInteger(node, integer)
                if findings.count > before { return }
            }
            judgeDate(node)
        case .iso8601:
            let example = decoding.fractionalSeconds ? "2026-01-01T00:00:00.000Z" : "2026-01-01T00:00:00Z"
            let formatter = decoding.fractionalSeconds ? "ISO8601DateFormatter with .withFractionalSeconds" : "ISO8601DateFormatter"
            guard let text = node.value.stringValue else {
                return mismatch(node, path, "Date read as an ISO 8601 string", fix: "send a string such as \"\(example)\"")
            }
            if !Self.isInternetDateTime(text, fractionalSeconds: decoding.fractionalSeconds) {
                add(.typeMismatch, path, node.position,
                    "the app decodes this Date with \(formatter); \"\(text.prefix(40))\" is not the form it reads (yyyy-MM-ddTHH:mm:ss\(decoding.fractionalSeconds ? ".SSS" : "") with Z or ±hh:mm), so decoding fails",
                    fix: "send a string such as \"\(example)\"")
            }
        case .unixSeconds, .unixMilliseconds:
            let unit = encoding == .unixSeconds ? "UNIX seconds" : "UNIX milliseconds"
            let exampleValue = JSONNumber.wholeText(encoding == .unixSeconds ? nowUnix : nowUnix * 1000)
            guard let number = node.value.numberValue else {
                if let text = node.value.stringValue {
                    return add(.dateNotNumeric, path, node.position,
                               "the app decodes this Date from a number of \(unit); the string \"\(text.prefix(40))\" fails to decode",
                               fix: "send a number of \(unit), e.g. \(exampleValue)")
                }
                return mismatch(node, path, "Date read as \(unit)", fix: "send a number of \(unit)")
            }
            if let integer = decoding.integer {
                // `decode(Int64.self)` first: a fraction or a value out of its range fails before any Date is made.
                let before = findings.count
                judgeInteger(node, integer)
                if findings.count > before { return }
            }
            let value = number.doubleValue
            guard value.isFinite else { return mismatch(node, path, "Date read as \(unit)") }
            let seconds = encoding == .unixSeconds ? value : value / 1000
            if encoding == .unixSeconds, value >= 1.0e11 {
                add(.customDateImplausible, path, node.position,
                    "the app decodes this Date as UNIX seconds; \(number.lexeme) decodes but looks like milliseconds and lands thousands of years ahead",
                    fix: "send \(JSONNumber.wholeText((value / 1000).rounded(.down))) (= \(number.lexeme) / 1000), e.g. \(exampleValue) for now")
            } else if encoding == .unixMilliseconds, value > 0, value < 1.0e11 {
                add(.customDateImplausible, path, node.position,
                    "the app decodes this Date as UNIX milliseconds; \(number.lexeme) decodes but looks like seconds and lands in January 1970",
                    fix: "send \(JSONNumber.wholeText(value * 1000)) (= \(number.lexeme) × 1000), e.g. \(exampleValue) for now")
            } else if abs(seconds + Self.referenceOffset - nowUnix) < 86_400 * 366 * 5 {
                add(.customDateImplausible, path, node.position,
                    "the app decodes this Date as \(unit); \(number.lexeme) decodes but looks like seconds since 2001-01-01 and lands ~31 years early",
                    fix: "send \(unit) (add 978307200 seconds\(encoding == .unixMilliseconds ? " and × 1000" : "")), e.g. \(exampleValue) for now")
            }
        }
    }

    /// What `ISO8601DateFormatter` with `.withInternetDateTime` (± `.withFractionalSeconds`) reads:
    /// `yyyy-MM-ddTHH:mm:ss` then, with fractional seconds, a required `.` and digits, then `Z` or `±hh:mm`
    /// (upper-case `T` and `Z`; no date-only, no missing zone, no space separator).
    static func isInternetDateTime(_ text: String, fractionalSeconds: Bool) -> Bool {
        let bytes = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Bool {
            at + count <= bytes.count && bytes[at..<(at + count)].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }
        guard bytes.count >= 20, digits(0, 4), bytes[4] == 0x2D, digits(5, 2), bytes[7] == 0x2D, digits(8, 2), bytes[10] == 0x54,
              digits(11, 2), bytes[13] == 0x3A, digits(14, 2), bytes[16] == 0x3A, digits(17, 2) else { return false }
        var index = 19
        if fractionalSeconds {
            guard index < bytes.count, bytes[index] == 0x2E else { return false }
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > start else { return false }
        }
        guard index < bytes.count else { return false }
        if bytes[index] == 0x5A { index += 1 }
        else if bytes[index] == 0x2B || bytes[index] == 0x2D, digits(index + 1, 2), index + 3 < bytes.count, bytes[index + 3] == 0x3A, digits(index + 4, 2) { index += 6 }
        else { return false }
        guard index == bytes.count else { return false }
        // Field ranges as the formatter checks them (it refuses month 13, hour 24…).
        func number(_ at: Int, _ count: Int) -> Int { Int(String(decoding: bytes[at..<(at + count)], as: UTF8.self)) ?? -1 }
        return (1...12).contains(number(5, 2)) && (1...31).contains(number(8, 2)) && number(11, 2) <= 23
            && number(14, 2) <= 59 && number(17, 2) <= 60 && Self.parseISO8601(String(text.prefix(19)) + "Z") != nil
    }

    static func yearOf(referenceSeconds seconds: Double) -> String {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date).year ?? 0
        return "year \(year)"
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }

    private mutating func judgeDictionary(_ node: JSONNode, key: ValueShape, value: ValueShape, region: Region) {
        switch key.unwrapped {
        case .integer(let kind) where kind.name != "Int":
            // Only String- and Int-keyed dictionaries (CodingKeyRepresentable) are JSON objects; other keys encode as
            // a flat array [key, value, key, value, …].
            guard case .array(let elements) = node.value else {
                return add(.typeMismatch, path, node.position,
                           "the app's type declares this as a dictionary keyed by \(kind.name), which Codable encodes as an array [key, value, …], not \(node.value.kindWithArticle); decoding fails",
                           fix: "send [key1, value1, key2, value2, …], or key the dictionary by String or Int in the app")
            }
            if elements.count % 2 != 0 {
                add(.typeMismatch, path, node.position,
                    "the app's type declares this as a dictionary keyed by \(kind.name), read as an array of key, value pairs; \(elements.count) elements leave a key without its value, so decoding fails",
                    fix: "send an even number of elements: [key1, value1, key2, value2, …]")
            }
            // Keys at even indices decode as the key type (range included), values at odd ones as the value type.
            for (i, e) in elements.enumerated() {
                descend(String(i)) { $0.judge(e, i % 2 == 0 ? key : value, region: region) }
            }
            return
        case .string, .integer:
            guard let members = node.value.members else { return mismatch(node, path, "a dictionary (JSON object)") }
            for member in members {
                if case .integer = key.unwrapped, Int64(member.key) == nil {
                    add(.typeMismatch, path + "." + member.key, member.keyPosition,
                        "this dictionary has Int keys; \"\(member.key)\" is not an integer, so decoding fails",
                        fix: "use integer keys written as strings, e.g. \"1\"")
                    continue
                }
                descend(member.key) { $0.judge(member.value, value, region: region) }
            }
        case .enumeration(let enumShape) where enumShape.rawType == .string || enumShape.rawType.map({ if case .integer = $0 { return true } else { return false } }) == true:
            // A CodingKeyRepresentable enum (the reader models no other enum key): a JSON object whose keys are
            // raw values; any other key fails ("Could not convert key to type …", checked with JSONDecoder).
            guard let members = node.value.members else { return mismatch(node, path, "a dictionary keyed by \(enumShape.name) (a JSON object)") }
            let raws = enumShape.cases.compactMap(\.rawValue)
            for member in members {
                let isCase = enumShape.rawType == .string ? raws.contains(member.key)
                    : Int64(member.key).map { key in raws.contains { Int64($0) == key } } ?? false
                if !isCase {
                    add(.enumValueInvalid, path + "." + member.key, member.keyPosition,
                        "this dictionary is keyed by \(enumShape.name); \"\(member.key)\" is not one of its raw values (\(raws.joined(separator: ", "))), so decoding fails",
                        fix: raws.first(where: { $0.lowercased() == member.key.lowercased() }).map { "write \"\($0)\"" }
                            ?? "use one of \(raws.map { "\"\($0)\"" }.joined(separator: ", ")) as the key")
                    continue
                }
                descend(member.key) { $0.judge(member.value, value, region: region) }
            }
        default:
            return  // other key types encode as arrays of alternating keys and values; the reader leaves them unresolved
        }
    }

    private mutating func judgeObject(_ node: JSONNode, _ structShape: StructShape, region: Region) {
        guard let members = node.value.members else {
            if structShape.decodesFromAnyValue { return }  // stores nothing: the decoder reads nothing
            return mismatch(node, path, structShape.name + " (a JSON object)")
        }
        // Index loops and field reads, not `for property in`: copying each property and member costs more than judging it.
        for propertyIndex in structShape.properties.indices {
            let key = structShape.properties[propertyIndex].key
            if let memberIndex = members.firstIndex(where: { $0.key == key }) {
                let shape = structShape.properties[propertyIndex].shape
                descend(key) { $0.judge(members[memberIndex].value, shape, region: region) }
            } else if structShape.properties[propertyIndex].isRequired, !structShape.conditionalKeys.contains(key) {
                let property = structShape.properties[propertyIndex]
                // A near spelling, or the Swift name itself where CodingKeys rename the key.
                let near = members.first(where: { LiveActivityKeys.fold($0.key) == LiveActivityKeys.fold(property.key) })
                    ?? members.first(where: { property.name != property.key && $0.key == property.name })
                // Where CodingKeys rename the key, say so: the Swift name and the JSON key differ.
                let renaming = property.name != property.key ? "CodingKeys encode \(property.name) as \"\(property.key)\"; " : ""
                add(.missingRequiredKey, path + "." + property.key, node.position,
                    "\(path) has no \"\(property.key)\" (\(structShape.name).\(property.name): \(property.typeName)); synthesized Decodable needs it, so decoding fails and the push is dropped",
                    fix: near.map { "rename \"\($0.key)\" to \"\(property.key)\" (\(renaming)keys must match exactly; no snake_case conversion)" }
                        ?? "send \"\(property.key)\" (\(property.typeName)\(property.name != property.key ? ", the JSON key of \(property.name)" : "")), or make \(property.name) Optional in the app")
            }
        }
        for memberIndex in members.indices
        where !structShape.properties.contains(where: { $0.key == members[memberIndex].key }) && !structShape.conditionalKeys.contains(members[memberIndex].key) {
            let member = members[memberIndex]
            let keyPath = path + "." + member.key
            let near = structShape.properties.first(where: { property in
                (LiveActivityKeys.fold(property.key) == LiveActivityKeys.fold(member.key) || (property.name != property.key && property.name == member.key))
                    && !members.contains(where: { $0.key == property.key })
            })
            switch region {
            case .attributes(let contentStateShape):
                var fix: String
                var message = "\"\(member.key)\" is not a stored property of \(structShape.name); the device rejects the whole start when attributes hold a key the type does not store"
                if let near {
                    fix = "rename \"\(member.key)\" to \"\(near.key)\" (keys must match the Swift names exactly)"
                } else if LiveActivityKeys.isAlertLike(member.key) {
                    message += " — alert text belongs in aps.alert, not attributes"
                    fix = "move \"\(member.key)\" to \(LiveActivityKeys.alertTarget(for: member.key))"
                } else if case .object(let cs) = contentStateShape.unwrapped, cs.property(forKey: member.key) != nil {
                    message += " — it is a ContentState property"
                    fix = "remove \"\(member.key)\" from attributes; send it in aps.content-state"
                } else {
                    fix = "remove \"\(member.key)\" from attributes (\(structShape.name) stores: \(structShape.properties.map(\.key).joined(separator: ", ")))"
                }
                add(.unknownAttributeKey, keyPath, member.keyPosition, message, fix: fix)
            case .contentState:
                add(.unknownContentStateKey, severity: strict ? .error : .warning, keyPath, member.keyPosition,
                    "\"\(member.key)\" is not a stored property of \(structShape.name); the decoder ignores it, so its value never reaches the activity",
                    fix: near.map { "rename \"\(member.key)\" to \"\($0.key)\" (keys must match the Swift names exactly)" }
                        ?? "remove \"\(member.key)\", or add it to \(structShape.name) in the app")
            }
        }
    }

    private mutating func judgeEnum(_ node: JSONNode, _ enumShape: EnumShape, region: Region) {
        let raws = enumShape.cases.compactMap(\.rawValue)
        switch enumShape.rawType {
        case .string?:
            guard let text = node.value.stringValue else { return mismatch(node, path, enumShape.name + " (a String raw value)") }
            if raws.contains(text) { return }
            let near = raws.first(where: { $0.lowercased() == text.lowercased() })
                ?? enumShape.cases.first(where: { $0.name == text }).flatMap(\.rawValue)
            add(.enumValueInvalid, path, node.position,
                "\"\(text)\" is not a raw value of \(enumShape.name) (\(raws.map { "\"\($0)\"" }.joined(separator: ", "))); raw values are case-sensitive and decoding fails",
                fix: near.map { "send \"\($0)\"" } ?? "send one of \(raws.map { "\"\($0)\"" }.joined(separator: ", "))")
        case .integer?, .floating?:
            guard let number = node.value.numberValue else {
                return mismatch(node, path, enumShape.name + " (a numeric raw value)",
                                fix: node.value.stringValue.flatMap { s in enumShape.cases.first(where: { $0.name == s })?.rawValue }.map { "send \($0)" })
            }
            if raws.contains(where: { Self.rawValue($0, matches: number, enumShape) }) { return }
            add(.enumValueInvalid, path, node.position,
                "\(number.lexeme) is not a raw value of \(enumShape.name) (\(raws.joined(separator: ", "))); decoding fails",
                fix: "send one of \(raws.joined(separator: ", "))")
        case nil:
            // Keyed form: {"caseKey": {associated values}}. The decoder sees only keys that are case keys; it
            // needs exactly one, and ignores the rest.
            guard let members = node.value.members else {
                let asCase = node.value.stringValue.flatMap { s in enumShape.cases.first(where: { $0.key == s }) }
                return mismatch(node, path, enumShape.name + " (an enum without raw values, encoded as {\"case\": {…}})",
                                fix: asCase.map { "send {\"\($0.key)\": {}}" })
            }
            let caseKeys = enumShape.cases.map(\.key).joined(separator: ", ")
            let present = members.filter { m in enumShape.cases.contains(where: { $0.key == m.key }) }
            if present.count > 1 {
                add(.typeMismatch, path + "." + present[1].key, present[1].keyPosition,
                    "\(enumShape.name) is encoded as an object with exactly one case key; this one has \(present.count) (\(present.map { "\"\($0.key)\"" }.joined(separator: ", "))), so decoding fails",
                    fix: "keep one of \(present.map { "\"\($0.key)\"" }.joined(separator: ", "))")
                return
            }
            guard let member = present.first, let matchedCase = enumShape.cases.first(where: { $0.key == member.key }) else {
                if let wrong = members.first {
                    add(.enumValueInvalid, path + "." + wrong.key, wrong.keyPosition,
                        "\(members.count == 1 ? "\"\(wrong.key)\" is" : "none of \(members.map { "\"\($0.key)\"" }.joined(separator: ", ")) is") not a case of \(enumShape.name) (\(caseKeys)); decoding fails",
                        fix: members.lazy.compactMap { member in enumShape.cases.first(where: { $0.key.lowercased() == member.key.lowercased() }) }.first.map { "write \"\($0.key)\"" }
                            ?? "use one of \(caseKeys)")
                } else {
                    add(.typeMismatch, path, node.position,
                        "\(enumShape.name) is encoded as {\"<case>\": {…}}; this object has no case key, so decoding fails",
                        fix: "send {\"<case>\": {…}} with one of \(caseKeys)")
                }
                return
            }
            for other in members where other.key != member.key {
                reportIgnoredKey(other, in: enumShape.name, known: enumShape.cases.map(\.key), region: region,
                                 why: "\"\(other.key)\" is not a case of \(enumShape.name); the decoder ignores it (only the case key \"\(member.key)\" is read)")
            }
            if case .null = member.value.value { return }  // null-value is reported by the placement rules
            guard member.value.value.members != nil else {
                add(.typeMismatch, path + "." + member.key, member.value.position,
                    "\(enumShape.name).\(matchedCase.name) decodes from an object holding its associated values (\"{}\" when it has none); the payload has \(member.value.value.kindWithArticle), so decoding fails",
                    fix: matchedCase.associatedValues.isEmpty ? "send {\"\(member.key)\": {}}"
                        : "send {\"\(member.key)\": {\(matchedCase.associatedValues.map { "\"\($0.key)\": …" }.joined(separator: ", "))}}")
                return
            }
            // Each associated value as a property named by its Swift label and read under its JSON key.
            let fields = StructShape(name: "\(enumShape.name).\(matchedCase.name)",
                                     properties: matchedCase.associatedValues.enumerated().map { index, value in
                                         StoredProperty(name: index < matchedCase.associatedValueLabels.count ? matchedCase.associatedValueLabels[index] : value.key,
                                                        key: value.key, shape: value.shape, typeName: value.shape.swiftSpelling)
                                     })
            descend(member.key) { $0.judgeObject(member.value, fields, region: region) }
        }
    }

    /// Whether the JSON number decodes to the raw value `raw`: the decoder reads the raw type first (integers on
    /// the exact lexeme, a `Float` raw type rounded to `Float`), then compares.
    static func rawValue(_ raw: String, matches number: JSONNumber, _ enumShape: EnumShape) -> Bool {
        switch enumShape.rawType {
        case .integer(let kind)?:
            return DecodedNumber.integerText(number, as: kind) == raw
        case .floating?:
            if ["Float", "Float32", "Float16"].contains(enumShape.rawTypeName ?? "") {
                guard DecodedNumber.floatingFits(number, name: "Float"), let value = Float(number.lexeme) else { return false }
                return Float(raw) == value
            }
            return DecodedNumber.floatingFits(number, name: "Double") && Double(raw) == number.doubleValue
        default:
            return false
        }
    }

    /// A key next to an enum's case key: the decoder ignores it. In `attributes` the device's stricter rule
    /// (unknown keys reject the start) applies as for a struct; in `content-state` it is a warning.
    private mutating func reportIgnoredKey(_ member: JSONMember, in typeName: String, known: [String], region: Region, why: String) {
        let keyPath = path + "." + member.key
        switch region {
        case .attributes:
            add(.unknownAttributeKey, keyPath, member.keyPosition,
                why + "; the device rejects the whole start when attributes hold a key the type does not read",
                fix: "remove \"\(member.key)\" (\(typeName) reads one of: \(known.joined(separator: ", ")))")
        case .contentState:
            add(.unknownContentStateKey, severity: strict ? .error : .warning, keyPath, member.keyPosition,
                why + ", so its value never reaches the activity",
                fix: "remove \"\(member.key)\"")
        }
    }
}
