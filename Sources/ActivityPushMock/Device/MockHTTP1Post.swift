import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 `POST` of a JSON body to `http://HOST:PORT/path` (numeric IPv4 or `localhost`), with a
/// connect/read timeout. Enough for the mock to play the app against a loopback `serve`; not a general client.
enum MockHTTP1Post {
    /// The answer's status code, or the reason it failed.
    static func post(url: String, path: String, json: String, bearer: String?, timeoutSeconds: Int = 5) -> Result<Int, MockAPNsError> {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host else {
            return .failure(.socket("--report-tokens-to must be http://HOST:PORT (the serve URL), got \(url)"))
        }
        let port = components.port ?? 80
        let address = host == "localhost" ? "127.0.0.1" : host
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return .failure(.socket("socket: \(String(cString: strerror(errno)))")) }
        defer { close(socketFD) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &target.sin_addr) == 1 else {
            return .failure(.socket("--report-tokens-to: '\(host)' is not a numeric IPv4 address or localhost"))
        }
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return .failure(.socket("connect \(url): \(String(cString: strerror(errno)))")) }
        let body = Array(json.utf8)
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n"
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + body
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return .failure(.socket("write \(url): \(String(cString: strerror(errno)))")) }
            written += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 64 * 1024 {
            let count = recv(socketFD, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        let statusLine = String(decoding: answer.prefix(while: { $0 != 13 && $0 != 10 }), as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            return .failure(.socket("\(url)\(path): no HTTP answer"))
        }
        return .success(status)
    }
}
