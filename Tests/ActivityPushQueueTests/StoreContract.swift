import ActivityPushAPNs
import ActivityPushCore
import Foundation
import XCTest
@testable import ActivityPushQueue

/// Behaviour every ``QueueStore`` must have. Run on SQLite by `SQLiteQueueStoreTests` and on PostgreSQL by
/// `PostgresQueueStoreTests`, with the same assertions.
struct StoreContract {
    /// Makes a new store on an empty queue; calling `reopen` gives a second connection to the same queue.
    let make: () throws -> (store: any QueueStore, reopen: () throws -> any QueueStore)
    let now = 1_800_000_000.0

    func enqueueStoresBuiltBytesAndFixesAPNsID() throws {
        let (store, _) = try make()
        defer { store.close() }
        let update = try Pushes.update(ts: 100)
        let start = try Pushes.start(ts: 100)
        let ids = try Outbox(store: store).enqueue(update, to: [Pushes.token(1), Pushes.token(2)], nowUnixSeconds: now)
        let startIDs = try Outbox(store: store).enqueue(start, to: [Pushes.token(3)], nowUnixSeconds: now)
        XCTAssertEqual(ids.count, 2)

        let a = try XCTUnwrap(store.push(id: ids[0]))
        let b = try XCTUnwrap(store.push(id: ids[1]))
        XCTAssertEqual(a.body, update.body, "stored body must be the builder's bytes")
        XCTAssertEqual(a.headers["apns-topic"], update.headers["apns-topic"])
        XCTAssertEqual(a.headers["apns-push-type"], "liveactivity")
        XCTAssertNotEqual(a.apnsID, b.apnsID, "one apns-id per stored push")
        XCTAssertEqual(a.headers["apns-id"], a.apnsID)
        XCTAssertNotNil(UUID(uuidString: a.apnsID))
        XCTAssertEqual(a.apnsID, a.apnsID.lowercased())
        XCTAssertNil(a.headers["apns-collapse-id"], "updates get no collapse id")
        XCTAssertEqual(a.state, .pending)
        XCTAssertEqual(a.attempts, 0)
        XCTAssertEqual(a.target, Pushes.token(1))

        let s = try XCTUnwrap(store.push(id: startIDs[0]))
        XCTAssertEqual(s.headers["apns-collapse-id"], s.apnsID, "a start collapses duplicates by its apns-id")
        let restored = try s.restore()
        XCTAssertEqual(restored.body, start.body)
        XCTAssertEqual(restored.event, .start)
        XCTAssertEqual(restored.apnsID, s.apnsID)
    }

