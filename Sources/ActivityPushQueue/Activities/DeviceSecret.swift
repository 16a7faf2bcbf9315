import COpenSSL

/// The install secret that binds a deviceID to the app install that first registered it (issue 11 H2).
///
/// The intake token (`serve --intake-token`) ships in every app install, so it authenticates the app, not the
/// device. The app generates 32 random bytes at install, keeps them in the Keychain and sends them (hex or
/// base64) as `"deviceSecret"` with every `POST /v1/tokens`; the store keeps only their SHA-256
/// (`ap_la_device_secrets`). Decisions are plain values (``decide(stored:given:deviceHasTokens:)``), tested
/// without a database.
package enum DeviceSecret {
    /// Shortest and longest accepted secret, in characters (32 bytes are 64 hex or 44 base64 characters).
    package static let lengths = 16...200

    /// What a registration may do with its deviceID.
    package enum Decision: Equatable, Sendable {
        /// Store the hash: the first registration of this deviceID carried a secret.
        case bind(hash: String)
        /// The secret matches, or the device is open (never bound) and none is needed.
        case allow
        /// The device is bound and the secret is missing or wrong: 403.
        case refuse
    }

    /// - Parameters:
    ///   - stored: the device's stored SHA-256 (hex), nil when it is not bound.
    ///   - given: the secret of this post, if any.
    ///   - deviceHasTokens: the device already has tokens (registered without a secret: it stays open, so another
    ///     install cannot lock the first one out by binding it).
    package static func decide(stored: String?, given: String?, deviceHasTokens: Bool) -> Decision {
        if let stored {
            guard let given, constantTimeEqual(sha256Hex(given), stored) else { return .refuse }
            return .allow
        }
        guard let given, !deviceHasTokens else { return .allow }
        return .bind(hash: sha256Hex(given))
    }

    /// SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters (OpenSSL `SHA256`).
    package static func sha256Hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { buffer in SHA256(buffer.baseAddress, buffer.count, &digest) }
        return digest.map { byte in String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
    }

    private static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let (leftBytes, rightBytes) = (Array(left.utf8), Array(right.utf8))
        guard leftBytes.count == rightBytes.count else { return false }
        var difference: UInt8 = 0
        for index in leftBytes.indices { difference |= leftBytes[index] ^ rightBytes[index] }
        return difference == 0
    }
}
