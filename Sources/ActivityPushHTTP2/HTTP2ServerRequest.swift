/// One complete request as the server role hands it to the application (on the loop thread).
package struct HTTP2ServerRequest: Sendable {
    package var method: String
    package var path: String
    package var authority: String?
    /// Regular header fields in arrival order (pseudo-headers excluded), at most `headerLimit` of them.
    package var headers: [HTTP2Header]
    /// The body, cut at the server's stored-body limit; `bodyLength` counts every byte received.
    package var body: [UInt8]
    package var bodyLength: Int
    package var streamID: Int32
    package var connectionID: Int
}
