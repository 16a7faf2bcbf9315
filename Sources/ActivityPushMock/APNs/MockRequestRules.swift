import ActivityPushCore
import Foundation

/// APNs's request-shape rules and small helpers the endpoints share (pure functions, no state).
enum MockRequestRules {
    /// Largest bodies APNs accepts (spec §3).
    static let deviceBodyLimit = APNsLimits.deviceBodyBytes
    static let broadcastBodyLimit = APNsLimits.broadcastBodyBytes

    /// Even number of hex digits, 64 to 200 (push-to-start tokens are longer than 64).
    static func isDeviceToken(_ token: String) -> Bool {
        (64...200).contains(token.utf8.count) && DeviceToken.isHex(token)
    }

    /// Canonical 8-4-4-4-12 hex UUID.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != 45 { return false }
                continue
            }
            let hex = (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) || (byte >= 65 && byte <= 70)
            if !hex { return false }
        }
        return true
    }

    static func isBase64(_ text: String) -> Bool { text.count <= 256 && Data(base64Encoded: text) != nil }

    /// Letters, digits, `.`, `-`, `_` (ASCII), 1 to 255 bytes.
    static func isBundleID(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= 255 && bytes.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 46 || $0 == 45 || $0 == 95
        }
    }

    /// A random (version 4) UUID, lowercase. Built from the system random generator directly: Foundation's
    /// `UUID()` opens /dev/urandom per call on Linux, which showed up as the top system cost under load.
    static func newUUID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * index))
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(45) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An `apns-*` header or `authorization` given twice.
    static func duplicatedHeader(_ request: MockRequest) -> String? {
        var seen = Set<String>()
        for header in request.headers where header.name.hasPrefix("apns-") || header.name == "authorization" {
            if !seen.insert(header.name).inserted { return header.name }
        }
        return nil
    }

    /// Every header but `authorization`, for the journal.
    static func journalHeaders(_ request: MockRequest) -> APNsHeaders {
        var headers = APNsHeaders()
        for field in request.headers where field.name != "authorization" { headers[field.name] = field.value }
        return headers
    }

    /// The `apns-*` headers, for the device emulator.
    static func apnsHeaders(_ request: MockRequest) -> APNsHeaders {
        var headers = APNsHeaders()
        for field in request.headers where field.name.hasPrefix("apns-") { headers[field.name] = field.value }
        return headers
    }

    /// The `reason` of an error body.
    static func reason(in body: [UInt8]) -> String? {
        JSONReader.read(body).root?["reason"]?.value.stringValue
    }
}
