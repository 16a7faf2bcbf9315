#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listening sockets for the server role.
package enum ServerSocket {
    /// Binds and listens on `host:port` (port 0: the kernel picks one); the socket is non-blocking and
    /// close-on-exec. `host` is a numeric IPv4 or IPv6 address, or `localhost` (meaning 127.0.0.1) — no name
    /// lookup, like `activity-push serve` (a name could resolve to an address the user did not mean to expose).
    /// - Returns: the descriptor and the bound port.
    /// - Throws: ``HTTP2TransportError`` `.address` when `host` is not numeric, `.socket` when binding fails
    ///   (port in use, address not on this machine), each naming the host or port and the fix.
    package static func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> (descriptor: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST
        var found: UnsafeMutablePointer<addrinfo>?
        let lookupHost = host == "localhost" ? "127.0.0.1" : host
        let status = getaddrinfo(lookupHost, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw HTTP2TransportError(.address, "--host '\(host)' is not a numeric IP address; use e.g. 127.0.0.1, ::1 or 0.0.0.0")
        }
        defer { freeaddrinfo(found) }
        var lastError = ""
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            candidate = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.ai_protocol)
            if descriptor < 0 { lastError = Descriptors.lastErrorText(); continue }
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Glibc)
            let listened = bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 && Glibc.listen(descriptor, backlog) == 0
            #else
            let listened = bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 && Darwin.listen(descriptor, backlog) == 0
            #endif
            guard listened else {
                lastError = Descriptors.lastErrorText()
                Descriptors.close(descriptor)
                continue
            }
            Descriptors.setNonBlocking(descriptor)
            return (descriptor, boundPort(descriptor))
        }
        throw HTTP2TransportError(.socket, "cannot listen on \(host):\(port): \(lastError); pick another --port or 0 for any free port")
    }

    /// The local port a socket is bound to.
    package static func boundPort(_ descriptor: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(descriptor, $0, &length) }
            if pointer.pointee.ss_family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }
}
