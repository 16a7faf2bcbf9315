import ActivityPushHTTP2
import ActivityPushCore
import COpenSSL
import Foundation

/// Checks `authorization: bearer <JWT>` the way APNs does for token-based connections
/// (Apple, "Establishing a token-based connection to APNs"): `alg` ES256, `kid` = the key's 10-character ID,
/// `iss` = Team ID, `iat` (UNIX seconds) no older than one hour, ES256 signature valid for the `.p8` key.
///
/// Thread-safety: not `Sendable`; it lives inside the mock's locked memory (`MockAPNsMemory`) and is used
/// under that lock only.
final class ProviderTokenVerifier {
    enum Verdict: Equatable {
        case valid(issuedAt: Double)
        case invalid(APNsReason)
    }

    private let key: OpaquePointer
    let keyID: String
    let teamID: String

    /// Reads a PKCS#8 PEM `.p8` (what Apple's developer site hands out).
    init(keyPath: String, keyID: String, teamID: String) throws {
        guard let bio = BIO_new_file(keyPath, "r") else {
            throw MockAPNsError.authKey("cannot open --auth-key \(keyPath): \(String(cString: strerror(errno)))")
        }
        defer { BIO_free_all(bio) }
        guard let privateKey = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            throw MockAPNsError.authKey("--auth-key \(keyPath) is not a PEM private key (\(openSSLErrors())); expected the AuthKey_<KEYID>.p8 file from developer.apple.com")
        }
        guard EVP_PKEY_get_base_id(privateKey) == EVP_PKEY_EC, EVP_PKEY_get_bits(privateKey) == 256 else {
            EVP_PKEY_free(privateKey)
            throw MockAPNsError.authKey("--auth-key \(keyPath) is not a P-256 EC key; APNs provider keys are ES256")
        }
        key = privateKey
        self.keyID = keyID
        self.teamID = teamID
    }

    deinit { EVP_PKEY_free(key) }

    /// Judges a JWT (without the `bearer ` prefix) at `now` (UNIX seconds).
    func verify(_ jwt: String, now: Double) -> Verdict {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = base64URLDecode(parts[0]), let claimBytes = base64URLDecode(parts[1]),
              let signature = base64URLDecode(parts[2]) else { return .invalid(.invalidProviderToken) }
        let header = JSONReader.read(headerBytes)
        let claims = JSONReader.read(claimBytes)
        guard header.problems.isEmpty, claims.problems.isEmpty, let headerRoot = header.root, let claimsRoot = claims.root,
              headerRoot["alg"]?.value.stringValue == "ES256", headerRoot["kid"]?.value.stringValue == keyID,
              claimsRoot["iss"]?.value.stringValue == teamID,
              let iat = claimsRoot["iat"]?.value.numberValue?.doubleValue, iat.isFinite else { return .invalid(.invalidProviderToken) }
        guard signature.count == 64 else { return .invalid(.invalidProviderToken) }
        let signed = Array((parts[0] + "." + parts[1]).utf8)
        guard verifySignature(message: signed, rawSignature: signature) else { return .invalid(.invalidProviderToken) }
        if now - iat > 3600 { return .invalid(.expiredProviderToken) }
        // Issued in the future (a clock ahead, or milliseconds from Date.now()): such a token would never expire.
        if iat - now > 300 { return .invalid(.invalidProviderToken) }
        return .valid(issuedAt: iat)
    }

    /// JOSE ES256 signature (r‖s, 32 bytes each) → DER → EVP_DigestVerify with SHA-256.
    private func verifySignature(message: [UInt8], rawSignature: [UInt8]) -> Bool {
        guard let ecsig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(ecsig) }
        guard let r = BN_bin2bn(rawSignature, 32, nil) else { return false }
        guard let s = rawSignature.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else { BN_free(r); return false }
        guard ECDSA_SIG_set0(ecsig, r, s) == 1 else { BN_free(r); BN_free(s); return false }
        var der: UnsafeMutablePointer<UInt8>?
        let derLen = i2d_ECDSA_SIG(ecsig, &der)
        guard derLen > 0, let der else { return false }
        defer { CRYPTO_free(der, #file, #line) }
        guard let digest = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(digest) }
        guard EVP_DigestVerifyInit(digest, nil, EVP_sha256(), nil, key) == 1 else { ERR_clear_error(); return false }
        let ok = EVP_DigestVerify(digest, der, Int(derLen), message, message.count) == 1
        ERR_clear_error()
        return ok
    }
}

/// Signs an ES256 provider token with a P-256 key (used by tests; APNs clients have their own signer).
enum ProviderTokenSigner {
    static func sign(keyPath: String, keyID: String, teamID: String, issuedAt: Int) throws -> String {
        guard let bio = BIO_new_file(keyPath, "r") else { throw MockAPNsError.authKey("cannot open \(keyPath)") }
        defer { BIO_free_all(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw MockAPNsError.authKey("not a PEM key: \(keyPath)") }
        defer { EVP_PKEY_free(key) }
        let header = base64URLEncode(Array("{\"alg\":\"ES256\",\"kid\":\"\(keyID)\"}".utf8))
        let claims = base64URLEncode(Array("{\"iss\":\"\(teamID)\",\"iat\":\(issuedAt)}".utf8))
        let message = Array((header + "." + claims).utf8)
        guard let md = EVP_MD_CTX_new() else { throw MockAPNsError.authKey("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(md) }
        var len = 0
        guard EVP_DigestSignInit(md, nil, EVP_sha256(), nil, key) == 1,
              EVP_DigestSign(md, nil, &len, message, message.count) == 1 else { throw MockAPNsError.authKey(openSSLErrors()) }
        var der = [UInt8](repeating: 0, count: len)
        guard EVP_DigestSign(md, &der, &len, message, message.count) == 1 else { throw MockAPNsError.authKey(openSSLErrors()) }
        var p: UnsafePointer<UInt8>?   // set inside the closure below: d2i_ECDSA_SIG advances it
        let raw: [UInt8] = try der.withUnsafeBufferPointer { buf in
            p = buf.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &p, len) else { throw MockAPNsError.authKey("bad DER signature") }
            defer { ECDSA_SIG_free(sig) }
            var out = [UInt8](repeating: 0, count: 64)
            out.withUnsafeMutableBufferPointer { output in
                _ = BN_bn2binpad(ECDSA_SIG_get0_r(sig), output.baseAddress, 32)
                _ = BN_bn2binpad(ECDSA_SIG_get0_s(sig), output.baseAddress! + 32, 32)
            }
            return out
        }
        return header + "." + claims + "." + base64URLEncode(raw)
    }
}

func base64URLDecode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard).map { [UInt8]($0) }
}

func base64URLEncode(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
