/// An HTTP request method (RFC 9110 §9), as an open set: the methods the console registers routes for are named,
/// any other arrives as its own spelling and is answered 405 by the router.
struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method as sent on the request line, upper case (`GET`).
    let rawValue: String

    init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    static let get = HTTPMethod(rawValue: "GET")
    static let head = HTTPMethod(rawValue: "HEAD")
    static let post = HTTPMethod(rawValue: "POST")
    static let put = HTTPMethod(rawValue: "PUT")
    static let patch = HTTPMethod(rawValue: "PATCH")
    static let delete = HTTPMethod(rawValue: "DELETE")

    var description: String { rawValue }

    /// The method a route is looked up under: `HEAD` is served by the `GET` route (RFC 9110 §9.3.2).
    var routed: HTTPMethod { self == .head ? .get : self }

    /// The key of this method's operation in an OpenAPI path item (`get`, `post`, …).
    var openAPIKey: String { rawValue.lowercased() }
}
