import ActivityPushCore
import Synchronization

/// The mock's APNs side, callable from any thread: routes each request to its endpoint (device, broadcast,
/// channel management, `/_mock` control) or to a fault, journals it, and keeps the counters. The event-loop
/// thread calls `respond(to:)`; tests and the control API read the journal and change faults from others.
///
/// Thread-safety: everything mutable is in `MockAPNsMemory` behind one `Mutex`; endpoints run while holding it.
final class MockAPNsState: Sendable {
    let configuration: MockAPNsConfiguration
    private let memory: Mutex<MockAPNsMemory>

    /// - Throws: `MockAPNsError.authKey` (unreadable or non-P-256 `.p8`), `.journal` (journal file not writable).
    init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        memory = Mutex(try MockAPNsMemory(configuration: configuration))
    }

    // MARK: operations of the public API

    func journal() -> [MockJournalEntry] { memory.withLock { $0.journal.snapshot } }

    func clearJournal() { memory.withLock { $0.journal.clear() } }

    func unregister(token: String, atMilliseconds milliseconds: Int64) {
        memory.withLock { $0.devices.unregister(token, atMilliseconds: milliseconds) }
    }

    func setFaults(_ plan: MockFaultPlan) { memory.withLock { $0.faults = plan } }

    func currentFaults() -> MockFaultPlan { memory.withLock { $0.faults } }

    func connectionClosed(_ id: Int) { memory.withLock { $0.providerTokens.connectionClosed(id) } }

    /// APNs requests answered since start (not capped like the in-memory journal; not reset by clearing it).
    var requestCount: Int { memory.withLock { $0.journal.recordedCount } }

    /// The HTTP/2-level counters, with `requests` filled in.
    func currentStatistics() -> MockAPNsStatistics {
        memory.withLock { memory in
            var snapshot = memory.statistics
            snapshot.requests = memory.journal.recordedCount
            return snapshot
        }
    }

    /// Updates the counters (called from the event loop).
    func count(_ update: (inout MockAPNsStatistics) -> Void) {
        memory.withLock { update(&$0.statistics) }
    }

    // MARK: requests

    func respond(to request: MockRequest) -> MockResponse {
        if request.path.hasPrefix("/_mock/") || request.path == "/_mock" { return MockControlEndpoint.respond(to: request, state: self) }
        let now = configuration.clock()
        let (response, entry) = memory.withLock { memory in Self.respond(to: request, now: now, memory: memory) }
        configuration.onRequest?(entry)
        if let reporter = configuration.tokenReporter, request.path.hasPrefix("/3/device/") {
            reporter.observe(token: String(request.path.dropFirst("/3/device/".count)), entry: entry)
        }
        return response
    }

    private static func respond(to request: MockRequest, now: Double, memory: MockAPNsMemory) -> (MockResponse, MockJournalEntry) {
        var entry = MockJournalEntry(time: now, method: request.method, path: request.path, token: nil, bundleID: nil,
                                     channelID: nil, headers: MockRequestRules.journalHeaders(request), status: 0, reason: nil,
                                     apnsID: nil, fault: nil, device: nil, body: request.body)
        if request.path.hasPrefix("/3/device/") {
            // Redacted before anything else can record it (fault answers included): first 8 hex digits only.
            let token = String(request.path.dropFirst("/3/device/".count))
            entry.path = "/3/device/" + DeviceToken.journalPrefix(token)
            entry.token = token.isEmpty ? nil : String(token.prefix(8))
        }
        var response: MockResponse
        let draw = request.faultsApply ? memory.faults.draw(random: { Double.random(in: 0..<1) }) : MockFaultPlan.Draw()
        if let action = draw.action, action != .dropAfterProcessing {
            response = MockFaultResponse.respond(to: action, request: request, entry: &entry)
        } else if request.path.hasPrefix("/3/device/") || request.path == "/3/device" {
            response = DeviceEndpoint.respond(to: request, now: now, entry: &entry, memory: memory)
        } else if request.path.hasPrefix("/4/broadcasts/apps/") {
            response = BroadcastEndpoint.respond(to: request, now: now, entry: &entry, memory: memory)
        } else if request.path.hasPrefix("/1/apps/") {
            response = ChannelManagementEndpoint.respond(to: request, now: now, entry: &entry, memory: memory)
        } else {
            response = .error(404, .badPath)
            entry.apnsID = request.header(.id)
            response.headers.append((APNsHeaderName.id.rawValue, entry.apnsID ?? MockRequestRules.newUUID()))
        }
        func noteFault(_ text: String) { entry.fault = entry.fault.map { $0 + "," + text } ?? text }
        if draw.action == .dropAfterProcessing {
            // Processed (delivered, journaled with its status), then the connection closes before the answer.
            response.connectionAction = .dropAfterProcessing
            noteFault("drop-after")
        }
        if let streams = draw.maxConcurrentStreams {
            response.maxConcurrentStreamsAfter = streams
            noteFault("streams=\(streams)")
        }
        if draw.delayMilliseconds > 0 {
            response.delayMilliseconds = draw.delayMilliseconds
            noteFault("delay=\(draw.delayMilliseconds)ms")
        }
        let processed = response.connectionAction == nil || response.connectionAction == .dropAfterProcessing
        entry.status = processed ? response.status : 0
        if entry.reason == nil, response.status >= 400, processed {
            entry.reason = MockRequestRules.reason(in: response.body)
        }
        memory.journal.record(entry)
        return (response, entry)
    }
}
