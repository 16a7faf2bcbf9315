import ActivityPushCore
import Foundation

/// The build flags shared by `build`, `send` and `queue enqueue`: every way the CLI makes a push decodes its
/// flags into ``LiveActivityPush/Fields``, the builder's one typed input (the console's JSON decodes into the
/// same type). Flag names and help come from ``LiveActivityPush/Field``.
struct BuildFlags {
    typealias Field = LiveActivityPush.Field

    static let booleanFlags: Set<String> = [Field.requestUpdateToken.flag]

    /// One line per field, from the field table (alert title and body share a line).
    static let help: String = {
        Field.allCases.map { field in
            let left = "  " + field.flag + (field.argument.map { " " + $0 } ?? "")
            let padding = String(repeating: " ", count: max(1, 29 - left.count))
            return left + padding + field.summary
        }.joined(separator: "\n")
    }()

    var fields: LiveActivityPush.Fields

    /// Reads the build flags; nil when `--event` is absent (the caller then expects a PAYLOAD.json).
    static func read(_ arguments: inout Arguments) throws -> BuildFlags? {
        func unixSeconds(_ field: Field) throws -> Int64? {
            guard let text = arguments.value(field.flag) else { return nil }
            guard let seconds = Int64(text) else { throw UsageError("\(field.flag) expects whole UNIX seconds, got '\(text)'") }
            return seconds
        }
        func object(_ field: Field) throws -> JSONValue? {
            guard let text = arguments.value(field.flag) else { return nil }
            let document = JSONReader.read(text)
            if let problem = document.problems.first {
                throw UsageError("\(field.flag): not valid JSON at column \(problem.position.column): \(problem.message)")
            }
            guard let value = document.root?.value, value.members != nil else {
                throw UsageError("\(field.flag) must be a JSON object")
            }
            return value
        }
        let event = arguments.value(Field.event.flag)
        var fields = LiveActivityPush.Fields(event: event.map(LiveActivityEvent.init(rawValue:)))
        fields.attributesType = arguments.value(Field.attributesType.flag)
        fields.attributes = try object(.attributes)
        fields.contentState = try object(.contentState)
        fields.alertTitle = arguments.value(Field.alertTitle.flag)
        fields.alertBody = arguments.value(Field.alertBody.flag)
        fields.alertSound = arguments.value(Field.alertSound.flag)
        fields.timestampUnixSeconds = try unixSeconds(.timestamp)
        fields.staleDateUnixSeconds = try unixSeconds(.staleDate)
        fields.dismissalDateUnixSeconds = try unixSeconds(.dismissalDate)
        fields.relevanceScore = try arguments.double(Field.relevanceScore.flag)
        fields.priority = try arguments.int(Field.priority.flag)
        fields.expirationUnixSeconds = try unixSeconds(.expiration)
        fields.apnsID = arguments.value(Field.apnsID.flag)
        fields.collapseID = arguments.value(Field.collapseID.flag)
        fields.requestUpdateToken = arguments.flag(Field.requestUpdateToken.flag)
        fields.inputPushChannel = arguments.value(Field.inputPushChannel.flag)
        fields.channelID = arguments.value(Field.channelID.flag)
        return event == nil ? nil : BuildFlags(fields: fields)
    }

    /// The push these flags describe, or (`.failure`) the findings of a start missing its parts — report those
    /// as every other refusal (exit 1).
    /// - Throws: ``UsageError`` naming the flag for a shape the builder cannot express.
    func push(bundleID: String, schema: ActivitySchema?) throws -> Result<LiveActivityPush, PushBuildError> {
        do {
            return .success(try fields.push(bundleID: bundleID, schema: schema, naming: .flag))
        } catch {
            switch error {
            case .findings(let findings): return .failure(PushBuildError(findings: findings))
            case .invalidField(let field, let message, let fix):
                throw UsageError("\(field.flag) \(message)" + (fix.map { "; \($0)" } ?? ""))
            }
        }
    }
}
