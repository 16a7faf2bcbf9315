import ActivityPushCore
import Foundation
import XCTest

/// Replays the checked-in fuzz regression corpus (`Fuzz/Corpus/<target>/`: inputs that once crashed or ran
/// slow, plus a few seeds) through the same drivers the libFuzzer harnesses use, without a sanitizer, on every
/// `make test`. Each input must finish within its time budget (``FuzzTimeBudget``).
final class FuzzCorpusReplayTests: XCTestCase {
    static let corpus = FixturePaths.repository.appendingPathComponent("Fuzz/Corpus")

    func testEveryCorpusInputIsReadWithinItsBudget() throws {
        var replayed = 0
        for target in FuzzInputDrivers.targets {
            let folder = Self.corpus.appendingPathComponent(target.name)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            XCTAssertFalse(files.isEmpty, "no corpus for \(target.name) in \(folder.path)")
            for file in files {
                let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
                let seconds = FuzzTimeBudget.fastestOf(runs: 3) { target.run(bytes) }
                let budget = FuzzTimeBudget.seconds(forBytes: bytes.count)
                XCTAssertLessThanOrEqual(seconds, budget,
                    "Fuzz/Corpus/\(target.name)/\(file) (\(bytes.count) bytes) took \(Int(seconds * 1000)) ms, over its \(Int(budget * 1000)) ms budget")
                replayed += 1
            }
        }
        XCTAssertGreaterThan(replayed, 0)
    }

    /// Issue 14: the 11-byte `struct A:t<` trapped every command that reads attributes ("Index out of range"
    /// past the last token after `<`). It is now read, and refused for declaring no ActivityAttributes type.
    func testAnUnclosedGenericAtTheEndOfAFileIsAnErrorNotACrash() {
        // An unclosed `<` inside a body ends at the body's `}` instead of swallowing the rest of the file.
        _ = try? SwiftSourceReader.read(sources: [(file: "f.swift", text: "struct A: ActivityAttributes { var a: Array<Int }")])
        for text in ["struct A:t<", "enum E { case a(Int"] {
            XCTAssertThrowsError(try SwiftSourceReader.read(sources: [(file: "f.swift", text: text)]), text) { error in
                XCTAssertTrue(error is SchemaReadError, "\(text): \(error)")
            }
        }
    }

    /// Large inputs of the shapes that were once slow stay within the budget for their size (linear time).
    func testLargeHostileSwiftFilesStayWithinTheBudget() {
        let shapes: [(String, String)] = [
            ("unclosed generics", String(repeating: "struct A: B<C<D<E ", count: 3500)),
            ("nested brackets", String(repeating: "var a: [[[[[[Int]]]]]] = [[[[1]]]]\n", count: 1800)),
            ("properties", "struct S: ActivityAttributes {\n" + String(repeating: "    var name: String?\n", count: 3000) + "}\n"),
            ("enum cases", "enum E: String, Codable {\n" + String(repeating: "    case a(Int, b: [String: Int]) = \"x\"\n", count: 1600) + "}\n"),
            ("operators and angles", String(repeating: "let x = a < b && c > d || e<f>(g)\n", count: 1900)),
        ]
        for (name, text) in shapes {
            let bytes = Array(text.utf8.prefix(65_536))
            let seconds = FuzzTimeBudget.fastestOf(runs: 3) { FuzzInputDrivers.swiftSource(bytes) }
            XCTAssertLessThanOrEqual(seconds, FuzzTimeBudget.seconds(forBytes: bytes.count),
                                     "\(name): \(bytes.count) bytes took \(Int(seconds * 1000)) ms")
        }
    }
}

/// The time an input may take: 50 ms per started 64 KB in an optimized build (the budget for a 64 KB
/// Swift file), times ``debugFactor`` in a debug build, which runs the same code several times slower.
enum FuzzTimeBudget {
    static let secondsPer64KB = 0.050
    #if DEBUG
    static let debugFactor = 10.0
    #else
    static let debugFactor = 1.0
    #endif

    static func seconds(forBytes count: Int) -> Double {
        secondsPer64KB * Double(max(1, (count + 65_535) / 65_536)) * debugFactor
    }

    /// The fastest of `runs` timings (a loaded machine slows single runs, never all of them).
    static func fastestOf(runs: Int, _ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            if best < secondsPer64KB { break }
        }
        return best
    }
}
