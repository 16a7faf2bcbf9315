import Foundation

/// Whether a string decodes as a `UUID` (what `JSONDecoder` does for a `UUID` property, and what APNs checks
/// in `apns-id`): Foundation's `UUID(uuidString:)`, with the canonical 8-4-4-4-12 hex spelling accepted
/// without calling it (Foundation's Linux parser runs `sscanf`, the slowest step of a whole check).
enum UUIDText {
    static func isValid(_ text: String) -> Bool {
        if isCanonical(text) { return true }
        return UUID(uuidString: text) != nil
    }

    /// 36 ASCII bytes: hex digits with '-' at offsets 8, 13, 18 and 23 — a spelling `UUID(uuidString:)` always
    /// accepts (either letter case).
    static func isCanonical(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        if let answer = text.utf8.withContiguousStorageIfAvailable(isCanonical) { return answer }
        var copy = text  // a bridged or shared string: make it native and contiguous first
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(isCanonical) ?? false
    }

    /// ``isValid(_:)`` on UTF-8 bytes: the canonical spelling without building a string, else Foundation.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isCanonical(bytes) || UUID(uuidString: String(decoding: bytes, as: UTF8.self)) != nil
    }

    private static func isCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            switch offset {
            case 8, 13, 18, 23:
                if byte != UInt8(ascii: "-") { return false }
            default:
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                    continue
                default:
                    return false
                }
            }
        }
        return true
    }
}
