/// One pass over a push's bytes that proves it draws no finding from the body rules — or gives up, and the full
/// check (reader, tree, every rule) judges it as before. Findings, paths and positions therefore come only from the
/// full check; the scan decides nothing the full check would say otherwise (`QuietPushScanTests` compares both
/// on every corpus payload and on mutations of each).
///
/// What it proves, on the bytes and the compiled schema (``QuietScanPlan``), with the rules' own predicates:
/// strict RFC 8259 JSON (UTF-8 checked, escapes checked, no duplicate key), a root holding only `aps`, `aps` holding
/// only Live Activity keys, a known `event`, whole UNIX-second times within the rules' bounds, a finite
/// `relevance-score`, a start with `attributes-type` naming a schema type, `attributes` and an alert with `title`
/// and `body` text, no start-only key elsewhere, no `null` anywhere, and `content-state` / `attributes` decoding
/// as the app's types with every required key and no other. Anything else (an unknown key, a null, an escape in a
/// key, a type it does not compile) is "not proved": the scan stops there.
///
/// No allocation on the way, except the `String`s the shared predicates take (URL, UUID, a floating-point lexeme).
struct QuietPushScan {
    /// The `aps` keys, in the order of ``QuietScanPlan/apsKeys``.
    enum APSKey: Int, CaseIterable {
        case timestamp, event, contentState, attributesType, attributes, alert, staleDate, dismissalDate,
             relevanceScore, inputPushToken, inputPushChannel

        /// The keys `start-only-key` names on update and end, as bits of ``APSValues/seen``.
        static let startOnlyMask: UInt32 = [APSKey.attributesType, .attributes, .inputPushToken, .inputPushChannel]
            .reduce(0) { $0 | 1 << UInt32($1.rawValue) }

        var name: String {
            switch self {
            case .timestamp: return LiveActivityKeys.timestamp
            case .event: return LiveActivityKeys.event
            case .contentState: return LiveActivityKeys.contentState
            case .attributesType: return LiveActivityKeys.attributesType
            case .attributes: return LiveActivityKeys.attributes
            case .alert: return LiveActivityKeys.alert
            case .staleDate: return LiveActivityKeys.staleDate
            case .dismissalDate: return LiveActivityKeys.dismissalDate
            case .relevanceScore: return LiveActivityKeys.relevanceScore
            case .inputPushToken: return LiveActivityKeys.inputPushToken
            case .inputPushChannel: return LiveActivityKeys.inputPushChannel
            }
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let plan: QuietScanPlan
    /// The plan's byte pool, nodes and properties, read without going through the arrays on every look.
    private let pool: UnsafeBufferPointer<UInt8>
    private let nodes: UnsafeBufferPointer<QuietScanPlan.Node>
    private let properties: UnsafeBufferPointer<QuietScanPlan.Property>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, plan: QuietScanPlan, pool: UnsafeBufferPointer<UInt8>,
                 nodes: UnsafeBufferPointer<QuietScanPlan.Node>, properties: UnsafeBufferPointer<QuietScanPlan.Property>) {
        self.bytes = bytes
        self.plan = plan
        self.pool = pool
        self.nodes = nodes
        self.properties = properties
    }

    /// The event of a body that draws no body finding (device-token push, not broadcast), or nil when not proved.
    /// - Parameter now: the check's clock, UNIX seconds (nil: time rules relative to now are skipped, as in the check).
    static func quietEvent(of body: [UInt8], plan: QuietScanPlan, now: Double?) -> LiveActivityEvent? {
        guard body.count <= APNsLimits.deviceBodyBytes else { return nil }
        return body.withUnsafeBufferPointer { buffer in
            plan.pool.withUnsafeBufferPointer { pool in
                plan.nodes.withUnsafeBufferPointer { nodes in
                    plan.properties.withUnsafeBufferPointer { properties in
                        var scan = QuietPushScan(buffer, plan: plan, pool: pool, nodes: nodes, properties: properties)
                        return scan.document(now: now)
                    }
                }
            }
        }
    }

    // MARK: The document and aps

