import COpenSSL
import Foundation
import XCTest

/// Test keys made with OpenSSL at run time (no key material is checked in).
enum TestKeys {
    /// A fresh key on the named group ("P-256", "P-384"), as an owned EVP_PKEY.
    static func generate(group: String = "P-256") -> OpaquePointer {
        let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)!
        defer { EVP_PKEY_CTX_free(ctx) }
        precondition(EVP_PKEY_keygen_init(ctx) == 1)
        precondition(EVP_PKEY_CTX_set_group_name(ctx, group) == 1)
        var key: OpaquePointer?
        precondition(EVP_PKEY_generate(ctx, &key) == 1)
        return key!
    }

    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the format of Apple's `.p8`.
    static func pkcs8PEM(_ key: OpaquePointer) -> [UInt8] {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 512)
        while true {
            let n = BIO_read(bio, &buf, Int32(buf.count))
            if n <= 0 { break }
            out += buf[0..<Int(n)]
        }
        return out
    }

    /// Writes a new P-256 `.p8` to a temporary file with the given mode; returns its path and the key.
    static func p8File(mode: Int = 0o600, group: String = "P-256") throws -> (String, OpaquePointer) {
        let key = generate(group: group)
        let path = NSTemporaryDirectory() + "AuthKey_TEST\(UInt32.random(in: 0...UInt32.max)).p8"
        try Data(pkcs8PEM(key)).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return (path, key)
    }

    /// Verifies an ES256 JWT with OpenSSL: raw r‖s → DER ECDSA_SIG → EVP_DigestVerify with the key's public half.
    static func verify(jwt: String, key: OpaquePointer) -> Bool {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let raw = base64url(parts[2]), raw.count == 64 else { return false }
        let sig = ECDSA_SIG_new()!
        defer { ECDSA_SIG_free(sig) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { return false }
        var derPtr: UnsafeMutablePointer<UInt8>?
        let derLen = i2d_ECDSA_SIG(sig, &derPtr)
        guard derLen > 0, let derPtr else { return false }
        defer { CRYPTO_free(derPtr, #file, #line) }
        let ctx = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let input = Array((parts[0] + "." + parts[1]).utf8)
        return EVP_DigestVerify(ctx, derPtr, Int(derLen), input, input.count) == 1
    }

    static func base64url(_ s: String) -> [UInt8]? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return Data(base64Encoded: t).map { [UInt8]($0) }
    }

    static func json(_ part: String) -> [String: Any]? {
        base64url(part).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}
