import ActivityPushCore

/// What `POST /v1/send` and `POST /v1/enqueue` share: the typed fields built into a request, and the 422 answer
/// when the push has error findings.
extension ConsoleAPI {
    /// Builds the push; on error findings answers 422 and counts a refusal.
    func builtRequest(_ form: PushForm) throws(APIError) -> Result<PushRequest, PushBuildError> {
        switch try form.push(bundleID: configuration.bundleID, schema: configuration.schema) {
        case .failure(let missing): return .failure(missing)
        case .success(let push):
            do { return .success(try push.build(schema: configuration.schema)) } catch { return .failure(error) }
        }
    }

    func refusal(_ error: PushBuildError, action: String) -> HTTPResponse {
        metrics.refusedForFindings()
        let errorCount = error.findings.filter { $0.severity == .error }.count
        return .json(422, .obj([
            ("accept", .bool(false)),
            ("findings", .arr(error.findings.map(ReportFormatter.findingJSON))),
            ("error", APIError(422, "findings", "not \(action): the push has \(errorCount) error finding\(errorCount == 1 ? "" : "s")",
                               fix: "fix the findings (each has its fix) and try again").json.member("error") ?? .null),
        ]))
    }
}

private extension JSONValue {
    func member(_ key: String) -> JSONValue? { members?.first(where: { $0.key == key })?.value.value }
}