    /// Offsets of the `aps` values the scan judges after reading all of `aps` (the type is known only then).
    private struct APSValues {
        var seen: UInt32 = 0
        /// content-state / attributes judged as soon as read (the type was already known).
        var judged: UInt32 = 0
        var timestamp: Int64 = 0
        var staleDate: Int64 = 0
        var dismissalDate: Int64 = 0
        var event: LiveActivityEvent?
        var typeName: (start: Int, count: Int)?
        /// Where content-state and attributes start and where the skip ended (the judged value must end there too).
        var contentState = 0
        var contentStateEnd = 0
        var attributes = 0
        var attributesEnd = 0
        var alertIsUsable = false

        func has(_ key: APSKey) -> Bool { seen & (1 << UInt32(key.rawValue)) != 0 }
    }

    private mutating func document(now: Double?) -> LiveActivityEvent? {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        guard let key = plainKey(), equal(key, plan.apsRoot) else { return nil }
        skipWhitespace()
        guard take(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        guard let values = aps() else { return nil }
        skipWhitespace()
        guard take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard index == bytes.count else { return nil }
        return judge(values, now: now)
    }

    /// Reads `aps`: each key once, each value checked for its own rules or, for content-state and attributes,
    /// skipped and its offset kept.
    private mutating func aps() -> APSValues? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var values = APSValues()
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return values }
        while true {
            skipWhitespace()
            guard let keySpan = plainKey(), let key = apsKey(keySpan) else { return nil }
            let bit: UInt32 = 1 << UInt32(key.rawValue)
            guard values.seen & bit == 0 else { return nil }
            values.seen |= bit
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            switch key {
            case .timestamp:
                guard let seconds = wholeNumber() else { return nil }
                values.timestamp = seconds
            case .staleDate:
                guard let seconds = wholeNumber() else { return nil }
                values.staleDate = seconds
            case .dismissalDate:
                guard let seconds = wholeNumber() else { return nil }
                values.dismissalDate = seconds
            case .event:
                guard let span = plainString() else { return nil }
                guard let known = plan.eventBytes.firstIndex(where: { equal(span, $0) }) else { return nil }
                values.event = plan.events[known]
            case .attributesType:
                guard let span = plainString() else { return nil }
                values.typeName = span
            case .contentState:
                values.contentState = index
                if let type = knownType(values) {
                    guard bytes[index] == UInt8(ascii: "{"), value(type.contentState) else { return nil }
                    values.judged |= bit
                } else {
                    guard skipContainer() else { return nil }
                }
                values.contentStateEnd = index
            case .attributes:
                values.attributes = index
                if let type = knownType(values) {
                    guard bytes[index] == UInt8(ascii: "{"), value(type.attributes) else { return nil }
                    values.judged |= bit
                } else {
                    guard skipContainer() else { return nil }
                }
                values.attributesEnd = index
            case .alert:
                guard alert() else { return nil }
                values.alertIsUsable = true
            case .relevanceScore:
                // Finite: a number without exponent and of fewer than 300 digits never overflows a Double.
                guard let lexeme = number(), lexeme.count < 300,
                      !UnsafeBufferPointer(rebasing: bytes[lexeme.start..<lexeme.start + lexeme.count])
                          .contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
            case .inputPushToken:
                // The number 1 exactly, as `invalid-input-push-token` wants.
                guard let lexeme = number(), lexeme.count == 1, bytes[lexeme.start] == UInt8(ascii: "1") else { return nil }
            case .inputPushChannel:
                return nil  // base64 check: the full check decides
            }
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            return values
        }
    }

    /// Every rule that reads `aps` as a whole, on the values read; then content-state and attributes against the type.
    private mutating func judge(_ values: APSValues, now: Double?) -> LiveActivityEvent? {
        guard let event = values.event, values.has(.timestamp), values.has(.contentState) else { return nil }
        // Times: whole UNIX seconds within the bounds checkTimes applies.
        let timestamp = Double(values.timestamp)
        guard PushCheck.isWholeUnixSeconds(timestamp) else { return nil }
        if let now, abs(timestamp - now) > PushCheck.timestampTolerance { return nil }
        if values.has(.staleDate) {
            let staleDate = Double(values.staleDate)
            guard PushCheck.isWholeUnixSeconds(staleDate) else { return nil }
            if let now, staleDate < now { return nil }
        }
        if values.has(.dismissalDate) {
            let dismissal = Double(values.dismissalDate)
            guard event == .end, PushCheck.isWholeUnixSeconds(dismissal) else { return nil }
            if let now, dismissal < now { return nil }
        }
        // Start keys and the alert.
        if event == .start {
            guard values.has(.attributesType), values.has(.attributes), values.alertIsUsable else { return nil }
        } else if values.seen & APSKey.startOnlyMask != 0 {
            return nil
        }
        // The type: named exactly, or the only one.
        // A value judged before the name was read was judged against the only type; a name must then be its.
        guard let type = knownType(values) else { return nil }
        let contentStateBit: UInt32 = 1 << UInt32(APSKey.contentState.rawValue)
        let attributesBit: UInt32 = 1 << UInt32(APSKey.attributes.rawValue)
        if values.judged & contentStateBit == 0 {
            index = values.contentState
            guard bytes[index] == UInt8(ascii: "{"), value(type.contentState), index == values.contentStateEnd else { return nil }
        }
        if values.has(.attributes), values.judged & attributesBit == 0 {
            index = values.attributes
            guard bytes[index] == UInt8(ascii: "{"), value(type.attributes), index == values.attributesEnd else { return nil }
        }
        return event
    }

