import ActivityPushCore

/// Everything the mock remembers between requests. Not `Sendable`: `MockAPNsState` keeps it in a `Mutex`
/// and the endpoints work on it while holding that lock.
final class MockAPNsMemory {
    var providerTokens: ProviderTokenAuthority
    var emulator: DeviceEmulator
    var faults: MockFaultPlan
    let journal: MockJournal
    var devices = DeviceRegistry()
    var channels = ChannelRegistry()
    var statistics = MockAPNsStatistics()

    init(configuration: MockAPNsConfiguration) throws {
        switch configuration.providerTokens {
        case .acceptAny:
            providerTokens = ProviderTokenAuthority(verifier: nil)
        case .verify(let keyPath, let keyID, let teamID):
            providerTokens = ProviderTokenAuthority(verifier: try ProviderTokenVerifier(keyPath: keyPath, keyID: keyID, teamID: teamID))
        }
        emulator = DeviceEmulator(schema: configuration.schema, pushToStartBudget: configuration.pushToStartBudget,
                                  pushToStartWindow: configuration.pushToStartWindowSeconds)
        faults = configuration.faults
        journal = try MockJournal(path: configuration.journalPath, memoryLimit: configuration.journalMemoryLimit)
    }
}
