import ActivityPushCore
import Foundation

extension BenchValidate {
    /// Placeholder until the JSON Schema exporter lands (it is written in this session).
    static func pythonValidators(schema: ActivitySchema, body: [UInt8], seconds: Double, oursPerSec: Double) throws {
        print("python validators: skipped (JSON Schema exporter not built yet)")
    }
}
