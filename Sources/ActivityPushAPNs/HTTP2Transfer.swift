import CCurl

/// The buffers of one request and the libcurl easy handle carrying it. Contexts, each with its easy handle
/// (duplicated once from the lane's template), are pooled per lane and reused. Lives on one lane's loop thread.
final class HTTP2Transfer {
    private(set) var easy: UnsafeMutableRawPointer?
    var job: HTTP2Job?
    private(set) var responseHeaders: [String: String] = [:]
    private(set) var responseBody: [UInt8] = []
    private var requestBody: [UInt8] = []
    private var readOffset = 0
    /// True once libcurl started reading the request body, i.e. the request's HEADERS went out: from then on
    /// the server may have processed it, even if libcurl later reconnects and fails.
    private(set) var bodyReadStarted = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    static let h2cReuseBroken = ap_curl_version_num() < 0x08_00_00

    init() {
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    /// The easy handle every request starts from: the options that never change.
    static func makeTemplate(_ c: HTTP2TransportConfiguration) -> UnsafeMutableRawPointer? {
        guard let e = curl_easy_init() else { return nil }
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
        _ = ap_curl_easy_setopt_write(e, CURLOPT_WRITEFUNCTION) { ptr, size, n, ud in
            let len = size * n
            guard let ud else { return 0 }
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(ud).takeUnretainedValue()
            if len > 0, let ptr { ptr.withMemoryRebound(to: UInt8.self, capacity: len) { t.responseBody.append(contentsOf: UnsafeBufferPointer(start: $0, count: len)) } }
            return len
        }
        // The body is handed over through a read callback (not POSTFIELDS) so the transfer knows when it went out.
        // Rewinds are refused once it did: libcurl would otherwise resend a request on a fresh connection when a
        // reused one died before answering — a request the server may already have processed (a duplicate push).
        // The request then fails with "may have been processed" and the caller decides.
        _ = ap_curl_easy_setopt_write(e, CURLOPT_READFUNCTION) { ptr, size, n, ud in
            guard let ud, let ptr else { return 0 }
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(ud).takeUnretainedValue()
            t.bodyReadStarted = true
            let count = min(size * n, t.requestBody.count - t.readOffset)
            if count > 0 {
                t.requestBody.withUnsafeBytes { b in
                    UnsafeMutableRawPointer(ptr).copyMemory(from: b.baseAddress! + t.readOffset, byteCount: count)
                }
                t.readOffset += count
            }
            return count
        }
        _ = ap_curl_easy_setopt_seek(e) { ud, offset, origin in
            guard let ud, origin == SEEK_SET, offset == 0 else { return 2 }   // CURL_SEEKFUNC_CANTSEEK
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(ud).takeUnretainedValue()
            return t.bodyReadStarted ? 2 : 0
        }
        _ = ap_curl_easy_setopt_write(e, CURLOPT_HEADERFUNCTION) { ptr, size, n, ud in
            let len = size * n
            guard let ud, let ptr else { return len }
            let t = Unmanaged<HTTP2Transfer>.fromOpaque(ud).takeUnretainedValue()
            ptr.withMemoryRebound(to: UInt8.self, capacity: len) { t.headerLine(UnsafeBufferPointer(start: $0, count: len)) }
            return len
        }
        return e
    }

    /// Sets URL, method, headers and body for the next request; returns a libcurl error when an option is refused.
    /// True when this request closes its connection after use (connection rotation).
    private(set) var closesConnection = false

    func prepare(_ r: HTTP2Request, template: UnsafeMutableRawPointer, closeAfter: Bool = false) -> CURLcode? {
        clearResponse()
        errorBuffer[0] = 0
        // One easy handle per context, duplicated from the template once and reused for later requests.
        let easy: UnsafeMutableRawPointer
        if let e = self.easy { easy = e } else {
            guard let e = curl_easy_duphandle(template) else { return CURLE_OUT_OF_MEMORY }
            self.easy = e
            easy = e
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me)
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me)
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me)
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_READDATA, me)
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_SEEKDATA, me)
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        closesConnection = closeAfter
        _ = ap_curl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, closeAfter || (cleartextNoReuse(r.url)) ? 1 : 0)
        requestBody = r.body
        readOffset = 0
        bodyReadStarted = false
        var rc = ap_curl_easy_setopt_str(easy, CURLOPT_URL, r.url)
        if rc != CURLE_OK { return rc }
        let cleartext = r.url.hasPrefix("http://")
        _ = ap_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION,
                                     cleartext ? ap_curl_http_version_2_prior_knowledge() : ap_curl_http_version_2tls())
        // libcurl before 8.0 fails every request after the first on a reused prior-knowledge (h2c) connection
        // with CURLE_HTTP2 (seen with 7.88.1, curl's own CLI too); there, each h2c request gets its own connection
        // (CURLOPT_FORBID_REUSE above).
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
            _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, nil)
            _ = ap_curl_easy_setopt_long(easy, CURLOPT_POST, 1)
            rc = ap_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(r.body.count))
        case "GET":
            _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, nil)
            rc = ap_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "DELETE":
            _ = ap_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
            rc = ap_curl_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, "DELETE")
        default:
            return CURLE_UNSUPPORTED_PROTOCOL
        }
        return rc == CURLE_OK ? nil : rc
    }

    /// Frees the request's header list after its transfer (the easy handle is kept for the next request).
    func endTransfer() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    private func cleartextNoReuse(_ url: String) -> Bool { Self.h2cReuseBroken && url.hasPrefix("http://") }

    func clearResponse() {
        responseHeaders = [:]
        responseBody = []
        requestBody = []
    }

    var errorText: String { String(cString: errorBuffer) }

    deinit {
        endTransfer()
        if let easy { curl_easy_cleanup(easy) }
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
