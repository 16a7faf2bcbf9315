/// The bytes a JSON string can step over without looking at each: printable ASCII other than the quote and the backslash.
/// Shared by the reader and the quiet scan.
enum JSONPlainBytes {
    /// How many of the eight bytes (read little-endian: the first byte is the lowest) come before the first quote,
    /// backslash, control character or non-ASCII byte — the bytes a string can skip at once (SWAR "find a zero
    /// byte", Hacker's Delight §6-1; a borrow can flag a byte after the first hit, never one before it).
    @inline(__always)
    static func plainASCIIPrefix(_ word: UInt64) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let little = UInt64(littleEndian: word)
        let quotes = little ^ (ones &* 0x22)
        let backslashes = little ^ (ones &* 0x5C)
        let flagged = ((little &- ones &* 0x20) | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | little) & highs
        return flagged.trailingZeroBitCount >> 3
    }

    /// The index of the first byte from `start` on that is a quote, backslash, control character or non-ASCII
    /// (or `bytes.count`), eight bytes at a time while eight remain.
    @inline(__always)
    static func endOfPlainRun(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index + 8 <= bytes.count {
            let plain = plainASCIIPrefix(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
            index += plain
            if plain < 8 { return index }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }
}
