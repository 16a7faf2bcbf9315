#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cleartext TCP (HTTP/2 with prior knowledge). Owns the descriptor.
package final class PlainByteStream: ByteStream {
    package let descriptor: Int32
    private var open = true

    package init(descriptor: Int32) { self.descriptor = descriptor }

    package func handshake() -> ByteStreamHandshake { .complete }
    package var negotiatedProtocol: String? { nil }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamResult {
        let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock(.read) }
        return .failed
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> ByteStreamResult {
        let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count > 0 { return .transferred(count) }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock(.write) }
        return .failed
    }

    package func close() {
        guard open else { return }
        open = false
        Descriptors.close(descriptor)
    }

    deinit { close() }
}
