import COpenSSL

/// The client side of TLS (OpenSSL): TLS 1.2+, peer verification against the system store or a CA file,
/// ALPN offering `h2` only (APNs speaks HTTP/2 only). Host names are checked per connection
/// (``makeSession(fd:host:)``: SNI and `SSL_set1_host`).
///
/// Created and used on the client's loop thread only.
final class ClientTLSContext {
    let context: OpaquePointer

    /// - Throws: ``HTTP2ClientError`` (``HTTP2ClientError/Kind/badCAFile``) naming the CA file when it cannot be loaded.
    init(caFile: String?) throws(HTTP2ClientError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTP2ClientError(.tls, "OpenSSL: SSL_CTX_new failed: \(openSSLErrors())")
        }
        self.context = context
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE,
                         Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS), nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                // No SSL_CTX_free here: every stored property is set, so `deinit` runs and frees the context
                // (freeing it here too was a double free — SIGABRT for a garbage, empty or key-only --ca-file).
                throw HTTP2ClientError(.badCAFile, setting: caFile, "\(caFile): cannot load the CA file: \(openSSLErrors())",
                                       fix: "give a file of PEM certificates (-----BEGIN CERTIFICATE-----)")
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(context)
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
    }

    /// A client `SSL` on `fd` for `host`: SNI (not for IP literals) and host-name verification.
    func makeSession(fd: Int32, host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress {
            _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
            _ = SSL_set1_host(ssl, host)
        } else {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        }
        return ssl
    }

    deinit { SSL_CTX_free(context) }
}

