/// What one connection has processed and what its GOAWAY promised — the decisions behind an honest GOAWAY,
/// as a plain value (`MockServerLoop` applies them to the connection; tests check them without sockets).
///
/// The rule (RFC 9113 §6.8): a GOAWAY's last-stream-id is the highest stream the server processed or may
/// still process; every stream at or below it is answered, none above it is processed.
struct MockConnectionLedger: Equatable {
    /// Highest stream id handed to the APNs logic and processed (answered or to be answered).
    private(set) var highestProcessedStreamID: Int32 = 0
    /// Set once a GOAWAY went out.
    private(set) var goawayLastStreamID: Int32?
    /// A graceful GOAWAY: close once no stream at or below its last-stream-id waits for an answer.
    private(set) var closesWhenAnswered = false

    enum Admission: Equatable {
        /// Hand the request to the APNs logic; `faultsApply` false when a GOAWAY already promised an answer.
        case process(faultsApply: Bool)
        /// Above an announced last-stream-id: never processed (reset REFUSED_STREAM; the client retries it).
        case cutByGoaway
    }

    /// What to do with a complete request on `streamID`.
    func admit(streamID: Int32) -> Admission {
        guard let last = goawayLastStreamID else { return .process(faultsApply: true) }
        return streamID > last ? .cutByGoaway : .process(faultsApply: false)
    }

    /// The request on `streamID` was processed (its answer may still be delayed or lost by `drop-after`).
    mutating func processed(streamID: Int32) {
        highestProcessedStreamID = max(highestProcessedStreamID, streamID)
    }

    /// Announces GOAWAY and returns its last-stream-id: the highest stream processed so far (0: none). A second
    /// GOAWAY never raises it (RFC 9113 §6.8: it must not increase).
    mutating func announceGoaway(graceful: Bool) -> Int32 {
        let last = min(goawayLastStreamID ?? .max, highestProcessedStreamID)
        goawayLastStreamID = last
        if graceful { closesWhenAnswered = true }
        return last
    }

    /// After a graceful GOAWAY: true once no stream at or below the last-stream-id is still unanswered.
    func mayClose(unansweredStreamIDs: [Int32]) -> Bool {
        guard closesWhenAnswered, let last = goawayLastStreamID else { return false }
        return unansweredStreamIDs.allSatisfy { $0 > last }
    }
}
