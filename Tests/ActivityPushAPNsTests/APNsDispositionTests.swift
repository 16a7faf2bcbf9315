@testable import ActivityPushAPNs
import ActivityPushCore
import Foundation
import XCTest

final class APNsDispositionTests: XCTestCase {
    /// Every reason in spec §4.2 and §4.3 with its status and the class the table gives it.
    static let table: [(Int, String, APNsDisposition)] = [
        (400, "BadCollapseId", .fixRequest),
        (400, "BadDeviceToken", .dropToken),
        (400, "BadExpirationDate", .fixRequest),
        (400, "BadMessageId", .fixRequest),
        (400, "BadPriority", .fixRequest),
        (400, "BadTopic", .fixRequest),
        (400, "DeviceTokenNotForTopic", .dropToken),
        (400, "DuplicateHeaders", .fixRequest),
        (400, "IdleTimeout", .retry(afterSeconds: 0)),
        (400, "InvalidPushType", .fixRequest),
        (400, "MissingDeviceToken", .fixRequest),
        (400, "MissingTopic", .fixRequest),
        (400, "PayloadEmpty", .fixRequest),
        (400, "TopicDisallowed", .fixRequest),
        (400, "FeatureNotEnabled", .fixRequest),
        (400, "MissingChannelId", .fixRequest),
        (400, "BadChannelId", .fixRequest),
        (400, "ChannelNotRegistered", .fixRequest),
        (400, "BadRequestParams", .fixRequest),
        (400, "BadRequestPayload", .fixRequest),
        (400, "MissingPushType", .fixRequest),
        (400, "CannotCreateChannelConfig", .fixRequest),
        (403, "BadCertificate", .fixCredentials),
        (403, "BadCertificateEnvironment", .fixCredentials),
        (403, "ExpiredProviderToken", .fixCredentials),
        (403, "Forbidden", .fixRequest),  // Apple: never retry (spec §4.2); was fix-credentials
        (403, "InvalidProviderToken", .fixCredentials),
        (403, "MissingProviderToken", .fixCredentials),
        (403, "UnrelatedKeyIdInToken", .fixCredentials),
        (403, "BadEnvironmentKeyIdInToken", .fixCredentials),
        (403, "TopicMismatch", .fixCredentials),
        (404, "BadPath", .fixRequest),
        (405, "MethodNotAllowed", .fixRequest),
        (410, "ExpiredToken", .dropToken),
        (410, "Unregistered", .dropToken),
        (413, "PayloadTooLarge", .fixRequest),
        (429, "TooManyProviderTokenUpdates", .retry(afterSeconds: 60)),
        (429, "TooManyRequests", .retry(afterSeconds: 60)),
        (500, "InternalServerError", .retry(afterSeconds: 900)),
        (503, "ServiceUnavailable", .retry(afterSeconds: 900)),
        (503, "Service Unavailable", .retry(afterSeconds: 900)),
        (503, "Shutdown", .retry(afterSeconds: 900)),
    ]

    func testEveryDocumentedReasonIsClassifiedByTheTable() {
        for (status, reason, expected) in Self.table {
            XCTAssertEqual(APNsDisposition.classify(status: status, reason: APNsReason(rawValue: reason)), expected,
                           "\(status) \(reason)")
        }
    }

    func testDocumentedListHoldsExactlyTheSpecReasons() {
        XCTAssertEqual(Set(APNsReason.documented.map(\.rawValue)), Set(Self.table.map { $0.1 }))
        XCTAssertEqual(APNsReason.documented.count, Set(APNsReason.documented).count, "no duplicates")
    }

    func testSuccessAndUnknownReasonsFallBackToStatus() {
        XCTAssertEqual(APNsDisposition.classify(status: 200, reason: nil), .accepted)
        XCTAssertEqual(APNsDisposition.classify(status: 201, reason: nil), .accepted)
        XCTAssertEqual(APNsDisposition.classify(status: 400, reason: "SomethingNew"), .fixRequest)
        XCTAssertEqual(APNsDisposition.classify(status: 403, reason: "SomethingNew"), .fixCredentials)
        XCTAssertEqual(APNsDisposition.classify(status: 410, reason: nil), .dropToken)
        XCTAssertEqual(APNsDisposition.classify(status: 502, reason: nil), .retry(afterSeconds: 900))
        XCTAssertEqual(APNsDisposition.classify(status: 429, reason: nil), .retry(afterSeconds: 60))
    }

