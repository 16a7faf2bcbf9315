import COpenSSL
import Foundation
import Synchronization

/// An APNs provider token (JWT, ES256) signed with the team's `.p8` key, cached and refreshed.
///
/// Header `{"alg":"ES256","kid":<Key ID>}`, claims `{"iss":<Team ID>,"iat":<UNIX seconds>}`, signature the raw
/// 64-byte `r‖s` (not DER), every part base64url without padding. Source: Apple, "Establishing a token-based
/// connection to APNs" (spec §2.5): refresh no more than once per 20 minutes and no less than once per 60.
///
/// The cached token is re-signed when older than ``refreshAfterSeconds`` (default 50 min, clamped to
/// 20–59 min); ``invalidate(_:)`` re-signs once after `403 ExpiredProviderToken`. The key bytes and tokens are
/// never logged or printed; ``description`` shows only the key id and team id.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is immutable after loading and OpenSSL 3 allows concurrent signing with
/// one key from several threads; the only mutable state (the cached token) is inside a `Mutex`.
public final class ProviderToken: @unchecked Sendable, CustomStringConvertible {
    /// 10-character Key ID of the `.p8` key (JWT header `kid`).
    public let keyID: String
    /// 10-character Team ID (JWT claim `iss`).
    public let teamID: String
    /// Age in seconds after which the cached token is re-signed (1200…3540).
    public let refreshAfterSeconds: Double
    /// A warning about the key file (readable by group/others), nil when none. Never contains key bytes.
    public let keyFileWarning: String?

    private let key: OpaquePointer
    private let clock: @Sendable () -> Double
    private struct Cached { var token: String; var issuedAt: Double; var signings: Int }
    private let cache = Mutex<Cached?>(nil)

