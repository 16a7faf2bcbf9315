/// The one `attributes-type-mismatch` judgement: does `name` equal an `ActivityAttributes` type of the schema
/// exactly (case included, no module prefix), and if not, which type was meant. The validator reports it on
/// `aps.attributes-type`; the lifecycle service refuses a token or a start with it before anything is stored.
/// Source: the device compares `attributes-type` to its Swift type names exactly; a miss is "Incoming message
/// does not contain usable attributes" (spec §0, field reports).
package struct AttributesTypeMatch: Sendable {
    /// The type `name` names exactly, or the one it was meant to name (case-only, module prefix, near spelling).
    package var closest: ActivityAttributesType?
    /// True when `closest` is the exact name.
    package var exact: Bool
    /// The finding's text when not exact.
    package var message: String
    /// The fix when not exact: the right spelling, or the known names.
    package var fix: String

    /// Judges `name` against `schema`'s types.
    package init(_ name: String, in schema: ActivitySchema) {
        if let exact = schema.type(named: name) {
            self.closest = exact
            self.exact = true
            self.message = ""
            self.fix = ""
            return
        }
        let (closest, how) = PushCheck.closestType(to: name, in: schema)
        let known = schema.types.map { "\"\($0.name)\"" }.joined(separator: ", ")
        var message = "attributes-type \"\(name)\" names no ActivityAttributes type in the app"
        switch how {
        case .caseOnly: message += "; \"\(closest!.name)\" differs only in letter case, and the device compares names exactly"
        case .modulePrefix: message += "; drop the module prefix — the device expects the bare type name \"\(closest!.name)\""
        case .similar: message += "; the closest is \"\(closest!.name)\""
        case .none: message += " (known: \(known))"
        }
        message += ". The device cannot create the activity (\"Incoming message does not contain usable attributes\")"
        self.closest = how == .none ? nil : closest
        self.exact = false
        self.message = message
        self.fix = closest.map { "write \"attributes-type\": \"\($0.name)\"" }
            ?? "use one of \(known) — or, if this push is for a type declared elsewhere, pass that file with --attributes"
    }

    /// The `attributes-type-mismatch` finding at `path` (the request's field), nil when the name is exact.
    package func finding(at path: String, _ position: SourcePosition? = nil) -> Finding? {
        guard !exact else { return nil }
        return Finding(code: .attributesTypeMismatch, severity: FindingCatalog.entry(.attributesTypeMismatch)?.severity ?? .error,
                       path: path, position: position, message: message, fix: fix)
    }
}
