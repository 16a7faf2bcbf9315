import CCurl
import Foundation

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
    /// This context's parsed URL (`CURLU`), handed to libcurl with `CURLOPT_CURLU`.
    private var urlHandle: OpaquePointer?
    /// `scheme://authority` of the URL last parsed whole into `urlHandle` (nil: none, or its path was not plain).
    private var parsedOrigin: [UInt8]?
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
        var rc = setURL(easy, r.url)
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
        for h in r.headers { list = Self.append(list, h.name, h.value) }
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

    /// Sets the request URL. An absolute http(s) URL is parsed here into this context's `CURLU` and handed over
    /// with `CURLOPT_CURLU`: libcurl then uses the parts as they are, instead of parsing the URL string and printing
    /// it back whole (character by character) for every transfer. Anything else, or a URL that does not parse,
    /// goes through `CURLOPT_URL` as before, so libcurl reports the same errors.
    /// When only a plain path (letters, digits, `/`, `-`, `_`: nothing libcurl would normalise) differs from the
    /// previous URL, only the path part is replaced.
    private func setURL(_ easy: UnsafeMutableRawPointer, _ url: String) -> CURLcode {
        if urlHandle == nil { urlHandle = curl_url() }
        if let u = urlHandle {
            // libcurl reads the URL as a C string, so does this (up to a NUL, like CURLOPT_URL).
            let done = url.withCString { c -> CURLcode? in
                let n = strlen(c)
                let p = UnsafeRawPointer(c).assumingMemoryBound(to: UInt8.self)
                guard Self.hasHTTPScheme(p, n) else { return nil }
                let split = Self.plainPathStart(p, n)
                if let split, let origin = parsedOrigin, origin.count == split,
                   origin.withUnsafeBytes({ memcmp($0.baseAddress!, p, split) }) == 0,
                   curl_url_set(u, CURLUPART_PATH, c + split, 0) == CURLUE_OK {
                    return ap_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, UnsafeRawPointer(u))
                }
                parsedOrigin = nil
                guard curl_url_set(u, CURLUPART_URL, c, ap_curlu_url_flags()) == CURLUE_OK else { return nil }
                if let split { parsedOrigin = Array(UnsafeBufferPointer(start: p, count: split)) }
                return ap_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, UnsafeRawPointer(u))
            }
            if let done { return done }
        }
        parsedOrigin = nil
        _ = ap_curl_easy_setopt_ptr(easy, CURLOPT_CURLU, nil)
        return ap_curl_easy_setopt_str(easy, CURLOPT_URL, url)
    }

    /// True when the C string starts with `https://` or `http://` (lowercase, as libcurl's own URLs).
    private static func hasHTTPScheme(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        guard n >= 7, p[0] == 0x68, p[1] == 0x74, p[2] == 0x74, p[3] == 0x70 else { return false }
        if p[4] == 0x3A { return p[5] == 0x2F && p[6] == 0x2F }
        return n >= 8 && p[4] == 0x73 && p[5] == 0x3A && p[6] == 0x2F && p[7] == 0x2F
    }

    /// Where the path of `scheme://authority/path` starts, when that path is plain (see ``setURL(_:_:)``), else nil.
    private static func plainPathStart(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var i = 0
        while i < n, p[i] != 0x3A { i += 1 }
        i += 3   // "://"
        while i < n, p[i] != 0x2F { i += 1 }
        guard i < n else { return nil }
        let start = i
        while i < n {
            let c = p[i]
            let plain = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == 0x2F || c == 0x2D || c == 0x5F
            if !plain { return nil }
            i += 1
        }
        return start
    }

    /// Appends `name: value` to a header list, assembling the line in a temporary buffer (no String built).
    private static func append(_ list: UnsafeMutablePointer<curl_slist>?, _ name: String,
                               _ value: String) -> UnsafeMutablePointer<curl_slist>? {
        var name = name, value = value
        let n = name.utf8.count, v = value.utf8.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n + v + 3) { buf in
            let base = buf.baseAddress!
            name.withUTF8 { if n > 0 { base.update(from: $0.baseAddress!, count: n) } }
            base[n] = 0x3A
            base[n + 1] = 0x20
            value.withUTF8 { if v > 0 { (base + n + 2).update(from: $0.baseAddress!, count: v) } }
            base[n + v + 2] = 0
            return base.withMemoryRebound(to: CChar.self, capacity: n + v + 3) { curl_slist_append(list, $0) }
        }
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
        if let urlHandle { curl_url_cleanup(urlHandle) }
        errorBuffer.deallocate()
    }

    /// One response header line from libcurl: a status line (`HTTP/2 200`) starts a new header set.
    fileprivate func headerLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.count >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {
            responseHeaders = Dictionary(minimumCapacity: 4)   // APNs sends 1–3 headers: one allocation
            return
        }
        guard let colon = line.firstIndex(of: 0x3A) else { return }
        var end = line.count
        while end > colon + 1, line[end - 1] == 0x0A || line[end - 1] == 0x0D || line[end - 1] == 0x20 { end -= 1 }
        var start = colon + 1
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        let raw = UnsafeBufferPointer(rebasing: line[0..<colon])
        let name = raw.contains(where: { $0 >= 0x41 && $0 <= 0x5A })
            ? String(decoding: raw, as: UTF8.self).lowercased() : String(decoding: raw, as: UTF8.self)
        let value = String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        responseHeaders[name] = value
    }
}
