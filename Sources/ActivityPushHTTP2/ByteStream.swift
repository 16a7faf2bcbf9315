/// What a non-blocking read or write did.
package enum ByteStreamResult: Equatable {
    /// This many bytes moved (more than zero).
    case transferred(Int)
    /// Nothing now; retry when the descriptor is readable (`.read`) or writable (`.write`) — TLS may need the
    /// opposite direction of the call (a read that must write first).
    case wouldBlock(IOInterest)
    /// The peer closed the stream in order.
    case closed
    /// A fatal error; close the connection.
    case failed
}

/// How far a TLS handshake got (a plain stream is `.complete` at once).
package enum ByteStreamHandshake: Equatable {
    case complete
    case wouldBlock(IOInterest)
    case failed
}

/// A byte stream over a non-blocking socket: plain TCP (h2c) or TLS. Used on the loop thread only.
package protocol ByteStream: AnyObject {
    /// The socket underneath, for loop registration.
    var descriptor: Int32 { get }
    /// Advances the handshake (TLS) without blocking.
    func handshake() -> ByteStreamHandshake
    /// Reads into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamResult
    /// Writes from `bytes` (possibly only part of them).
    func write(_ bytes: UnsafeRawBufferPointer) -> ByteStreamResult
    /// The protocol ALPN selected (`"h2"`), nil without TLS or when none was agreed.
    var negotiatedProtocol: String? { get }
    /// Frees TLS state and closes the socket. Idempotent.
    func close()
}
