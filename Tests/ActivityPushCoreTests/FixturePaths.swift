import Foundation

/// Paths of the repository's fixtures, found from this file's location.
enum FixturePaths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Fixtures")
    static let cases = fixtures.appendingPathComponent("cases")

    /// Every case folder (`Fixtures/cases/*` with an expected.json), sorted.
    static func caseFolders() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: cases, includingPropertiesForKeys: nil)
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("expected.json").path) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
