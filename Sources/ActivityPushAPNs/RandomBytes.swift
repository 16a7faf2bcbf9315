import COpenSSL
import Synchronization

/// Random 128-bit values from OpenSSL's generator (`RAND_bytes`, seeded by the system), drawn 4 KB at a time so
/// that an `apns-id` per push costs no system call (the stdlib generator makes one per word). Ids only.
final class RandomBytes: Sendable {
    static let shared = RandomBytes()

    private struct Pool {
        var words: [UInt64] = []
        var next = 0
    }
    private let pool = Mutex(Pool())

    /// Two fresh random words.
    func next() -> (high: UInt64, low: UInt64) {
        pool.withLock { pool in
            if pool.next + 2 > pool.words.count {
                if pool.words.isEmpty { pool.words = [UInt64](repeating: 0, count: 512) }
                let filled = pool.words.withUnsafeMutableBytes { buffer in RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) }
                if filled != 1 {   // OpenSSL failed: the stdlib generator, word by word
                    var generator = SystemRandomNumberGenerator()
                    for index in pool.words.indices { pool.words[index] = generator.next() }
                }
                pool.next = 0
            }
            defer { pool.next += 2 }
            return (pool.words[pool.next], pool.words[pool.next + 1])
        }
    }
}
