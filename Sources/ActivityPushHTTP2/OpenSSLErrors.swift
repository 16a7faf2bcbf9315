import COpenSSL

/// The queued OpenSSL error strings, joined (empties the thread's queue).
package func openSSLErrors() -> String {
    var parts: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.isEmpty ? "no OpenSSL error" : parts.joined(separator: "; ")
}
