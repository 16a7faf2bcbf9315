/// Why a socket, TLS or HTTP/2 session could not be set up. `message` names the call that failed and, where
/// there is one, the fix; the server and client roles wrap it into their own error types.
package struct HTTP2TransportError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// A host that is not a numeric IP address where one is required (the server's bind address).
        case address
        /// socket(), bind(), listen(), getaddrinfo(), epoll or eventfd failed.
        case socket
        /// OpenSSL set-up (context, certificate, key, CA) failed.
        case tls
        /// nghttp2 could not create a session (out of memory).
        case session
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
