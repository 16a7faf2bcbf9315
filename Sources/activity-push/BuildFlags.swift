import ActivityPushCore
import Foundation

/// The build flags shared by `build`, `send` and `queue enqueue`: every way the CLI makes a push decodes its
/// flags into ``LiveActivityPush/Fields``, the builder's one typed input (the console's JSON decodes into the
/// same type). Flag names, value names and help come from ``LiveActivityPush/Field``.
struct BuildFlags {
    typealias Field = LiveActivityPush.Field

    static let event = text(.event)
    static let attributesType = text(.attributesType)
    static let attributes = object(.attributes)
    static let contentState = object(.contentState)
    static let alertTitle = text(.alertTitle)
    static let alertBody = text(.alertBody)
    static let alertSound = text(.alertSound)
    static let timestamp = unixSeconds(.timestamp)
    static let staleDate = unixSeconds(.staleDate)
    static let dismissalDate = unixSeconds(.dismissalDate)
    static let relevanceScore = Option<Double>.decimal(Field.relevanceScore.flag, valueName: argument(.relevanceScore),
                                                       help: Field.relevanceScore.summary)
    static let priority = Option<Int>.integer(Field.priority.flag, valueName: argument(.priority), help: Field.priority.summary)
    static let expiration = unixSeconds(.expiration)
    static let apnsID = text(.apnsID)
    static let collapseID = text(.collapseID)
    static let requestUpdateToken = Flag(Field.requestUpdateToken.flag, help: Field.requestUpdateToken.summary)
    static let inputPushChannel = text(.inputPushChannel)
    static let channelID = text(.channelID)

    /// Every build flag, in the field table's order.
    static let group: OptionGroup = {
        let byField: [Field: any OptionDeclaration] = [
            .event: event, .attributesType: attributesType, .attributes: attributes, .contentState: contentState,
            .alertTitle: alertTitle, .alertBody: alertBody, .alertSound: alertSound, .timestamp: timestamp,
            .staleDate: staleDate, .dismissalDate: dismissalDate, .relevanceScore: relevanceScore, .priority: priority,
            .expiration: expiration, .apnsID: apnsID, .collapseID: collapseID, .requestUpdateToken: requestUpdateToken,
            .inputPushChannel: inputPushChannel, .channelID: channelID,
        ]
        return OptionGroup("build flags (with --event, instead of PAYLOAD.json)", Field.allCases.compactMap { byField[$0] })
    }()

    private static func argument(_ field: Field) -> String { field.argument ?? "VALUE" }

    private static func text(_ field: Field) -> Option<String> {
        Option(field.flag, valueName: argument(field), help: field.summary)
    }

    private static func unixSeconds(_ field: Field) -> Option<Int64> {
        .unixSeconds(field.flag, valueName: argument(field), help: field.summary)
    }

    private static func object(_ field: Field) -> Option<JSONValue> {
        Option(field.flag, valueName: argument(field), help: field.summary) { text, flag in
            let document = JSONReader.read(text)
            if let problem = document.problems.first {
                throw UsageError(.badValue, option: flag, "\(flag): not valid JSON at column \(problem.position.column): \(problem.message)")
            }
            guard let value = document.root?.value, value.members != nil else {
                throw UsageError(.badValue, option: flag, "\(flag) must be a JSON object")
            }
            return value
        }
    }

    var fields: LiveActivityPush.Fields

    /// Reads the build flags; nil when `--event` is absent (the caller then expects a PAYLOAD.json).
    static func read(_ arguments: ParsedArguments) throws -> BuildFlags? {
        let eventName = try arguments.value(event)
        var fields = LiveActivityPush.Fields(event: eventName.map(LiveActivityEvent.init(rawValue:)))
        fields.attributesType = try arguments.value(attributesType)
        fields.attributes = try arguments.value(attributes)
        fields.contentState = try arguments.value(contentState)
        fields.alertTitle = try arguments.value(alertTitle)
        fields.alertBody = try arguments.value(alertBody)
        fields.alertSound = try arguments.value(alertSound)
        fields.timestampUnixSeconds = try arguments.value(timestamp)
        fields.staleDateUnixSeconds = try arguments.value(staleDate)
        fields.dismissalDateUnixSeconds = try arguments.value(dismissalDate)
        fields.relevanceScore = try arguments.value(relevanceScore)
        fields.priority = try arguments.value(priority)
        fields.expirationUnixSeconds = try arguments.value(expiration)
        fields.apnsID = try arguments.value(apnsID)
        fields.collapseID = try arguments.value(collapseID)
        fields.requestUpdateToken = arguments.isSet(requestUpdateToken)
        fields.inputPushChannel = try arguments.value(inputPushChannel)
        fields.channelID = try arguments.value(channelID)
        return eventName == nil ? nil : BuildFlags(fields: fields)
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
                throw UsageError(.badValue, option: field.flag, "\(field.flag) \(message)", fix: fix)
            }
        }
    }
}
