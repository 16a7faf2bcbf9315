import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One address a host name resolved to: the family (`AF_INET`, `AF_INET6`) and the `sockaddr` bytes.
package struct HTTP2ResolvedAddress: Sendable, Hashable {
    package var family: Int32
    package var socketAddress: [UInt8]
}

/// Name resolution for the client. `getaddrinfo` blocks (for seconds when a DNS server is slow), so the client
/// never calls it on its event loop: numeric addresses are converted there (`AI_NUMERICHOST`, which does not
/// block), every other name is resolved by ``resolve`` on a separate thread and the result handed back to the
/// loop. Injectable for tests (a resolver that is slow on purpose).
package struct HTTP2Resolver: Sendable {
    /// Host (IPv6 without brackets) and port → addresses in the order to try, or a message naming the host.
    package var resolve: @Sendable (_ host: String, _ port: Int) -> Result<[HTTP2ResolvedAddress], HTTP2ClientError>

    package init(resolve: @escaping @Sendable (_ host: String, _ port: Int) -> Result<[HTTP2ResolvedAddress], HTTP2ClientError>) {
        self.resolve = resolve
    }

    /// `getaddrinfo` (IPv4 and IPv6, `AF_UNSPEC`), in the order it returns.
    package static let system = HTTP2Resolver { host, port in addresses(host: host, port: port, numericOnly: false) }

    /// The addresses of a numeric host (`127.0.0.1`, `::1`) without any lookup; nil when `host` is a name.
    static func numeric(host: String, port: Int) -> [HTTP2ResolvedAddress]? {
        if case .success(let list) = addresses(host: host, port: port, numericOnly: true), !list.isEmpty { return list }
        return nil
    }

    private static func addresses(host: String, port: Int, numericOnly: Bool) -> Result<[HTTP2ResolvedAddress], HTTP2ClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let first = list else {
            return .failure(HTTP2ClientError(.cannotResolve, setting: host, "cannot resolve \(host): \(String(cString: gai_strerror(code)))",
                                              fix: "check the host name in --url (or the proxy variable) and this machine's DNS"))
        }
        defer { freeaddrinfo(list) }
        var out: [HTTP2ResolvedAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let bytes = UnsafeRawBufferPointer(start: current.pointee.ai_addr, count: Int(current.pointee.ai_addrlen))
            out.append(HTTP2ResolvedAddress(family: current.pointee.ai_family, socketAddress: Array(bytes)))
        }
        return .success(out)
    }
}
