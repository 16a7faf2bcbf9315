@testable import ActivityPushAPNs
import COpenSSL
import Foundation
import Synchronization
import XCTest

final class ProviderTokenTests: XCTestCase {
    func testTokenHasES256HeaderClaimsAndVerifiesWithOpenSSL() throws {
        let (path, key) = try TestKeys.p8File()
        defer { EVP_PKEY_free(key); try? FileManager.default.removeItem(atPath: path) }
        let token = try ProviderToken(keyFile: path, keyID: "ABC123DEFG", teamID: "TEAMID1234", clock: { 1_700_000_000 })
        XCTAssertNil(token.keyFileWarning)
        let jwt = try token.current()
        let parts = jwt.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3)
        XCTAssertFalse(jwt.contains("="), "base64url without padding")
        let header = try XCTUnwrap(TestKeys.json(parts[0]))
        XCTAssertEqual(header["alg"] as? String, "ES256")
        XCTAssertEqual(header["kid"] as? String, "ABC123DEFG")
        let claims = try XCTUnwrap(TestKeys.json(parts[1]))
        XCTAssertEqual(claims["iss"] as? String, "TEAMID1234")
        XCTAssertEqual((claims["iat"] as? NSNumber)?.int64Value, 1_700_000_000)
        XCTAssertEqual(TestKeys.base64url(parts[2])?.count, 64, "raw r‖s, not DER")
        XCTAssertTrue(TestKeys.verify(jwt: jwt, key: key))
        // A tampered claim no longer verifies: the check above is a real verification.
        let forged = parts[0] + "." + Base64URL.encode(Array(#"{"iss":"OTHERTEAM1","iat":1700000000}"#.utf8)) + "." + parts[2]
        XCTAssertFalse(TestKeys.verify(jwt: forged, key: key))
        // Another key does not verify it either.
        let other = TestKeys.generate()
        defer { EVP_PKEY_free(other) }
        XCTAssertFalse(TestKeys.verify(jwt: jwt, key: other))
    }

    func testManySignaturesAllVerify() throws {
        // r or s with leading zero bytes must still be padded to 32 bytes each.
        let key = TestKeys.generate()
        defer { EVP_PKEY_free(key) }
        let token = try ProviderToken(pem: TestKeys.pkcs8PEM(key), keyID: "ABC123DEFG", teamID: "TEAMID1234")
        for i in 0..<300 {
            XCTAssertTrue(TestKeys.verify(jwt: try token.sign(issuedAt: 1_700_000_000 + Int64(i)), key: key))
        }
    }

    func testCachedThenResignedAfterRefreshAge() throws {
        let key = TestKeys.generate()
        defer { EVP_PKEY_free(key) }
        let now = Mutex<Double>(1_700_000_000)
        let token = try ProviderToken(pem: TestKeys.pkcs8PEM(key), keyID: "ABC123DEFG", teamID: "TEAMID1234",
                                      refreshAfterSeconds: 50 * 60, clock: { now.withLock { $0 } })
        let first = try token.current()
        now.withLock { $0 += 19 * 60 }
        XCTAssertEqual(try token.current(), first, "never re-signed within 20 minutes")
        now.withLock { $0 += 30 * 60 }
        XCTAssertEqual(try token.current(), first, "49 minutes old: still cached")
        now.withLock { $0 += 2 * 60 }
        let second = try token.current()
        XCTAssertNotEqual(second, first, "51 minutes old: re-signed before the 60-minute expiry")
        XCTAssertEqual(token.signings, 2)
        XCTAssertEqual(token.issuedAt, 1_700_000_000 + 51 * 60)
    }

    func testRefreshAgeIsClampedBetween20And60Minutes() throws {
        let key = TestKeys.generate()
        defer { EVP_PKEY_free(key) }
        let pem = TestKeys.pkcs8PEM(key)
        XCTAssertEqual(try ProviderToken(pem: pem, keyID: "K", teamID: "T", refreshAfterSeconds: 60).refreshAfterSeconds, 1200)
        XCTAssertEqual(try ProviderToken(pem: pem, keyID: "K", teamID: "T", refreshAfterSeconds: 7200).refreshAfterSeconds, 3540)
    }

    func testInvalidateResignsOncePerRejectedToken() throws {
        let key = TestKeys.generate()
        defer { EVP_PKEY_free(key) }
        let now = Mutex<Double>(1_700_000_000)
        let token = try ProviderToken(pem: TestKeys.pkcs8PEM(key), keyID: "ABC123DEFG", teamID: "TEAMID1234",
                                      clock: { now.withLock { $0 } })
        let rejected = try token.current()
        now.withLock { $0 += 5 }
        let a = try token.invalidate(rejected)
        let b = try token.invalidate(rejected)   // a second 403 for the same old token
        XCTAssertNotEqual(a, rejected)
        XCTAssertEqual(a, b, "the second rejection of the same token reuses the fresh one")
        XCTAssertEqual(token.signings, 2)
        XCTAssertTrue(TestKeys.verify(jwt: a, key: key))
    }

    func testWarnsWhenKeyFileIsGroupOrOtherReadable() throws {
        let (path, key) = try TestKeys.p8File(mode: 0o644)
        defer { EVP_PKEY_free(key); try? FileManager.default.removeItem(atPath: path) }
        let token = try ProviderToken(keyFile: path, keyID: "ABC123DEFG", teamID: "TEAMID1234")
        let warning = try XCTUnwrap(token.keyFileWarning)
        XCTAssertTrue(warning.contains("chmod 600"))
        XCTAssertFalse(warning.contains("PRIVATE KEY"))
        XCTAssertFalse(String(describing: token).contains("PRIVATE"))
    }

    /// Each refusal by kind and fields; one rendered message is checked to name the file and the fix.
    func testRefusesMissingFileNonPEMAndNonP256Keys() throws {
        func refusal(_ body: () throws -> ProviderToken) -> ProviderTokenError? {
            do { _ = try body(); return nil } catch { return error as? ProviderTokenError }
        }
        let missing = refusal { try ProviderToken(keyFile: "/nonexistent/AuthKey.p8", keyID: "ABC123DEFG", teamID: "TEAMID1234") }
        XCTAssertEqual(missing?.kind, .unreadableKeyFile)
        XCTAssertEqual(missing?.source, "/nonexistent/AuthKey.p8")
        XCTAssertEqual(missing?.description,
                       "/nonexistent/AuthKey.p8: cannot read the key file; check that it exists and that this user may read it")
        let notPEM = refusal { try ProviderToken(pem: Array("hello".utf8), keyID: "ABC123DEFG", teamID: "TEAMID1234") }
        XCTAssertEqual(notPEM?.kind, .notPKCS8)
        XCTAssertEqual(notPEM?.source, "key")
        let p384 = TestKeys.generate(group: "P-384")
        defer { EVP_PKEY_free(p384) }
        XCTAssertEqual(refusal { try ProviderToken(pem: TestKeys.pkcs8PEM(p384), keyID: "ABC123DEFG", teamID: "TEAMID1234") }?.kind,
                       .notP256)
        let key = TestKeys.generate()
        defer { EVP_PKEY_free(key) }
        let badKeyID = refusal { try ProviderToken(pem: TestKeys.pkcs8PEM(key), keyID: "ABC 123", teamID: "TEAMID1234") }
        XCTAssertEqual(badKeyID?.kind, .badKeyID)
        XCTAssertEqual(badKeyID?.field, "key-id")
        XCTAssertNil(badKeyID?.source)
        let badTeamID = refusal { try ProviderToken(pem: TestKeys.pkcs8PEM(key), keyID: "ABC123DEFG", teamID: "") }
        XCTAssertEqual(badTeamID?.kind, .badTeamID)
        XCTAssertEqual(badTeamID?.field, "team-id")
    }
}
