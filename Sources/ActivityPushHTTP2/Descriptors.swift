#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers both roles use.
package enum Descriptors {
    /// Sets `O_NONBLOCK` on a descriptor.
    package static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
    }

    /// `close(2)`, ignoring the result (the descriptor is gone either way).
    package static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    /// Disables Nagle's algorithm: HTTP/2 frames are small and latency matters more than packet count.
    package static func setNoDelay(_ descriptor: Int32) {
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// `strerror(errno)` as a String.
    package static func lastErrorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

/// Milliseconds on the monotonic clock (never jumps with the wall clock); for timers and idle deadlines.
package func monotonicMilliseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
}
