import CCurl

/// One reusable libcurl easy handle and the buffers of the request it carries. Lives on one lane's loop thread.
final class HTTP2Transfer {
    let easy: UnsafeMutableRawPointer
    var job: HTTP2Job?
    private(set) var responseHeaders: [String: String] = [:]
    private(set) var responseBody: [UInt8] = []
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var isDelete = false

    init?(configuration c: HTTP2TransportConfiguration) {
        guard let e = curl_easy_init() else { return nil }
        easy = e
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ap_curl_easy_setopt_ptr(e, CURLOPT_PRIVATE, me)
        _ = ap_curl_easy_setopt_long(e, CURLOPT_NOSIGNAL, 1)
        _ = ap_curl_easy_setopt_long(e, CURLOPT_PIPEWAIT, 1)
        _ = ap_curl_easy_setopt_long(e, CURLOPT_TIMEOUT_MS, Int(c.requestTimeoutSeconds * 1000))
        _ = ap_curl_easy_setopt_long(e, CURLOPT_CONNECTTIMEOUT_MS, Int(c.connectTimeoutSeconds * 1000))
        if c.keepaliveSeconds > 0 {
            _ = ap_curl_easy_setopt_long(e, CURLOPT_UPKEEP_INTERVAL_MS, Int(c.keepaliveSeconds * 1000))
            _ = ap_curl_easy_setopt_long(e, CURLOPT_TCP_KEEPALIVE, 1)
            _ = ap_curl_easy_setopt_long(e, CURLOPT_TCP_KEEPIDLE, max(1, Int(c.keepaliveSeconds)))
            _ = ap_curl_easy_setopt_long(e, CURLOPT_TCP_KEEPINTVL, max(1, Int(c.keepaliveSeconds)))
        }
        if let ca = c.caFile { _ = ap_curl_easy_setopt_str(e, CURLOPT_CAINFO, ca) }
        if c.verbose { _ = ap_curl_easy_setopt_long(e, CURLOPT_VERBOSE, 1) }
        _ = ap_curl_easy_setopt_ptr(e, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ap_curl_easy_setopt_ptr(e, CURLOPT_WRITEDATA, me)
        _ = ap_curl_easy_setopt_write(e, CURLOPT_WRITEFUNCTION) { ptr, size, n, ud in
            let len = size * n
            guard let ud else { return 0 }
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(ud).takeUnretainedValue()
            if len > 0, let ptr { ptr.withMemoryRebound(to: UInt8.self, capacity: len) { t.responseBody.append(contentsOf: UnsafeBufferPointer(start: $0, count: len)) } }
            return len
        }
        _ = ap_curl_easy_setopt_ptr(e, CURLOPT_HEADERDATA, me)
        _ = ap_curl_easy_setopt_write(e, CURLOPT_HEADERFUNCTION) { ptr, size, n, ud in
            let len = size * n
            guard let ud, let ptr else { return len }
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(ud).takeUnretainedValue()
            ptr.withMemoryRebound(to: UInt8.self, capacity: len) { t.headerLine(UnsafeBufferPointer(start: $0, count: len)) }
            return len
        }
    }

    /// Sets URL, method, headers and body for the next request; returns a libcurl error when an option is refused.
    func prepare(_ r: HTTP2Request) -> CURLcode? {
        clearResponse()
        errorBuffer[0] = 0
        var rc = ap_curl_easy_setopt_str(easy, CURLOPT_URL, r.url)
        if rc != CURLE_OK { return rc }
        let version = r.url.hasPrefix("http://") ? ap_curl_http_version_2_prior_knowledge() : ap_curl_http_version_2tls()
        _ = ap_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, version)

        if let headerList { curl_slist_free_all(headerList) }
        // Drop libcurl's default `accept`, `content-type` (form) and `expect` headers: APNs wants only its own.
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Accept:")
        list = curl_slist_append(list, "Expect:")
        if r.method == "POST" { list = curl_slist_append(list, "Content-Type:") }
        for h in r.headers { list = curl_slist_append(list, "\(h.name): \(h.value)") }
        headerList = list
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list)

        switch r.method {
        case "POST":
            if isDelete { _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, nil); isDelete = false }
            _ = ap_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(r.body.count))
            rc = r.body.withUnsafeBytes { b in
                ap_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, b.count == 0 ? UnsafeRawPointer(("" as StaticString).utf8Start) : b.baseAddress)
            }
        case "GET":
            if isDelete { _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, nil); isDelete = false }
            rc = ap_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "DELETE":
            _ = ap_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
            rc = ap_curl_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, "DELETE")
            isDelete = true
        default:
            return CURLE_UNSUPPORTED_PROTOCOL
        }
        return rc == CURLE_OK ? nil : rc
    }

    func clearResponse() {
        responseHeaders = [:]
        responseBody = []
    }

    var errorText: String { String(cString: errorBuffer) }

    /// Frees the header list and error buffer (the easy handle is cleaned up by the lane).
    func release() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        errorBuffer.deallocate()
    }

    /// One response header line from libcurl: a status line (`HTTP/2 200`) starts a new header set.
    fileprivate func headerLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.count >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {
            responseHeaders = [:]
            return
        }
        guard let colon = line.firstIndex(of: 0x3A) else { return }
        var end = line.count
        while end > colon + 1, line[end - 1] == 0x0A || line[end - 1] == 0x0D || line[end - 1] == 0x20 { end -= 1 }
        var start = colon + 1
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: line[0..<colon]), as: UTF8.self).lowercased()
        let value = String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        responseHeaders[name] = value
    }
}
