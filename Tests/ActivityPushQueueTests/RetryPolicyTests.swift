import ActivityPushCore
import ActivityPushAPNs
import XCTest
@testable import ActivityPushQueue

/// The retry table on ``QueueRetryPolicy``, row by row and reason by reason.
final class RetryPolicyTests: XCTestCase {
    let policy = QueueRetryPolicy()

    private func decide(_ status: Int, _ reason: APNsReason?, retryAfter: Double? = nil, attempts: Int = 1, u: Double = 0) -> QueueRetryPolicy.Decision {
        policy.decide(ScriptedSender.response(status, reason, retryAfter: retryAfter), attempts: attempts, unitRandom: u)
    }

    func testSuccess() {
        XCTAssertEqual(decide(200, nil), .sent)
    }

    func testNeverRetryReasonsAreDeadLettered() {
        // Apple: never retry these (spec §4.2).
        let cases: [(Int, APNsReason, Bool)] = [
            (400, .badDeviceToken, false), (400, .deviceTokenNotForTopic, false), (410, .unregistered, true),
            (410, .expiredToken, true), (403, .forbidden, false), (413, .payloadTooLarge, false),
        ]
        for (status, reason, inactive) in cases {
            guard case .dead(let r, let marks, _) = decide(status, reason) else {
                return XCTFail("\(status) \(reason) must be dead-lettered, got \(decide(status, reason))")
            }
            XCTAssertEqual(r, reason.rawValue)
            XCTAssertEqual(marks, inactive, "\(reason): token inactive only for 410")
        }
        // Any 410, even with an unknown reason, marks the token dead.
        XCTAssertEqual(decide(410, "SomethingNew"), .dead(reason: "SomethingNew", tokenInactive: true, rule: 2))
        XCTAssertEqual(decide(410, nil), .dead(reason: "Unregistered", tokenInactive: true, rule: 2))
    }

    func testTooManyRequestsHonoursRetryAfterElseExponentialBackoffWithJitter() {
        XCTAssertEqual(decide(429, .tooManyRequests, retryAfter: 42), .retry(afterSeconds: 42, refreshCredentials: false, rule: 7))
        // backoff = min(2·2^(n−1), 3600)·(0.5 + 0.5u)
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 1, u: 0), .retry(afterSeconds: 1, refreshCredentials: false, rule: 7))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 1, u: 1), .retry(afterSeconds: 2, refreshCredentials: false, rule: 7))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 4, u: 1), .retry(afterSeconds: 16, refreshCredentials: false, rule: 7))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 4, u: 0.5), .retry(afterSeconds: 12, refreshCredentials: false, rule: 7))
        XCTAssertEqual(policy.backoff(attempts: 30, unitRandom: 1), 3600, "capped")
        XCTAssertEqual(decide(429, nil, attempts: 2, u: 1), .retry(afterSeconds: 4, refreshCredentials: false, rule: 7))
        XCTAssertEqual(decide(429, .tooManyProviderTokenUpdates, attempts: 1, u: 1),
                       .retry(afterSeconds: 60, refreshCredentials: false, rule: 6), "JWT refresh throttled: no re-sign")
    }

    func testServerErrorsWaitAtLeastFifteenMinutesAndGrow() {
        for (status, reason) in [(500, APNsReason.internalServerError), (503, .serviceUnavailable), (503, .shutdown),
                                 (503, .serviceUnavailableSpaced), (502, nil)] {
            guard case .retry(let after, false, 8) = decide(status, reason, u: 0.99) else {
                return XCTFail("\(status) \(String(describing: reason)) must retry by rule 8")
            }
            XCTAssertGreaterThanOrEqual(after, 900)
            XCTAssertLessThanOrEqual(after, 990)
        }
        guard case .retry(let third, _, _) = decide(500, .internalServerError, attempts: 3, u: 0) else { return XCTFail() }
        XCTAssertEqual(third, 3600)
        guard case .retry(let capped, _, _) = decide(500, .internalServerError, attempts: 7, u: 0) else { return XCTFail() }
        XCTAssertEqual(capped, 14_400)
        guard case .retry(let later, _, _) = decide(503, .serviceUnavailable, retryAfter: 5000, u: 0) else { return XCTFail() }
        XCTAssertEqual(later, 5000, "Retry-After later than 15 min wins")
        let short = QueueRetryPolicy(serverErrorDelaySeconds: 1)
        XCTAssertEqual(short.decide(ScriptedSender.response(500, .internalServerError), attempts: 1, unitRandom: 0),
                       .retry(afterSeconds: 1, refreshCredentials: false, rule: 8), "delay is configurable")
    }

    func testExpiredProviderTokenRefreshesAndRetriesAtOnce() {
        XCTAssertEqual(decide(403, .expiredProviderToken), .retry(afterSeconds: 0, refreshCredentials: true, rule: 4))
        XCTAssertEqual(decide(400, .idleTimeout), .retry(afterSeconds: 0, refreshCredentials: false, rule: 5))
    }

    func testOtherCredentialErrorsHoldThePush() {
        for reason in [APNsReason.invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIdInToken,
                       .unrelatedKeyIdInToken, .badCertificate, .badCertificateEnvironment, .topicMismatch] {
            XCTAssertEqual(decide(403, reason), .retry(afterSeconds: 300, refreshCredentials: false, rule: 9), "\(reason)")
        }
    }

    func testRequestErrorsAreDeadLetteredWithTheirReason() {
        for reason in [APNsReason.badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
                       .duplicateHeaders, .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty,
                       .topicDisallowed, .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered,
                       .badRequestParams, .badRequestPayload, .missingPushType] {
            XCTAssertEqual(decide(400, reason), .dead(reason: reason.rawValue, tokenInactive: false, rule: 10), "\(reason)")
        }
        XCTAssertEqual(decide(404, .badPath), .dead(reason: "BadPath", tokenInactive: false, rule: 10))
        XCTAssertEqual(decide(405, .methodNotAllowed), .dead(reason: "MethodNotAllowed", tokenInactive: false, rule: 10))
        XCTAssertEqual(decide(400, nil), .dead(reason: "HTTP400", tokenInactive: false, rule: 10))
    }

    func testTransportFailuresBackOff() {
        let failure = APNsResult.failure(APNsTransportError(kind: .notSent, message: "connect refused"))
        XCTAssertEqual(policy.decide(failure, attempts: 3, unitRandom: 1), .retry(afterSeconds: 8, refreshCredentials: false, rule: 11))
    }

    func testMaxAttemptsDeadLetters() {
        XCTAssertEqual(decide(500, .internalServerError, attempts: 8),
                       .dead(reason: QueueRetryPolicy.maxAttemptsReason, tokenInactive: false, rule: 12))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 7, u: 1), .retry(afterSeconds: 128, refreshCredentials: false, rule: 7))
        XCTAssertEqual(decide(200, nil, attempts: 8), .sent, "a success on the last attempt is a success")
    }
}
