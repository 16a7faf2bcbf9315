import ActivityPushCore
import ActivityPushAPNs
import XCTest
@testable import ActivityPushQueue

/// The retry table on ``QueueRetryPolicy``, row by row and reason by reason.
final class RetryPolicyTests: XCTestCase {
    let policy = QueueRetryPolicy()

    private func decide(_ status: Int, _ reason: APNsReason?, retryAfter: Double? = nil, attempts: Int = 1, u: Double = 0) -> QueueRetryPolicy.Decision {
        policy.decide(ScriptedSender.response(status, reason, retryAfter: retryAfter), attempts: attempts, event: .update, unitRandom: u)
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
        XCTAssertEqual(decide(410, "SomethingNew"), .dead(reason: "SomethingNew", tokenInactive: true, rule: "token-gone"))
        XCTAssertEqual(decide(410, nil), .dead(reason: "Unregistered", tokenInactive: true, rule: "token-gone"))
    }

    func testTooManyRequestsHonoursRetryAfterElseExponentialBackoffWithJitter() {
        XCTAssertEqual(decide(429, .tooManyRequests, retryAfter: 42), .retry(afterSeconds: 42, refreshCredentials: false, rule: "too-many-requests"))
        // backoff = min(2·2^(n−1), 3600)·(0.5 + 0.5u)
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 1, u: 0), .retry(afterSeconds: 1, refreshCredentials: false, rule: "too-many-requests"))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 1, u: 1), .retry(afterSeconds: 2, refreshCredentials: false, rule: "too-many-requests"))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 4, u: 1), .retry(afterSeconds: 16, refreshCredentials: false, rule: "too-many-requests"))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 4, u: 0.5), .retry(afterSeconds: 12, refreshCredentials: false, rule: "too-many-requests"))
        XCTAssertEqual(policy.backoff(attempts: 30, unitRandom: 1), 3600, "capped")
        XCTAssertEqual(decide(429, nil, attempts: 2, u: 1), .retry(afterSeconds: 4, refreshCredentials: false, rule: "too-many-requests"))
        XCTAssertEqual(decide(429, .tooManyProviderTokenUpdates, attempts: 1, u: 1),
                       .retry(afterSeconds: 60, refreshCredentials: false, rule: "token-updates"), "JWT refresh throttled: no re-sign")
    }

    func testServerErrorsWaitAtLeastFifteenMinutesAndGrow() {
        for (status, reason) in [(500, APNsReason.internalServerError), (503, .serviceUnavailable), (503, .shutdown),
                                 (503, .serviceUnavailableSpaced), (502, nil)] {
            guard case .retry(let after, false, "server-error") = decide(status, reason, u: 0.99) else {
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
        XCTAssertEqual(short.decide(ScriptedSender.response(500, .internalServerError), attempts: 1, event: .update, unitRandom: 0),
                       .retry(afterSeconds: 1, refreshCredentials: false, rule: "server-error"), "delay is configurable")
    }

    func testExpiredProviderTokenRefreshesAndRetriesAtOnce() {
        XCTAssertEqual(decide(403, .expiredProviderToken), .retry(afterSeconds: 0, refreshCredentials: true, rule: "expired-provider-token"))
        XCTAssertEqual(decide(400, .idleTimeout), .retry(afterSeconds: 0, refreshCredentials: false, rule: "idle-timeout"))
    }

    func testOtherCredentialErrorsHoldThePush() {
        for reason in [APNsReason.invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIdInToken,
                       .unrelatedKeyIdInToken, .badCertificate, .badCertificateEnvironment, .topicMismatch] {
            XCTAssertEqual(decide(403, reason), .retry(afterSeconds: 300, refreshCredentials: false, rule: "credentials"), "\(reason)")
        }
    }

    func testRequestErrorsAreDeadLetteredWithTheirReason() {
        for reason in [APNsReason.badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
                       .duplicateHeaders, .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty,
                       .topicDisallowed, .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered,
                       .badRequestParams, .badRequestPayload, .missingPushType] {
            XCTAssertEqual(decide(400, reason), .dead(reason: reason.rawValue, tokenInactive: false, rule: "bad-request"), "\(reason)")
        }
        XCTAssertEqual(decide(404, .badPath), .dead(reason: "BadPath", tokenInactive: false, rule: "bad-request"))
        XCTAssertEqual(decide(405, .methodNotAllowed), .dead(reason: "MethodNotAllowed", tokenInactive: false, rule: "bad-request"))
        XCTAssertEqual(decide(400, nil), .dead(reason: "HTTP400", tokenInactive: false, rule: "bad-request"))
    }

    func testTransportFailuresBackOff() {
        let failure = APNsResult.failure(APNsTransportError(kind: .notSent, message: "connect refused"))
        XCTAssertEqual(policy.decide(failure, attempts: 3, event: .update, unitRandom: 1), .retry(afterSeconds: 8, refreshCredentials: false, rule: "not-sent"))
    }

    func testMaxAttemptsDeadLetters() {
        XCTAssertEqual(decide(500, .internalServerError, attempts: 8),
                       .dead(reason: QueueRetryPolicy.maxAttemptsReason, tokenInactive: false, rule: "max-attempts"))
        XCTAssertEqual(decide(429, .tooManyRequests, attempts: 7, u: 1), .retry(afterSeconds: 128, refreshCredentials: false, rule: "too-many-requests"))
        XCTAssertEqual(decide(200, nil, attempts: 8), .sent, "a success on the last attempt is a success")
    }

    func testForbiddenIsNeverRetriedAsAppleSays() {
        // Spec §4.2: 403 Forbidden — never retry. The client's disposition agrees (one table).
        XCTAssertEqual(decide(403, .forbidden), .dead(reason: "Forbidden", tokenInactive: false, rule: "forbidden"))
        XCTAssertEqual(APNsDisposition.classify(status: 403, reason: .forbidden), .fixRequest)
    }

    func testTransportOutcomesFollowThePerEventPolicy() {
        let refused = APNsResult.failure(APNsTransportError(kind: .refused, message: "REFUSED_STREAM", attempts: 3))
        let unknown = APNsResult.failure(APNsTransportError(kind: .mayHaveBeenProcessed, message: "dropped"))
        let timedOut = APNsResult.failure(APNsTransportError(kind: .mayHaveBeenProcessed, message: "deadline", timedOut: true))
        for event in [LiveActivityEvent.start, .update, .end] {
            XCTAssertEqual(policy.decide(refused, attempts: 1, event: event, unitRandom: 1),
                           .retry(afterSeconds: 2, refreshCredentials: false, rule: "refused"), "refused is always resent")
        }
        for event in [LiveActivityEvent.update, .end] {
            XCTAssertEqual(policy.decide(unknown, attempts: 2, event: event, unitRandom: 1),
                           .retry(afterSeconds: 4, refreshCredentials: false, rule: "may-have-been-processed"),
                           "\(event): the device drops a timestamp it already applied")
            XCTAssertEqual(policy.decide(timedOut, attempts: 1, event: event, unitRandom: 0).rule, "may-have-been-processed",
                           "a timeout goes to a delayed retry (≥ 1 s), never in line")
        }
        XCTAssertEqual(policy.decide(unknown, attempts: 1, event: .start, unitRandom: 0),
                       .dead(reason: "MayHaveBeenProcessed", tokenInactive: false, rule: "may-have-been-processed-start"),
                       "a start resent blindly makes a second activity")
    }

    func testHelpTableIsGeneratedFromTheOneTable() {
        let lines = policy.tableLines()
        for row in APNsResponseRule.all {
            XCTAssertNotEqual(policy.queueAction(forRow: row.name), "?", row.name)
            XCTAssertTrue(lines.contains { $0.contains(row.statusText + " " + row.reasonText) }, row.name)
        }
        XCTAssertTrue(lines.contains { $0.contains("Forbidden") && $0.contains("never retried") })
        XCTAssertTrue(lines.contains { $0.contains("MayHaveBeenProcessed") })
        XCTAssertTrue(QueueRetryPolicy(maxAttempts: 3).tableLines().contains { $0.contains("after 3 attempts") })
    }
}
