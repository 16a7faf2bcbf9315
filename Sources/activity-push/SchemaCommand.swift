import ActivityPushCore
import Foundation

/// `activity-push schema PATH... [--format json|json-schema] [--id URI]`
/// Prints the `ActivityAttributes` types read from the app's Swift source.
/// Exit: 0 read, 2 usage error or a source that cannot be read (the message names file, line and fix).
let schemaCommand = Command(
    name: "schema",
    summary: "read ActivityAttributes types from Swift source; print them or a JSON Schema",
    synopsis: ["PATH... [--format json|json-schema] [--id URI]"],
    groups: [OptionGroup(SchemaOptions.format, SchemaOptions.id)],
    notes: """
    PATH: a .swift file or a folder (every .swift file below it): the app's ActivityAttributes types and the
    types they use
    --format json: what was read: each type's location, attributes and content-state properties (Swift name,
    JSON key, Swift type, required, shape), enum raw values, and unresolved parts with reasons
    --format json-schema: one JSON Schema (draft 2020-12) validating a whole {"aps": …} start/update/end
    payload; $defs hold <Type>.attributes and <Type>.content-state
    exit: 0 read, 2 usage error or unreadable source
    """
) { arguments in
    let format = try arguments.defaultedValue(SchemaOptions.format)
    let id = try arguments.value(SchemaOptions.id)
    guard !arguments.positionals.isEmpty else { throw UsageError(.badArguments, "give at least one .swift file or folder") }
    guard let schema = try Inputs.schema(arguments.positionals) else { throw UsageError(.badArguments, "give at least one .swift file or folder") }
    let document = format == .json ? ActivitySchemaDescription.json(schema)
                                   : JSONSchemaExporter.document(for: schema, id: id)
    print(JSONWriter.pretty(document))
    return 0
}

enum SchemaOptions {
    static let format = Option<OutputFormat>.format([.json, .jsonSchema], default: .json,
                                                    help: "what was read (json), or a JSON Schema of the payloads")
    static let id = Option<String>("--id", valueName: "URI", help: "$id of the JSON Schema document")
}
