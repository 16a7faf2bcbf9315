import ActivityPushCore
import Foundation

/// `activity-push schema PATH... [--format json|json-schema] [--id URI]`
/// Prints the `ActivityAttributes` types read from the app's Swift source.
/// Exit: 0 read, 2 usage error or a source that cannot be read (the message names file, line and fix).
let schemaCommand = Command(
    name: "schema",
    summary: "read ActivityAttributes types from Swift source; print them or a JSON Schema"
) { argv in
    if argv.contains("--help") || argv.contains("-h") {
        print("""
        usage: activity-push schema PATH... [--format json|json-schema] [--id URI]
          PATH           a .swift file or a folder (every .swift file below it): the app's ActivityAttributes
                         types and the types they use
          --format json  (default) what was read: each type's location, attributes and content-state
                         properties (Swift name, JSON key, Swift type, required, shape), enum raw values,
                         and unresolved parts with reasons
          --format json-schema
                         one JSON Schema (draft 2020-12) validating a whole {"aps": …} start/update/end
                         payload; $defs hold <Type>.attributes and <Type>.content-state
          --id URI       $id of the JSON Schema document
        exit: 0 read, 2 usage error or unreadable source
        """)
        return 0
    }
    var a = try Arguments(argv)
    let format = a.value("--format") ?? "json"
    guard format == "json" || format == "json-schema" else {
        throw UsageError("--format must be json or json-schema, got '\(format)'")
    }
    let id = a.value("--id")
    try a.finish()
    guard !a.positionals.isEmpty else { throw UsageError("give at least one .swift file or folder") }
    guard let schema = try Inputs.schema(a.positionals) else { throw UsageError("give at least one .swift file or folder") }
    let document = format == "json" ? ActivitySchemaDescription.json(schema)
                                     : JSONSchemaExporter.document(for: schema, id: id)
    print(JSONWriter.pretty(document))
    return 0
}
