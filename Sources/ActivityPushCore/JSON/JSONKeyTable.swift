/// Strings the reader hands out without building them again: the object keys (and vocabulary values such as
/// `"start"` or an enum's raw values) a validator expects, each built once. A string read from a payload that is
/// plain ASCII with no escapes and spelled exactly like an entry becomes that entry's `String` — the same text,
/// so nothing a rule sees changes; it saves the UTF-8 check, the copy and, past 15 bytes, an allocation and
/// its release. Anything else is built as usual.
///
/// Open addressing over a power-of-two slot array, at most half full; immutable once built, so `Sendable`.
package struct JSONKeyTable: Sendable {
    /// Per slot: the entry's byte count (0: empty), where its bytes start in `pool`, and the string itself —
    /// parallel arrays, so probing reads integers and bytes and retains nothing until a hit.
    private var lengths: [Int]
    private var starts: [Int]
    private var strings: [String]
    private var pool: [UInt8] = []
    private var mask: Int

    /// The table for these strings (non-ASCII ones and duplicates are left out).
    package init(_ candidates: some Sequence<String>) {
        let unique = Set(candidates.filter { !$0.isEmpty && $0.utf8.allSatisfy { $0 < 0x80 } })
        var size = 16
        while size < unique.count * 2 { size *= 2 }
        lengths = Array(repeating: 0, count: size)
        starts = Array(repeating: 0, count: size)
        strings = Array(repeating: "", count: size)
        mask = size - 1
        for string in unique.sorted() {
            let utf8 = Array(string.utf8)
            var slot = utf8.withUnsafeBufferPointer { Self.hash($0) } & mask
            while lengths[slot] != 0 { slot = (slot + 1) & mask }
            lengths[slot] = utf8.count
            starts[slot] = pool.count
            strings[slot] = string
            pool += utf8
        }
    }

    package var count: Int { lengths.reduce(0) { $0 + ($1 == 0 ? 0 : 1) } }

    /// The entry spelled exactly as `bytes`, or nil.
    @inline(__always)
    func string(for bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard !bytes.isEmpty else { return nil }
        let found: Int? = lengths.withUnsafeBufferPointer { lengths in
            starts.withUnsafeBufferPointer { starts in
                pool.withUnsafeBufferPointer { pool in
                    var slot = Self.hash(bytes) & mask
                    while lengths[slot] != 0 {
                        if lengths[slot] == bytes.count,
                           Self.equal(UnsafeBufferPointer(rebasing: pool[starts[slot]..<starts[slot] + bytes.count]), bytes) {
                            return slot
                        }
                        slot = (slot + 1) & mask
                    }
                    return nil
                }
            }
        }
        return found.map { strings[$0] }
    }

    @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < a.count {
            if a[index] != b[index] { return false }
            index += 1
        }
        return true
    }

    /// Length and the first, second-to-last and last bytes: cheap, and enough to spread a key vocabulary.
    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let count = bytes.count
        let first = Int(bytes[0])
        let last = Int(bytes[count - 1])
        let nearLast = Int(bytes[count > 1 ? count - 2 : 0])
        return (count &* 0x9E37) ^ (first &* 0x3B) ^ (nearLast &* 0x1F3) ^ (last &* 0x7F1)
    }
}
