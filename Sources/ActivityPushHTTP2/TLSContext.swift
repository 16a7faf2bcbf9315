import COpenSSL

/// An OpenSSL `SSL_CTX` for one role: TLS 1.2 or later, ALPN `h2` (APNs speaks HTTP/2 only; Apple,
/// "Sending notification requests to APNs").
///
/// `Sendable`: an `SSL_CTX` is not changed after these factories return, and OpenSSL allows `SSL_new` from one
/// context on any thread; the raw pointer is therefore stored `nonisolated(unsafe)`.
package final class TLSContext: Sendable {
    nonisolated(unsafe) let context: OpaquePointer
    /// Which side of the handshake `SSL` objects from this context take.
    package let role: Role

    package enum Role: Sendable, Equatable { case server, client }

    private init(method: OpaquePointer?, role: Role) throws {
        guard let method, let context = SSL_CTX_new(method) else {
            throw HTTP2TransportError(.tls, "SSL_CTX_new failed: \(openSSLErrors())")
        }
        self.context = context
        self.role = role
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE,
                         Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS), nil)
    }

    /// A server context with a PEM certificate chain and its PEM private key; ALPN picks `h2` from the client's
    /// list, and a client that offers no `h2` gets no ALPN answer (its HTTP/1 bytes then fail the HTTP/2 preface).
    /// - Throws: ``HTTP2TransportError`` `.tls` naming the file that could not be loaded.
    package static func server(certificatePath: String, keyPath: String) throws -> TLSContext {
        let tls = try TLSContext(method: TLS_server_method(), role: .server)
        guard SSL_CTX_use_certificate_chain_file(tls.context, certificatePath) == 1 else {
            throw HTTP2TransportError(.tls, "cannot load certificate \(certificatePath): \(openSSLErrors())")
        }
        guard SSL_CTX_use_PrivateKey_file(tls.context, keyPath, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(tls.context) == 1 else {
            throw HTTP2TransportError(.tls, "cannot load private key \(keyPath) (or it does not match the certificate): \(openSSLErrors())")
        }
        SSL_CTX_set_alpn_select_cb(tls.context, { _, out, outLength, offered, offeredLength, _ in
            guard let out, let outLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
            var index = 0
            let total = Int(offeredLength)
            while index < total {
                let length = Int(offered[index])
                if length == 2, index + 2 < total, offered[index + 1] == UInt8(ascii: "h"), offered[index + 2] == UInt8(ascii: "2") {
                    out.pointee = offered + index + 1
                    outLength.pointee = 2
                    return SSL_TLSEXT_ERR_OK
                }
                index += 1 + length
            }
            return SSL_TLSEXT_ERR_NOACK
        }, nil)
        return tls
    }

    /// A client context offering ALPN `h2`, verifying the server's certificate chain and host name against the
    /// system trust store, or only against `trustedCAPath` (a PEM file, e.g. mock-apns's `ca.pem`) when given.
    /// - Throws: ``HTTP2TransportError`` `.tls` when the CA file cannot be loaded.
    package static func client(trustedCAPath: String? = nil) throws -> TLSContext {
        let tls = try TLSContext(method: TLS_client_method(), role: .client)
        SSL_CTX_set_verify(tls.context, SSL_VERIFY_PEER, nil)
        if let trustedCAPath {
            guard SSL_CTX_load_verify_locations(tls.context, trustedCAPath, nil) == 1 else {
                throw HTTP2TransportError(.tls, "cannot load CA certificate \(trustedCAPath): \(openSSLErrors())")
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(tls.context)
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(tls.context, alpn, UInt32(alpn.count))
        return tls
    }

    deinit { SSL_CTX_free(context) }
}
