// The decoder-oracle harness (Tests/ActivityPushCoreTests/DecoderOracleTests.swift compiles it with swiftc,
// together with every fixture type and a generated table of entry points). It decodes each request with a
// plain JSONDecoder — the device's default strategies — and re-encodes the value with JSONEncoder.
import Foundation

enum OracleHarness {
    /// Decodes `data` as `T`, then encodes the value again (sorted keys) so its keys can be compared.
    static func roundTrip<T: Codable>(_ type: T.Type, _ data: Data) throws -> Data {
        let value = try JSONDecoder().decode(T.self, from: data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    /// Standard input: one request a line, `ENTRY<TAB>JSON`. Standard output: one answer a line,
    /// `ok<TAB>RE-ENCODED JSON` or `error<TAB>MESSAGE` (`unknown-entry` for an entry not in the table).
    static func run(_ table: [String: (Data) throws -> Data]) {
        while let line = readLine(strippingNewline: true) {
            guard let tab = line.firstIndex(of: "\t") else { print("error\tno tab"); continue }
            let entry = String(line[..<tab])
            let json = Data(line[line.index(after: tab)...].utf8)
            guard let decode = table[entry] else { print("error\tunknown-entry \(entry)"); continue }
            do {
                let out = try decode(json)
                print("ok\t" + String(decoding: out, as: UTF8.self))
            } catch {
                print("error\t" + "\(error)".replacingOccurrences(of: "\n", with: " ").prefix(300))
            }
        }
    }
}
