import Foundation

/// The same shape as ActivityKit's `ActivityAttributes`, so an app's attributes file compiles unchanged on a
/// Linux server (`import ActivityPushCore` in place of `import ActivityKit`): `Codable` stored properties for the
/// static data, and `ContentState` for the dynamic data.
///
/// Values are encoded with `JSONEncoder`'s default strategies, as the device decodes them: a `Date` becomes
/// **seconds since 2001-01-01 00:00:00 UTC** (not UNIX seconds), keys are the property names or `CodingKeys`.
/// Source: Apple, "Starting and updating Live Activities with ActivityKit push notifications" (custom encoding
/// strategies cause update failures); `JSONDecoder.dateDecodingStrategy` default `deferredToDate`.
public protocol ActivityAttributes: Codable {
    /// The dynamic data (`aps.content-state`), encoded with default strategies.
    associatedtype ContentState: Codable & Hashable
}

extension LiveActivityPush {
    /// The exact `attributes-type` for `A`: the type's own name, no module prefix (`String(describing:)`).
    public static func attributesType<A: ActivityAttributes>(of _: A.Type) -> String {
        String(describing: A.self)
    }

    /// Encodes a `Codable` value the way the device decodes it (default strategies) into a ``JSONValue``.
    /// - Throws: ``ActivityEncodingError`` when encoding fails.
    public static func jsonValue<T: Encodable>(of value: T) throws(ActivityEncodingError) -> JSONValue {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw ActivityEncodingError(.encoderThrew, typeName: "\(T.self)", "\(error)",
                                        fix: "encode only finite numbers, and let custom encode(to:) methods not throw")
        }
        guard let root = JSONReader.read(Array(data)).root else {
            throw ActivityEncodingError(.unreadableOutput, typeName: "\(T.self)", "JSONEncoder produced unreadable JSON",
                                        fix: "encode a struct or a dictionary (a keyed container), not a single value")
        }
        return root.value
    }

    /// A push-to-start from typed values: `attributes-type` is `A`'s exact name, Dates encode as seconds since 2001.
    public static func start<A: ActivityAttributes>(bundleID: String, attributes: A, contentState: A.ContentState,
                                                    alert: LiveActivityAlert, timestampUnixSeconds: Int64 = nowUnixSeconds(),
                                                    staleDateUnixSeconds: Int64? = nil, relevanceScore: Double? = nil,
                                                    requestUpdateToken: Bool = false,
                                                    inputPushChannel: String? = nil) throws(ActivityEncodingError) -> LiveActivityPush {
        .start(bundleID: bundleID, attributesType: attributesType(of: A.self), attributes: try jsonValue(of: attributes),
               contentState: try jsonValue(of: contentState), alert: alert, timestampUnixSeconds: timestampUnixSeconds,
               staleDateUnixSeconds: staleDateUnixSeconds, relevanceScore: relevanceScore,
               requestUpdateToken: requestUpdateToken, inputPushChannel: inputPushChannel)
    }

    /// An update from a typed `ContentState`.
    public static func update<A: ActivityAttributes>(_: A.Type, bundleID: String, contentState: A.ContentState,
                                                     timestampUnixSeconds: Int64 = nowUnixSeconds(),
                                                     alert: LiveActivityAlert? = nil, staleDateUnixSeconds: Int64? = nil,
                                                     relevanceScore: Double? = nil) throws(ActivityEncodingError) -> LiveActivityPush {
        .update(bundleID: bundleID, contentState: try jsonValue(of: contentState), timestampUnixSeconds: timestampUnixSeconds,
                alert: alert, staleDateUnixSeconds: staleDateUnixSeconds, relevanceScore: relevanceScore)
    }

    /// An end from a typed final `ContentState`; `dismissalDateUnixSeconds` in UNIX seconds.
    public static func end<A: ActivityAttributes>(_: A.Type, bundleID: String, contentState: A.ContentState,
                                                  timestampUnixSeconds: Int64 = nowUnixSeconds(),
                                                  dismissalDateUnixSeconds: Int64? = nil,
                                                  alert: LiveActivityAlert? = nil) throws(ActivityEncodingError) -> LiveActivityPush {
        .end(bundleID: bundleID, contentState: try jsonValue(of: contentState), timestampUnixSeconds: timestampUnixSeconds,
             dismissalDateUnixSeconds: dismissalDateUnixSeconds, alert: alert)
    }
}
