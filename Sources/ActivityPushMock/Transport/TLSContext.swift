import COpenSSL
import Foundation

/// The server side of TLS (OpenSSL): certificate, key, TLS 1.2+, ALPN `h2`.
/// Thread-safety: an `SSL_CTX` is immutable after setup and OpenSSL allows creating `SSL` objects from it on any
/// thread, so the wrapper is `@unchecked Sendable`.
final class TLSContext: @unchecked Sendable {
    let ctx: OpaquePointer

    init(certificatePath: String, keyPath: String) throws {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw MockAPNsError.tls("SSL_CTX_new failed: \(openSSLErrors())") }
        self.ctx = ctx
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_MODE,
                         Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS), nil)
        guard SSL_CTX_use_certificate_chain_file(ctx, certificatePath) == 1 else {
            throw MockAPNsError.tls("cannot load certificate \(certificatePath): \(openSSLErrors())")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, keyPath, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            throw MockAPNsError.tls("cannot load private key \(keyPath) (or it does not match the certificate): \(openSSLErrors())")
        }
        // ALPN: pick "h2" from the client's list; no h2 → no ALPN answer (the HTTP/2 session then rejects HTTP/1).
        SSL_CTX_set_alpn_select_cb(ctx, { _, out, outlen, input, inlen, _ in
            guard let out, let outlen, let input else { return SSL_TLSEXT_ERR_NOACK }
            var i = 0
            let n = Int(inlen)
            while i < n {
                let len = Int(input[i])
                if len == 2, i + 2 < n, input[i + 1] == UInt8(ascii: "h"), input[i + 2] == UInt8(ascii: "2") {
                    out.pointee = input + i + 1
                    outlen.pointee = 2
                    return SSL_TLSEXT_ERR_OK
                }
                i += 1 + len
            }
            return SSL_TLSEXT_ERR_NOACK
        }, nil)
    }

    deinit { SSL_CTX_free(ctx) }
}

/// The queued OpenSSL error strings, joined (empties the queue).
func openSSLErrors() -> String {
    var parts: [String] = []
    while true {
        let e = ERR_get_error()
        if e == 0 { break }
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(e, &buf, buf.count)
        parts.append(String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.isEmpty ? "no OpenSSL error" : parts.joined(separator: "; ")
}