    func testRetryAfterAndConfigurableDelays() {
        let policy = APNsRetryPolicy(serverErrorDelaySeconds: 1800, tooManyRequestsDelaySeconds: 5, tokenUpdatesDelaySeconds: 7)
        XCTAssertEqual(APNsDisposition.classify(status: 429, reason: .tooManyRequests, retryAfterSeconds: 30, policy: policy),
                       .retry(afterSeconds: 30))
        XCTAssertEqual(APNsDisposition.classify(status: 429, reason: .tooManyRequests, policy: policy), .retry(afterSeconds: 5))
        XCTAssertEqual(APNsDisposition.classify(status: 429, reason: .tooManyProviderTokenUpdates, policy: policy),
                       .retry(afterSeconds: 7))
        XCTAssertEqual(APNsDisposition.classify(status: 503, reason: .shutdown, policy: policy), .retry(afterSeconds: 1800))
        // A Retry-After shorter than the 5xx floor does not shorten it; a longer one extends it.
        XCTAssertEqual(APNsDisposition.classify(status: 500, reason: nil, retryAfterSeconds: 10), .retry(afterSeconds: 900))
        XCTAssertEqual(APNsDisposition.classify(status: 500, reason: nil, retryAfterSeconds: 4000), .retry(afterSeconds: 4000))
        XCTAssertEqual(APNsDisposition.retry(afterSeconds: 0).name, "retry")
        XCTAssertEqual(APNsDisposition.dropToken.name, "drop-token")
    }

    func testTransportFailureIsRetry() {
        let r = APNsResult.failure(APNsTransportError(kind: .notSent, message: "refused"))
        XCTAssertEqual(r.disposition(), .retry(afterSeconds: 1))
    }

    func testResponseParsing() {
        let gone = APNsResponse(status: 410, headers: ["apns-id": "5f7a0c2e-0000-4000-8000-000000000001",
                                                       "apns-unique-id": "u-1"],
                                body: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8))
        XCTAssertEqual(gone.reason, .unregistered)
        XCTAssertEqual(gone.timestampMilliseconds, 1_700_000_000_123)
        XCTAssertEqual(gone.apnsID, "5f7a0c2e-0000-4000-8000-000000000001")
        XCTAssertEqual(gone.uniqueID, "u-1")
        XCTAssertFalse(gone.isSuccess)

        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let busy = APNsResponse(status: 429, headers: ["retry-after": "120"], body: Array(#"{"reason":"TooManyRequests"}"#.utf8), now: now)
        XCTAssertEqual(busy.retryAfterSeconds, 120)
        XCTAssertEqual(APNsResult.response(busy).disposition(), .retry(afterSeconds: 120))
        // HTTP-date form: 1700000060 is Tue, 14 Nov 2023 22:14:20 GMT.
        XCTAssertEqual(APNsResponse.parseRetryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now), 60)
        XCTAssertNil(APNsResponse.parseRetryAfter("soon", now: now))

        let garbage = APNsResponse(status: 500, headers: [:], body: Array("<html>oops".utf8))
        XCTAssertNil(garbage.reason)
        XCTAssertEqual(APNsResult.response(garbage).disposition(), .retry(afterSeconds: 900))
    }

    func testDeviceTokenMustBeHex() throws {
        XCTAssertEqual(try APNsClient.checkedToken("ABCDEF0123"), "abcdef0123")
        for text in ["abc", "zz", "", "<abcd>"] {
            XCTAssertThrowsError(try APNsClient.checkedToken(text)) { error in
                XCTAssertEqual((error as? APNsRequestError)?.kind, .badDeviceToken, text)
                XCTAssertEqual((error as? APNsRequestError)?.redactedToken, DeviceToken.redacted(text), text)
            }
        }
        XCTAssertThrowsError(try APNsClient.checkedToken("zz")) { error in
            XCTAssertEqual("\(error)", "device token '**' is not hex; " + DeviceTokenError.fix)
        }
        XCTAssertEqual(DeviceToken.redacted("0123456789abcdef0123"), "0123…0123")
    }
}
