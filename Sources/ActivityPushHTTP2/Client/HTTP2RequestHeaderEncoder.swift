import CNghttp2

/// Builds the `nghttp2_nv` array of a client request without a `String` or `Array` per request: the constant
/// fields of a connection (`:method POST`, `:scheme`, `:authority`, the names `:path` and `content-length`) are
/// encoded once into a buffer that lives as long as the connection, and each request's own names and values are
/// copied (memcpy, lowercasing names) into one scratch buffer that is reused for the next request. nghttp2
/// copies every name and value during `nghttp2_submit_request`, so neither buffer needs to outlive the call.
/// Loop thread only.
final class HTTP2RequestHeaderEncoder {
    /// Offsets into ``constants``.
    private struct Field { var offset: Int; var count: Int }
    private let constants: UnsafeMutableBufferPointer<UInt8>
    private let methodName, post, get, delete, schemeName, scheme, authorityName, authority, pathName, contentLength: Field
    private var scratch: UnsafeMutableBufferPointer<UInt8>
    private var pairs: UnsafeMutableBufferPointer<nghttp2_nv>

    init(scheme schemeText: String, authority authorityText: String) {
        let texts = [":method", "POST", "GET", "DELETE", ":scheme", schemeText, ":authority", authorityText, ":path",
                     "content-length"]
        var total = 0
        for text in texts { total += text.utf8.count }
        constants = .allocate(capacity: total)
        var fields: [Field] = []
        var offset = 0
        for text in texts {
            let count = text.utf8.count
            _ = UnsafeMutableBufferPointer(rebasing: constants[offset..<offset + count]).initialize(from: text.utf8)
            fields.append(Field(offset: offset, count: count))
            offset += count
        }
        (methodName, post, get, delete, schemeName, scheme, authorityName, authority, pathName, contentLength) =
            (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6], fields[7], fields[8], fields[9])
        scratch = .allocate(capacity: 4096)
        pairs = .allocate(capacity: 32)
    }

    deinit {
        constants.deallocate()
        scratch.deallocate()
        pairs.deallocate()
    }

    /// Calls `body` with the request's name/value pairs: pseudo-headers first (RFC 9113 §8.3), then the request's
    /// fields with lowercase names, then `content-length` for a POST.
    func withNameValues<Result>(of request: HTTP2Request, _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result) -> Result {
        let fieldCount = request.headers.count + 5
        if fieldCount > pairs.count {
            pairs.deallocate()
            pairs = .allocate(capacity: max(fieldCount, pairs.count * 2))
        }
        var needed = request.path.utf8.count + request.method.utf8.count + 24
        for header in request.headers { needed += header.name.utf8.count + header.value.utf8.count }
        if needed > scratch.count {
            scratch.deallocate()
            scratch = .allocate(capacity: max(needed, scratch.count * 2))
        }
        let base = constants.baseAddress!
        let flags = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        func constant(_ name: Field, _ value: Field) -> nghttp2_nv {
            nghttp2_nv(name: base + name.offset, value: base + value.offset, namelen: name.count, valuelen: value.count, flags: flags)
        }
        var used = 0
        let scratchBase = scratch.baseAddress!
        func copy(_ text: String, lowercase: Bool) -> (UnsafeMutablePointer<UInt8>, Int) {
            let start = scratchBase + used
            var text = text
            let count = text.withUTF8 { bytes -> Int in
                guard let source = bytes.baseAddress else { return 0 }
                start.update(from: source, count: bytes.count)
                return bytes.count
            }
            if lowercase {
                for index in 0..<count where start[index] >= 0x41 && start[index] <= 0x5A { start[index] |= 0x20 }
            }
            used += count
            return (start, count)
        }
        let method: Field? = switch request.method {
        case "POST": post
        case "GET": get
        case "DELETE": delete
        default: nil
        }
        var count = 0
        if let method {
            pairs[count] = constant(methodName, method)
        } else {
            let (value, length) = copy(request.method, lowercase: false)
            pairs[count] = nghttp2_nv(name: base + methodName.offset, value: value, namelen: methodName.count, valuelen: length, flags: flags)
        }
        count += 1
        pairs[count] = constant(schemeName, scheme); count += 1
        pairs[count] = constant(authorityName, authority); count += 1
        // Values unique to one request (`:path` with its device token; fields marked `neverIndexed`, e.g. the
        // `apns-id`) are not added to the HPACK dynamic table (RFC 7541 §6.2.3): indexing them only evicts the
        // fields that repeat (`authorization`, `apns-topic`) and costs both ends a table insertion per request.
        let neverIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        let (path, pathLength) = copy(request.path, lowercase: false)
        pairs[count] = nghttp2_nv(name: base + pathName.offset, value: path, namelen: pathName.count, valuelen: pathLength, flags: neverIndexed)
        count += 1
        for header in request.headers {
            let (name, nameLength) = copy(header.name, lowercase: true)
            let (value, valueLength) = copy(header.value, lowercase: false)
            pairs[count] = nghttp2_nv(name: name, value: value, namelen: nameLength, valuelen: valueLength,
                                      flags: header.neverIndexed ? neverIndexed : flags)
            count += 1
        }
        if request.method == "POST" {
            // The decimal length, written backwards into the scratch buffer.
            var digits = request.body.count
            var length = 0
            var reversed: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                           UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &reversed) { buffer in
                repeat {
                    buffer[length] = UInt8(ascii: "0") + UInt8(digits % 10)
                    digits /= 10
                    length += 1
                } while digits > 0
                for index in 0..<length { scratchBase[used + index] = buffer[length - 1 - index] }
            }
            pairs[count] = nghttp2_nv(name: base + contentLength.offset, value: scratchBase + used, namelen: contentLength.count,
                                      valuelen: length, flags: flags)
            used += length
            count += 1
        }
        return body(UnsafeBufferPointer(start: pairs.baseAddress, count: count))
    }
}
