import Foundation

/// The repository's `Fixtures` folder, found from this file's location (device logs, journals, audit trees).
enum FixturePaths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Fixtures")
}
