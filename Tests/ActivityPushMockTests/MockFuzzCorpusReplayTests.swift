import Foundation
import XCTest

/// Replays `Fuzz/Corpus/mock-request/` through ``MockFuzzDriver`` (the libFuzzer harness's driver) on every
/// `make test`; each input must finish within the fuzz time budget.
final class MockFuzzCorpusReplayTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/mock-request")
    /// The budget of `FuzzTimeBudget` in ActivityPushCoreTests (a test target cannot import another): 50 ms per
    /// started 64 KB in an optimized build, ten times that in a debug build.
    #if DEBUG
    static let secondsPer64KB = 0.5
    #else
    static let secondsPer64KB = 0.05
    #endif

    func testEveryCorpusInputIsAnsweredWithinItsBudget() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        XCTAssertFalse(files.isEmpty, "no corpus in \(Self.corpus.path)")
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(file)))
            let budget = Self.secondsPer64KB * Double(max(1, (bytes.count + 65_535) / 65_536))
            var best = Double.infinity
            for _ in 0..<3 where best > budget {
                let start = DispatchTime.now().uptimeNanoseconds
                MockFuzzDriver.run(bytes)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            XCTAssertLessThanOrEqual(best, budget, "Fuzz/Corpus/mock-request/\(file) took \(Int(best * 1000)) ms")
        }
    }
}
