import COpenSSL

/// TLS over a non-blocking socket (OpenSSL `SSL` on the descriptor). Owns the descriptor.
package final class TLSByteStream: ByteStream {
    package let descriptor: Int32
    private var ssl: OpaquePointer?

    /// - Parameters:
    ///   - serverName: for a client context, the host name sent as SNI and checked against the certificate
    ///     (an IP address is checked as an IP); ignored for a server context.
    /// - Throws: ``HTTP2TransportError`` `.tls` when OpenSSL cannot create the session (out of memory).
    package init(descriptor: Int32, context: TLSContext, serverName: String? = nil) throws {
        guard let ssl = SSL_new(context.context) else { throw HTTP2TransportError(.tls, "SSL_new failed: \(openSSLErrors())") }
        SSL_set_fd(ssl, descriptor)
        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            if let serverName {
                let isAddress = serverName.contains(":") || serverName.allSatisfy({ $0.isNumber || $0 == "." })
                if !isAddress {
                    _ = serverName.withCString { name in
                        SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: name))
                    }
                }
                let parameters = SSL_get0_param(ssl)
                if isAddress { _ = X509_VERIFY_PARAM_set1_ip_asc(parameters, serverName) } else { _ = X509_VERIFY_PARAM_set1_host(parameters, serverName, 0) }
            }
        }
        self.descriptor = descriptor
        self.ssl = ssl
    }

    package func handshake() -> ByteStreamHandshake {
        guard let ssl else { return .failed }
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .complete }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wouldBlock(.read)
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(.write)
        default:
            ERR_clear_error()
            return .failed
        }
    }

    package var negotiatedProtocol: String? {
        guard let ssl else { return nil }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteStreamResult {
        guard let ssl else { return .failed }
        let result = SSL_read(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
        if result > 0 { return .transferred(Int(result)) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wouldBlock(.read)
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(.write)
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            ERR_clear_error()
            return .failed
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> ByteStreamResult {
        guard let ssl else { return .failed }
        let result = SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))
        if result > 0 { return .transferred(Int(result)) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(.write)
        case SSL_ERROR_WANT_READ: return .wouldBlock(.read)
        default:
            ERR_clear_error()
            return .failed
        }
    }

    package func close() {
        guard let ssl else { return }
        SSL_free(ssl)
        self.ssl = nil
        Descriptors.close(descriptor)
    }

    deinit { close() }
}