    func enqueueIsAllOrNothing() throws {
        let (store, _) = try make()
        defer { store.close() }
        XCTAssertThrowsError(try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: [Pushes.token(1), "not-hex!"],
                                                             nowUnixSeconds: now)) { e in
            XCTAssertEqual((e as? QueueError)?.kind, .invalidInput, "\(e)")
            XCTAssertEqual((e as? QueueError)?.tokenNumber, 2, "error names the bad token: \(e)")
            XCTAssertEqual((e as? QueueError)?.fix, DeviceTokenError.fix)
        }
        XCTAssertEqual(try store.status(nowUnixSeconds: now).counts["pending"], 0)
    }

    func claimLeasesAndExpiredLeasesReturn() throws {
        let (store, _) = try make()
        defer { store.close() }
        let ids = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<5).map(Pushes.token), nowUnixSeconds: now)
        let first = try store.claim(worker: "w1", limit: 3, leaseSeconds: 30, environment: .sandbox, credential: "default", nowUnixSeconds: now)
        XCTAssertEqual(first.map(\.id), Array(ids.prefix(3)), "oldest due first")
        XCTAssertTrue(first.allSatisfy { $0.attempts == 1 && $0.state == .inflight })
        let second = try store.claim(worker: "w2", limit: 10, leaseSeconds: 30, environment: .sandbox, credential: "default", nowUnixSeconds: now + 1)
        XCTAssertEqual(second.map(\.id), Array(ids.suffix(2)), "leased pushes are not claimed again")
        XCTAssertTrue(try store.claim(worker: "w2", limit: 10, leaseSeconds: 30, environment: .sandbox, credential: "default", nowUnixSeconds: now + 2).isEmpty)
        XCTAssertFalse(try store.isDrained(environment: .sandbox, credential: "default", nowUnixSeconds: now + 2), "in flight is not drained")
        // Other environment / credential: nothing.
        XCTAssertTrue(try store.claim(worker: "w3", limit: 10, leaseSeconds: 30, environment: .production, credential: "default", nowUnixSeconds: now + 100).isEmpty)
        // Lease expired (worker crashed): the pushes come back, same bytes and apns-id, attempt 2.
        let again = try store.claim(worker: "w3", limit: 10, leaseSeconds: 30, environment: .sandbox, credential: "default", nowUnixSeconds: now + 31)
        XCTAssertEqual(again.map(\.id), Array(ids.prefix(3)))
        XCTAssertEqual(again.map(\.apnsID), first.map(\.apnsID))
        XCTAssertEqual(again.map(\.body), first.map(\.body))
        XCTAssertTrue(again.allSatisfy { $0.attempts == 2 })
        // A late answer from the worker whose lease expired is journaled but does not decide the state.
        try store.complete([AttemptResult(pushID: ids[0], atUnixSeconds: now + 32, target: Pushes.token(0), outcome: .retry,
                                          status: 500, apnsID: first[0].apnsID, retryAtUnixSeconds: now + 999, worker: "w1")])
        XCTAssertEqual(try store.push(id: ids[0])?.state, .inflight)
        try store.complete([AttemptResult(pushID: ids[0], atUnixSeconds: now + 33, target: Pushes.token(0), outcome: .sent,
                                          status: 200, apnsID: first[0].apnsID, apnsUniqueID: "u-1", latencyMilliseconds: 3, worker: "w3")])
        XCTAssertEqual(try store.push(id: ids[0])?.state, .sent)
        let journal = try store.journal(pushID: ids[0], limit: 10)
        XCTAssertEqual(journal.map(\.outcome), [.retry, .sent])
        XCTAssertEqual(journal.last?.apnsUniqueID, "u-1")
        XCTAssertEqual(journal.last?.tokenRedacted, DeviceToken.redacted(Pushes.token(0)))
        XCTAssertFalse(journal.last!.tokenRedacted.contains(Pushes.token(0)))
    }

    func completeMovesStatesAndStatusCounts() throws {
        let (store, _) = try make()
        defer { store.close() }
        let ids = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<4).map(Pushes.token), nowUnixSeconds: now)
        let claimed = try store.claim(worker: "w", limit: 10, leaseSeconds: 60, environment: .sandbox, credential: "default", nowUnixSeconds: now)
        XCTAssertEqual(claimed.count, 4)
        try store.complete([
            AttemptResult(pushID: ids[0], atUnixSeconds: now, target: Pushes.token(0), outcome: .sent, status: 200, apnsID: claimed[0].apnsID, worker: "w"),
            AttemptResult(pushID: ids[1], atUnixSeconds: now, target: Pushes.token(1), outcome: .retry, status: 429, reason: "TooManyRequests",
                          apnsID: claimed[1].apnsID, retryAtUnixSeconds: now + 30, worker: "w"),
            AttemptResult(pushID: ids[2], atUnixSeconds: now, target: Pushes.token(2), outcome: .dead, status: 410, reason: "Unregistered",
                          apnsID: claimed[2].apnsID, marksTokenInactive: true, tokenInvalidSinceUnixMilliseconds: 1_799_999_999_000, worker: "w"),
            AttemptResult(pushID: ids[3], atUnixSeconds: now, target: Pushes.token(3), outcome: .dead, status: 400, reason: "BadDeviceToken",
                          apnsID: claimed[3].apnsID, worker: "w"),
        ])
        var st = try store.status(nowUnixSeconds: now + 1)
        XCTAssertEqual(st.counts["sent"], 1)
        XCTAssertEqual(st.counts["pending"], 1)
        XCTAssertEqual(st.counts["dead"], 2)
        XCTAssertEqual(st.counts["inflight"], 0)
        XCTAssertEqual(st.due, 0)
        XCTAssertEqual(st.nextRetryUnixSeconds, now + 30)
        XCTAssertEqual(st.deadByReason, ["Unregistered": 1, "BadDeviceToken": 1])
        XCTAssertEqual(st.inactiveTokens, 1)
        XCTAssertEqual(st.attempts, 4)
        XCTAssertEqual(try store.inactiveTokens(among: [Pushes.token(2), Pushes.token(3)]), [Pushes.token(2): "Unregistered"])
        // The retry is not claimable before its time, then it is.
        XCTAssertTrue(try store.claim(worker: "w", limit: 10, leaseSeconds: 60, environment: .sandbox, credential: "default", nowUnixSeconds: now + 29).isEmpty)
        XCTAssertTrue(try store.isDrained(environment: .sandbox, credential: "default", nowUnixSeconds: now + 29))
        st = try store.status(nowUnixSeconds: now + 31)
        XCTAssertEqual(st.due, 1)
        XCTAssertEqual(st.oldestDueUnixSeconds, now + 30)
        XCTAssertEqual(try store.claim(worker: "w", limit: 10, leaseSeconds: 60, environment: .sandbox, credential: "default", nowUnixSeconds: now + 31).map(\.id), [ids[1]])

        // Dead letters: list, retry by id (clears the inactive mark of that token), purge the rest.
        let dead = try store.deadLetters(limit: 10)
        XCTAssertEqual(Set(dead.map(\.id)), [ids[2], ids[3]])
        XCTAssertEqual(Set(dead.map(\.reason)), ["Unregistered", "BadDeviceToken"])
        XCTAssertEqual(try store.requeueDead(ids: [ids[2]], nowUnixSeconds: now + 40), 1)
        let requeued = try XCTUnwrap(store.push(id: ids[2]))
        XCTAssertEqual(requeued.state, .pending)
        XCTAssertEqual(requeued.attempts, 0)
        XCTAssertEqual(requeued.apnsID, claimed[2].apnsID, "requeue keeps the apns-id")
        XCTAssertTrue(try store.inactiveTokens(among: [Pushes.token(2)]).isEmpty)
        XCTAssertEqual(try store.purgeDead(), 1)
        XCTAssertNil(try store.push(id: ids[3]))
        XCTAssertTrue(try store.journal(pushID: ids[3], limit: 10).isEmpty)
        XCTAssertEqual(try store.status(nowUnixSeconds: now + 41).counts["dead"], 0)
    }

    func newerUpdateOrEndSupersedesOlderUnsentUpdates() throws {
        let (store, _) = try make()
        defer { store.close() }
        let outbox = Outbox(store: store)
        let a = Pushes.token(1), b = Pushes.token(2)
        let u100 = try outbox.enqueue(try Pushes.update(ts: 100), to: [a, b], nowUnixSeconds: now)
        let u200 = try outbox.enqueue(try Pushes.update(ts: 200, minutes: 3), to: [a], nowUnixSeconds: now)
        XCTAssertEqual(try store.push(id: u100[0])?.state, .superseded, "older update to the same token")
        XCTAssertEqual(try store.push(id: u100[1])?.state, .pending, "other token untouched")
        XCTAssertEqual(try store.push(id: u200[0])?.state, .pending)
        let note = try store.journal(pushID: u100[0], limit: 5)
        XCTAssertEqual(note.map(\.outcome), [.superseded])
        XCTAssertTrue(note[0].note?.contains("superseded by push \(u200[0])") == true, note[0].note ?? "")

        // An update carrying an older aps.timestamp does not supersede a newer one.
        let u150 = try outbox.enqueue(try Pushes.update(ts: 150), to: [a], nowUnixSeconds: now)
        XCTAssertEqual(try store.push(id: u200[0])?.state, .pending)
        XCTAssertEqual(try store.push(id: u150[0])?.state, .pending)

        // A push already in flight is not superseded (it may be on the wire).
        let inflight = try store.claim(worker: "w", limit: 1, leaseSeconds: 60, environment: .sandbox, credential: "default", nowUnixSeconds: now)
        XCTAssertEqual(inflight.map(\.id), [u100[1]])
        // An end supersedes every older unsent update of its token, and only those.
        let end = try outbox.enqueue(try Pushes.end(ts: 300), to: [a, b], nowUnixSeconds: now)
        XCTAssertEqual(try store.push(id: u200[0])?.state, .superseded)
        XCTAssertEqual(try store.push(id: u150[0])?.state, .superseded)
        XCTAssertEqual(try store.push(id: u100[1])?.state, .inflight)
        XCTAssertEqual(try store.push(id: end[0])?.state, .pending)
        XCTAssertEqual(try store.status(nowUnixSeconds: now).counts["superseded"], 3)
        // Other environments are other devices.
        let prod = try outbox.enqueue(try Pushes.update(ts: 50), to: [a], environment: .production, nowUnixSeconds: now)
        _ = try outbox.enqueue(try Pushes.end(ts: 400), to: [a], nowUnixSeconds: now)
        XCTAssertEqual(try store.push(id: prod[0])?.state, .pending)
    }

    func twoConnectionsClaimDisjointSets() throws {
        let (store, reopen) = try make()
        defer { store.close() }
        let other = try reopen()
        defer { other.close() }
        _ = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (0..<400).map(Pushes.token), nowUnixSeconds: now)
        let stores = [store, other]
        let now = self.now
        let claimed = NSLock()
        nonisolated(unsafe) var all: [Int64] = []
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            var mine: [Int64] = []
            while true {
                let got = (try? stores[i].claim(worker: "w\(i)", limit: 7, leaseSeconds: 60, environment: .sandbox,
                                                credential: "default", nowUnixSeconds: now)) ?? []
                if got.isEmpty { break }
                mine += got.map(\.id)
            }
            claimed.withLock { all += mine }
        }
        XCTAssertEqual(all.count, 400, "every push claimed")
        XCTAssertEqual(Set(all).count, 400, "no push claimed twice while leased")
    }

    /// `journal(limit:)` gives the latest N attempts (issue 10, W4: it gave the oldest N), oldest of them first.
    func journalLimitGivesTheLatestAttempts() throws {
        let (store, _) = try make()
        defer { store.close() }
        // Push 0 three times (two retries), then four more pushes once each.
        let first = try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: [Pushes.token(0)], nowUnixSeconds: now)
        for attempt in 0..<3 {
            let at = now + Double(attempt * 10)
            let claimed = try store.claim(worker: "w", limit: 1, leaseSeconds: 5, environment: .sandbox, credential: "default", nowUnixSeconds: at)
            XCTAssertEqual(claimed.map(\.id), first)
            try store.complete([AttemptResult(pushID: first[0], atUnixSeconds: at, target: Pushes.token(0), outcome: attempt < 2 ? .retry : .sent,
                                              status: attempt < 2 ? 500 : 200, apnsID: claimed[0].apnsID,
                                              retryAtUnixSeconds: attempt < 2 ? at + 1 : nil, worker: "w")])
        }
        let ids = first + (try Outbox(store: store).enqueue(try Pushes.update(ts: 1), to: (1..<5).map(Pushes.token), nowUnixSeconds: now + 50))
        let rest = try store.claim(worker: "w", limit: 10, leaseSeconds: 30, environment: .sandbox, credential: "default", nowUnixSeconds: now + 100)
        XCTAssertEqual(rest.map(\.id), Array(ids.suffix(4)))
        try store.complete(rest.enumerated().map { index, push in
            AttemptResult(pushID: push.id, atUnixSeconds: now + 100 + Double(index), target: Pushes.token(index + 1), outcome: .sent,
                          status: 200, apnsID: push.apnsID, worker: "w")
        })
        XCTAssertEqual(try store.journal(pushID: nil, limit: 2).map(\.pushID), [ids[3], ids[4]], "the latest two, newest last")
        XCTAssertEqual(try store.journal(pushID: nil, limit: 100).count, 7)
        XCTAssertEqual(try store.journal(pushID: ids[0], limit: 2).map(\.outcome), [.retry, .sent], "push 0's latest two, newest last")
    }
}
