import ActivityPushHTTP2
import COpenSSL
import Foundation

/// The mock's TLS files in one directory: `ca.pem` (trust this one), `server.pem`, `server-key.pem`.
/// Generated with OpenSSL (P-256 keys, SHA-256 signatures, server certificate for `localhost` and
/// `127.0.0.1`/`::1` with subjectAltName, valid 825 days) when any is missing, reused when all are present.
enum CertificateFactory {
    struct Files {
        var caPath: String
        var certificatePath: String
        var keyPath: String
    }

    static func ensure(directory: String) throws -> Files {
        let dir = URL(fileURLWithPath: directory)
        let files = Files(caPath: dir.appendingPathComponent("ca.pem").path,
                          certificatePath: dir.appendingPathComponent("server.pem").path,
                          keyPath: dir.appendingPathComponent("server-key.pem").path)
        let fm = FileManager.default
        if fm.fileExists(atPath: files.caPath), fm.fileExists(atPath: files.certificatePath), fm.fileExists(atPath: files.keyPath) {
            return files
        }
        do {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw MockAPNsError.tls("cannot create --tls-dir \(directory): \(error.localizedDescription)")
        }
        let caKey = try generateKey()
        defer { EVP_PKEY_free(caKey) }
        let ca = try makeCertificate(subjectCN: "ActivityPush mock-apns CA", publicKey: caKey, issuer: nil, signingKey: caKey,
                                     extensions: [(NID_basic_constraints, "critical,CA:TRUE"),
                                                  (NID_key_usage, "critical,keyCertSign,cRLSign"),
                                                  (NID_subject_key_identifier, "hash")])
        defer { X509_free(ca) }
        let serverKey = try generateKey()
        defer { EVP_PKEY_free(serverKey) }
        let server = try makeCertificate(subjectCN: "localhost", publicKey: serverKey, issuer: ca, signingKey: caKey,
                                         extensions: [(NID_basic_constraints, "critical,CA:FALSE"),
                                                      (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
                                                      (NID_ext_key_usage, "serverAuth"),
                                                      (NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1"),
                                                      (NID_authority_key_identifier, "keyid:always")])
        defer { X509_free(server) }
        // Write to temporary names, then rename: a crash never leaves a half-written set that would be "reused".
        try writePEM(path: files.caPath) { PEM_write_bio_X509($0, ca) }
        try writePEM(path: files.keyPath, mode: 0o600) { PEM_write_bio_PrivateKey($0, serverKey, nil, nil, 0, nil, nil) }
        try writePEM(path: files.certificatePath) { PEM_write_bio_X509($0, server) }
        return files
    }

    /// A new P-256 key (the caller frees it).
    static func generateKey() throws -> OpaquePointer {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw MockAPNsError.tls("EC key context: \(openSSLErrors())") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
              EVP_PKEY_generate(ctx, &key) == 1, let key else {
            throw MockAPNsError.tls("P-256 key generation failed: \(openSSLErrors())")
        }
        return key
    }

    private static func makeCertificate(subjectCN: String, publicKey: OpaquePointer, issuer: OpaquePointer?,
                                        signingKey: OpaquePointer, extensions: [(Int32, String)]) throws -> OpaquePointer {
        guard let x = X509_new() else { throw MockAPNsError.tls("X509_new: \(openSSLErrors())") }
        var ok = X509_set_version(x, 2) == 1
        var serial = [UInt8](repeating: 0, count: 16)
        _ = RAND_bytes(&serial, 16)
        serial[0] &= 0x7f
        if let bn = BN_bin2bn(serial, 16, nil) {
            ok = ok && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != nil
            BN_free(bn)
        }
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(x), -3600) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(x), 825 * 24 * 3600) != nil
        ok = ok && X509_set_pubkey(x, publicKey) == 1
        let name = X509_get_subject_name(x)
        ok = ok && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "ActivityPush mock-apns", -1, -1, 0) == 1
        ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, subjectCN, -1, -1, 0) == 1
        ok = ok && X509_set_issuer_name(x, issuer.map { X509_get_subject_name($0) } ?? name) == 1
        var v3 = X509V3_CTX()
        X509V3_set_ctx(&v3, issuer ?? x, x, nil, nil, 0)
        for (nid, value) in extensions where ok {
            guard let ext = X509V3_EXT_conf_nid(nil, &v3, nid, value) else { ok = false; break }
            ok = X509_add_ext(x, ext, -1) == 1
            X509_EXTENSION_free(ext)
        }
        ok = ok && X509_sign(x, signingKey, EVP_sha256()) > 0
        guard ok else {
            X509_free(x)
            throw MockAPNsError.tls("building the \(subjectCN) certificate failed: \(openSSLErrors())")
        }
        return x
    }

    private static func writePEM(path: String, mode: Int = 0o644, _ write: (OpaquePointer) -> Int32) throws {
        let tmp = path + ".tmp-\(getpid())"
        guard let bio = BIO_new_file(tmp, "w") else {
            throw MockAPNsError.tls("cannot write \(tmp): \(openSSLErrors()); check that --tls-dir is writable")
        }
        let ok = write(bio) == 1
        BIO_free_all(bio)
        guard ok else {
            unlink(tmp)
            throw MockAPNsError.tls("cannot write \(path): \(openSSLErrors())")
        }
        chmod(tmp, mode_t(mode))
        guard rename(tmp, path) == 0 else {
            unlink(tmp)
            throw MockAPNsError.tls("cannot rename \(tmp) to \(path): \(String(cString: strerror(errno)))")
        }
    }
}
