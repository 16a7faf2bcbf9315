import ActivityPushHTTP2
import Foundation

/// Records every APNs request the mock answered: in memory (the newest `memoryLimit` entries, for
/// `journal()` and `GET /_mock/journal`) and, when configured, one NDJSON line each in a file.
/// Not `Sendable`: lives inside the mock's locked memory.
final class MockJournal {
    private let memoryLimit: Int
    private let fileDescriptor: Int32
    private var entries: [MockJournalEntry] = []
    private var start = 0
    /// Requests recorded since start (not capped, not reset by `clear`).
    private(set) var recordedCount = 0

    /// - Throws: `MockAPNsError.journal` when the file cannot be opened for appending.
    init(path: String?, memoryLimit: Int) throws {
        self.memoryLimit = memoryLimit
        if let path {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw MockAPNsError.journal("cannot open --journal \(path): \(Descriptors.lastErrorText()); check the folder exists and is writable")
            }
            fileDescriptor = descriptor
        } else {
            fileDescriptor = -1
        }
    }

    deinit { if fileDescriptor >= 0 { Descriptors.close(fileDescriptor) } }

    var snapshot: [MockJournalEntry] { Array(entries[start...]) }

    func clear() {
        entries.removeAll()
        start = 0
    }

    func record(_ entry: MockJournalEntry) {
        recordedCount += 1
        entries.append(entry)
        if entries.count - start > memoryLimit {
            start += 1
            if start > 4096 {
                entries.removeFirst(start)
                start = 0
            }
        }
        if fileDescriptor >= 0 {
            let line = Array((entry.jsonLine + "\n").utf8)
            _ = line.withUnsafeBytes { write(fileDescriptor, $0.baseAddress, $0.count) }
        }
    }
}