    /// The type content-state and attributes are judged against: the one `attributes-type` names exactly, or,
    /// before or without a name, the schema's only type (a name read later must then be that type's).
    private func knownType(_ values: APSValues) -> QuietScanPlan.AttributesType? {
        if let name = values.typeName { return plan.types.first(where: { equal(name, $0.name) }) }
        return plan.types.count == 1 ? plan.types[0] : nil
    }

    /// `aps.alert`: an object of known alert keys, each once, with `title` and `body` strings holding text (not
    /// blank, which `silent-start` / `alert-incomplete` name); other keys hold strings or numbers.
    private mutating func alert() -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        var seen: UInt32 = 0
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return false }
        while true {
            skipWhitespace()
            guard let keySpan = plainKey(),
                  let keyIndex = plan.alertKeys.firstIndex(where: { equal(keySpan, $0) }) else { return false }
            let bit: UInt32 = 1 << UInt32(keyIndex)
            guard seen & bit == 0 else { return false }
            seen |= bit
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            if bit == plan.alertTitleBit || bit == plan.alertBodyBit {
                guard let text = stringValue(), hasText(text) else { return false }
            } else {
                guard index < bytes.count else { return false }
                if bytes[index] == UInt8(ascii: "\"") {
                    guard stringValue() != nil else { return false }
                } else {
                    guard number() != nil else { return false }
                }
            }
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return false }
            return seen & plan.alertTitleBit != 0 && seen & plan.alertBodyBit != 0
        }
    }

    /// Whether an alert string is not blank as `checkAlert` judges it: a printable ASCII byte outside an escape
    /// settles it; a string without escapes is otherwise built and judged by the rule's own predicate.
    private func hasText(_ text: StringSpan) -> Bool {
        var offset = text.start
        while offset < text.start + text.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\\") {
                offset += bytes[offset + 1] == UInt8(ascii: "u") ? 6 : 2
                continue
            }
            if byte > 0x20, byte < 0x7F { return true }
            offset += 1
        }
        guard text.noEscape else { return false }  // escapes and no plain text: the full check decides
        let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[text.start..<text.start + text.count]), as: UTF8.self)
        return !PushCheck.isBlank(string)
    }

    // MARK: Values against the schema

    /// One value against `nodes[node]`; on success `index` is past it.
    private mutating func value(_ nodeIndex: Int) -> Bool {
        guard index < bytes.count else { return false }
        switch nodes[nodeIndex] {
        case .unsure:
            return false
        case .bool:
            return literal("true") || literal("false")
        case .string:
            return stringValue() != nil
        case .integer(let kindIndex):
            guard let lexeme = number() else { return false }
            if let (magnitude, negative) = plainInteger(lexeme) {
                let bounds = plan.integerBounds[kindIndex]
                return DecodedNumber.plainInteger(magnitude: magnitude, negative: negative, min: bounds.min, maxUnsigned: bounds.maxUnsigned)
            }
            return DecodedNumber.integer(JSONNumber(lexeme: text(lexeme.start, lexeme.count)), fits: plan.integerKinds[kindIndex]) == .fits
        case .floating(let nameIndex):
            guard let lexeme = number() else { return false }
            return DecodedNumber.floatingFits(JSONNumber(lexeme: text(lexeme.start, lexeme.count)), name: plan.floatingNames[nameIndex])
        case .date:
            guard let lexeme = number() else { return false }
            // A plain integer below 2^53 is exactly the Double the full check parses from its text.
            if let (magnitude, negative) = plainInteger(lexeme), magnitude < 1 << 53 {
                let seconds = Double(magnitude)
                return ShapeJudge.isQuietReferenceDate(negative ? -seconds : seconds)
            }
            let seconds = JSONNumber(lexeme: text(lexeme.start, lexeme.count)).doubleValue
            return ShapeJudge.isQuietReferenceDate(seconds)
        case .url:
            guard let span = plainString() else { return false }
            return ShapeJudge.decodesAsURL(UnsafeBufferPointer(rebasing: bytes[span.start..<span.start + span.count]))
        case .uuid:
            guard let span = plainString() else { return false }
            return UUIDText.isValid(UnsafeBufferPointer(rebasing: bytes[span.start..<span.start + span.count]))
        case .stringEnum(let enumIndex):
            guard let span = plainString() else { return false }
            let enumeration = plan.enumerations[enumIndex]
            for raw in enumeration.first..<enumeration.first + enumeration.count where equal(span, plan.rawValues[raw]) {
                return true
            }
            return false
        case .array(let element):
            guard take(UInt8(ascii: "[")), enter() else { return false }
            skipWhitespace()
            if take(UInt8(ascii: "]")) { depth -= 1; return true }
            while true {
                skipWhitespace()
                guard value(element) else { return false }
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "]")) else { return false }
                depth -= 1
                return true
            }
        case .object(let objectIndex):
            return object(plan.objects[objectIndex])
        }
    }

    /// A struct: every key one of its properties (tried in declaration order from the last match), each once, every
    /// required one present.
    private mutating func object(_ object: QuietScanPlan.Object) -> Bool {
        guard take(UInt8(ascii: "{")), enter() else { return false }
        var seen: UInt64 = 0
        skipWhitespace()
        if !take(UInt8(ascii: "}")) {
            var next = 0
            members: while true {
                skipWhitespace()
                guard object.count > 0 else { return false }
                var found = -1
                // Keys usually come in declaration order: the expected key is matched in place first.
                if takeKey(properties[object.first + next].key) {
                    found = next
                } else {
                    guard let key = plainKey() else { return false }
                    for step in 1..<max(object.count, 1) {
                        let candidate = next + step < object.count ? next + step : next + step - object.count
                        if equal(key, properties[object.first + candidate].key) {
                            found = candidate
                            break
                        }
                    }
                }
                guard found >= 0 else { return false }
                let bit: UInt64 = 1 << UInt64(found)
                guard seen & bit == 0 else { return false }
                seen |= bit
                next = found + 1 < object.count ? found + 1 : 0
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard value(properties[object.first + found].node) else { return false }
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue members }
                guard take(UInt8(ascii: "}")) else { return false }
                break members
            }
        }
        depth -= 1
        return seen & object.requiredMask == object.requiredMask
    }

    private mutating func enter() -> Bool {
        depth += 1
        return depth < 200
    }

    // MARK: Lexical

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private func text(_ start: Int, _ count: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + count]), as: UTF8.self)
    }

    private func equal(_ span: (start: Int, count: Int), _ expected: QuietScanPlan.Bytes) -> Bool {
        guard span.count == expected.count else { return false }
        return sameBytes(at: span.start, expected)
    }

    /// Whether the input from `start` holds `expected`'s bytes (the caller has checked they fit), eight at a time.
    @inline(__always)
    private func sameBytes(at start: Int, _ expected: QuietScanPlan.Bytes) -> Bool {
        let input = UnsafeRawPointer(bytes.baseAddress! + start)
        let known = UnsafeRawPointer(pool.baseAddress! + expected.start)
        var offset = 0
        while offset + 8 <= expected.count {
            if input.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != known.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        while offset < expected.count {
            if input.load(fromByteOffset: offset, as: UInt8.self) != known.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset += 1
        }
        return true
    }

    /// Reads the string key `expected` in place (its quotes included) when the input holds exactly it; the plan's
    /// keys are printable ASCII without quote or backslash, so equal bytes and a closing quote are that key.
    private mutating func takeKey(_ expected: QuietScanPlan.Bytes) -> Bool {
        let close = index + 1 + expected.count
        guard close < bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[close] == UInt8(ascii: "\""),
              sameBytes(at: index + 1, expected) else { return false }
        index = close + 1
        return true
    }

    /// A key of printable ASCII without escapes (what the plan's keys are; anything else is not proved).
    private mutating func plainKey() -> (start: Int, count: Int)? {
        plainString()
    }

    /// A string of printable ASCII without escapes: its bytes are its text.
    private mutating func plainString() -> (start: Int, count: Int)? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        index = JSONPlainBytes.endOfPlainRun(bytes, from: index)
        guard take(UInt8(ascii: "\"")) else { return nil }
        return (start, index - 1 - start)
    }

    /// A string as the reader checks it: valid UTF-8, no raw control character, valid escapes (`\uXXXX` surrogates
    /// paired).
    struct StringSpan {
        let start: Int
        let count: Int
        /// No backslash in it: the bytes are the text.
        let noEscape: Bool
    }

    private mutating func stringValue() -> StringSpan? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var noEscape = true
        while true {
            index = JSONPlainBytes.endOfPlainRun(bytes, from: index)
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return StringSpan(start: start, count: index - 1 - start, noEscape: noEscape)
            case UInt8(ascii: "\\"):
                noEscape = false
                guard escape() else { return nil }
            case 0x80...:
                guard scalar() else { return nil }
            default:
                return nil  // a raw control character
            }
        }
    }

    /// `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`, or `\uXXXX` (a high surrogate followed by an escaped low one).
    private mutating func escape() -> Bool {
        guard index + 1 < bytes.count else { return false }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
            return true
        case UInt8(ascii: "u"):
            index += 2
            guard let unit = hex4() else { return false }
            if (0xDC00...0xDFFF).contains(unit) { return false }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return false }
                index += 2
                guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return false }
            }
            return true
        default:
            return false
        }
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    /// One UTF-8 encoded scalar of two to four bytes, well-formed (Unicode Table 3-7: no overlong form, no
    /// surrogate, nothing past U+10FFFF).
    private mutating func scalar() -> Bool {
        let lead = bytes[index]
        let count: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; high = 0x9F
        case 0xF0: count = 4; low = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; high = 0x8F
        default: return false
        }
        guard index + count <= bytes.count else { return false }
        let second = bytes[index + 1]
        guard second >= low, second <= high else { return false }
        for offset in 2..<max(2, count) where bytes[index + offset] & 0xC0 != 0x80 { return false }
        index += count
        return true
    }

    /// A number in RFC 8259 syntax; its lexeme's place.
    private mutating func number() -> (start: Int, count: Int)? {
        let start = index
        _ = take(UInt8(ascii: "-"))
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() else { return nil }
        }
        if take(UInt8(ascii: ".")) {
            guard digits() else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
        }
        // A digit right after a leading 0 (`01`) is not JSON; the container's ',' / '}' check catches any other byte.
        return (start, index - start)
    }

    private mutating func digits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        return index > start
    }

    /// A lexeme without fraction or exponent, of at most 18 digits: its magnitude and sign.
    private func plainInteger(_ lexeme: (start: Int, count: Int)) -> (UInt64, Bool)? {
        let negative = bytes[lexeme.start] == UInt8(ascii: "-")
        let first = negative ? lexeme.start + 1 : lexeme.start
        guard lexeme.start + lexeme.count - first <= 18 else { return nil }
        var magnitude: UInt64 = 0
        for offset in first..<lexeme.start + lexeme.count {
            let byte = bytes[offset]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            magnitude = magnitude * 10 + UInt64(byte - 0x30)
        }
        return (magnitude, negative)
    }

    /// A non-negative integer without fraction or exponent, of at most 15 digits (exact as a Double).
    private mutating func wholeNumber() -> Int64? {
        guard let lexeme = number(), lexeme.count <= 15 else { return nil }
        var value: Int64 = 0
        for offset in lexeme.start..<lexeme.start + lexeme.count {
            let byte = bytes[offset]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    /// Skips an object or array without judging it (it is read again once the type is known): strings are
    /// stepped over whole, brackets counted. nil-safe on any bytes; the second reading does the checking.
    private mutating func skipContainer() -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return false }
        var open = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                open -= 1
                index += 1
                if open == 0 { return true }
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            default:
                index += 1
            }
        }
        return false
    }

    private func apsKey(_ span: (start: Int, count: Int)) -> APSKey? {
        for (offset, key) in plan.apsKeys.enumerated() where equal(span, key) { return APSKey(rawValue: offset) }
        return nil
    }
}