    /// Loads an Apple `.p8` key (PKCS#8 PEM, EC P-256) from a file.
    /// - Parameters:
    ///   - refreshAfterSeconds: token age that triggers a re-sign; clamped to 20–59 minutes.
    ///   - clock: UNIX seconds now; tests pass their own.
    /// - Throws: ``ProviderTokenError`` naming the file when it cannot be read, is not PEM PKCS#8, or is not a P-256 key.
    public convenience init(keyFile path: String, keyID: String, teamID: String, refreshAfterSeconds: Double = 3000,
                            clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProviderTokenError(.unreadableKeyFile, source: path, "cannot read the key file",
                                     fix: "check that it exists and that this user may read it")
        }
        var warning: String?
        if let attrs = try? FileManager.default.attributesOfItem(atPath: path),
           let perms = (attrs[.posixPermissions] as? NSNumber)?.intValue, perms & 0o077 != 0 {
            warning = "\(path) is readable by group or others (mode \(String(perms, radix: 8))); run: chmod 600 \(path)"
        }
        try self.init(pem: [UInt8](data), source: path, keyID: keyID, teamID: teamID,
                      refreshAfterSeconds: refreshAfterSeconds, clock: clock, warning: warning)
    }

    /// Loads the key from PEM bytes (`-----BEGIN PRIVATE KEY-----`, as Apple ships it), e.g. a key read from a
    /// secret store rather than a file.
    /// - Parameters:
    ///   - refreshAfterSeconds: token age that triggers a re-sign; clamped to 20–59 minutes.
    ///   - clock: UNIX seconds now; tests pass their own.
    /// - Throws: ``ProviderTokenError`` when the key or team id is not alphanumeric, the bytes are not PEM
    ///   PKCS#8, or the key is not EC P-256.
    public convenience init(pem: [UInt8], keyID: String, teamID: String, refreshAfterSeconds: Double = 3000,
                            clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        try self.init(pem: pem, source: "key", keyID: keyID, teamID: teamID, refreshAfterSeconds: refreshAfterSeconds,
                      clock: clock, warning: nil)
    }

    private init(pem: [UInt8], source: String, keyID: String, teamID: String, refreshAfterSeconds: Double,
                 clock: @escaping @Sendable () -> Double, warning: String?) throws {
        guard !keyID.isEmpty, keyID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ProviderTokenError(.badKeyID, field: "key-id", "key id '\(keyID)' is not a Key ID (letters and digits only)",
                                     fix: "give the 10-character Key ID shown with the key (e.g. ABC123DEFG)")
        }
        guard !teamID.isEmpty, teamID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ProviderTokenError(.badTeamID, field: "team-id", "team id '\(teamID)' is not a Team ID (letters and digits only)",
                                     fix: "give the 10-character Team ID (Membership details)")
        }
        let text = String(decoding: pem, as: UTF8.self)
        guard text.contains("-----BEGIN PRIVATE KEY-----") else {
            throw ProviderTokenError(.notPKCS8, source: source, "not a PEM PKCS#8 private key",
                                     fix: "give Apple's AuthKey_<KeyID>.p8 as downloaded (it starts '-----BEGIN PRIVATE KEY-----')")
        }
        let pkey: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let pkey else { throw ProviderTokenError(.unparsableKey, source: source, "the PEM private key cannot be parsed",
                                                       fix: "download the .p8 key again from developer.apple.com") }
        guard EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC, EVP_PKEY_get_bits(pkey) == 256 else {
            EVP_PKEY_free(pkey)
            throw ProviderTokenError(.notP256, source: source, "not an EC P-256 key",
                                     fix: "APNs tokens need the ES256 .p8 key from developer.apple.com")
        }
        self.key = pkey
        self.keyID = keyID
        self.teamID = teamID
        self.refreshAfterSeconds = min(max(refreshAfterSeconds, 1200), 3540)
        self.clock = clock
        self.keyFileWarning = warning
    }

    deinit { EVP_PKEY_free(key) }

    /// `ProviderToken(kid: <Key ID>, iss: <Team ID>)`: no key bytes, no token.
    public var description: String { "ProviderToken(kid: \(keyID), iss: \(teamID))" }

    /// The current token, re-signed when the cached one is older than ``refreshAfterSeconds``.
    /// - Throws: ``ProviderTokenError`` when signing fails (never for a key that loaded).
    public func current() throws -> String {
        let now = clock()
        if let c = cache.withLock({ $0 }), now - c.issuedAt < refreshAfterSeconds, now >= c.issuedAt { return c.token }
        return try resign(ifStill: nil, now: now)
    }

    /// Re-signs after APNs rejected `rejected` with `ExpiredProviderToken`. When another caller already replaced
    /// that token, the newer one is returned without signing again (one re-sign per rejected token).
    /// - Throws: ``ProviderTokenError`` when signing fails (never for a key that loaded).
    public func invalidate(_ rejected: String) throws -> String {
        try resign(ifStill: rejected, now: clock())
    }

    /// How many times a token was signed (for tests and metrics).
    public var signings: Int { cache.withLock { $0?.signings ?? 0 } }

    /// `iat` of the cached token, UNIX seconds.
    public var issuedAt: Double? { cache.withLock { $0?.issuedAt } }

    private func resign(ifStill rejected: String?, now: Double) throws -> String {
        // Signing happens outside the lock; the lock only decides who stores.
        let iat = Int64(now)
        let token = try sign(issuedAt: iat)
        return cache.withLock { c -> String in
            if let r = rejected, let existing = c, existing.token != r { return existing.token }
            if rejected == nil, let existing = c, now - existing.issuedAt < refreshAfterSeconds, now >= existing.issuedAt {
                return existing.token
            }
            c = Cached(token: token, issuedAt: Double(iat), signings: (c?.signings ?? 0) + 1)
            return token
        }
    }

    /// Signs a token with the given `iat` (UNIX seconds). Not cached, not counted in ``signings``.
    /// - Throws: ``ProviderTokenError`` when OpenSSL fails to sign (never for a key that loaded).
    public func sign(issuedAt iat: Int64) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(iat)}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let sig = try es256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(sig)
    }

    /// ECDSA P-256 over SHA-256, returned as raw r‖s (32 + 32 bytes) as JWS requires (RFC 7518 §3.4).
    private func es256(_ message: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw ProviderTokenError(.signingFailed, "OpenSSL: out of memory") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error(); throw ProviderTokenError(.signingFailed, "OpenSSL: cannot start ES256 signing")
        }
        var derLen = 0
        guard EVP_DigestSign(ctx, nil, &derLen, message, message.count) == 1 else {
            ERR_clear_error(); throw ProviderTokenError(.signingFailed, "OpenSSL: ES256 signing failed")
        }
        var der = [UInt8](repeating: 0, count: derLen)
        guard EVP_DigestSign(ctx, &der, &derLen, message, message.count) == 1 else {
            ERR_clear_error(); throw ProviderTokenError(.signingFailed, "OpenSSL: ES256 signing failed")
        }
        let ecsig: OpaquePointer? = der.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            return d2i_ECDSA_SIG(nil, &p, derLen)
        }
        guard let ecsig else { throw ProviderTokenError(.signingFailed, "OpenSSL: cannot decode the ECDSA signature") }
        defer { ECDSA_SIG_free(ecsig) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(ecsig, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { b -> Bool in
            BN_bn2binpad(r, b.baseAddress, 32) == 32 && BN_bn2binpad(s, b.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw ProviderTokenError(.signingFailed, "OpenSSL: ECDSA r or s does not fit 32 bytes") }
        return raw
    }
}

/// base64url without padding (RFC 4648 §5), as JWS uses. Package-only: the token and the tests use it.
package enum Base64URL {
    /// The bytes as base64url (`-` and `_` for `+` and `/`), without `=` padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; nil when not valid.
    package static func decode(_ text: String) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }
}
