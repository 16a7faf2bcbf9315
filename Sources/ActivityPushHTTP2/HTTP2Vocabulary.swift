/// An HTTP/2 frame type (RFC 9113 §6). An open set: unknown extension frames keep their number.
package struct HTTP2FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let data = HTTP2FrameType(rawValue: 0x0)
    package static let headers = HTTP2FrameType(rawValue: 0x1)
    package static let priority = HTTP2FrameType(rawValue: 0x2)
    package static let rstStream = HTTP2FrameType(rawValue: 0x3)
    package static let settings = HTTP2FrameType(rawValue: 0x4)
    package static let pushPromise = HTTP2FrameType(rawValue: 0x5)
    package static let ping = HTTP2FrameType(rawValue: 0x6)
    package static let goaway = HTTP2FrameType(rawValue: 0x7)
    package static let windowUpdate = HTTP2FrameType(rawValue: 0x8)
    package static let continuation = HTTP2FrameType(rawValue: 0x9)
    package var description: String {
        switch self {
        case .data: return "DATA"
        case .headers: return "HEADERS"
        case .priority: return "PRIORITY"
        case .rstStream: return "RST_STREAM"
        case .settings: return "SETTINGS"
        case .pushPromise: return "PUSH_PROMISE"
        case .ping: return "PING"
        case .goaway: return "GOAWAY"
        case .windowUpdate: return "WINDOW_UPDATE"
        case .continuation: return "CONTINUATION"
        default: return "frame-0x" + String(rawValue, radix: 16)
        }
    }
}

/// An HTTP/2 error code carried by RST_STREAM and GOAWAY (RFC 9113 §7). Open set.
package struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }
    package static let noError = HTTP2ErrorCode(rawValue: 0x0)
    package static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    package static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    package static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    package static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    /// The stream was not processed at all; the client may retry it as is (RFC 9113 §8.7).
    package static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    package static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    package static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    package var description: String {
        switch self {
        case .noError: return "NO_ERROR"
        case .protocolError: return "PROTOCOL_ERROR"
        case .internalError: return "INTERNAL_ERROR"
        case .flowControlError: return "FLOW_CONTROL_ERROR"
        case .streamClosed: return "STREAM_CLOSED"
        case .refusedStream: return "REFUSED_STREAM"
        case .cancel: return "CANCEL"
        case .enhanceYourCalm: return "ENHANCE_YOUR_CALM"
        default: return "error-0x" + String(rawValue, radix: 16)
        }
    }
}

/// An HTTP/2 SETTINGS parameter (RFC 9113 §6.5.2). Open set.
package struct HTTP2SettingID: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    package static let headerTableSize = HTTP2SettingID(rawValue: 0x1)
    package static let enablePush = HTTP2SettingID(rawValue: 0x2)
    package static let maxConcurrentStreams = HTTP2SettingID(rawValue: 0x3)
    package static let initialWindowSize = HTTP2SettingID(rawValue: 0x4)
    package static let maxFrameSize = HTTP2SettingID(rawValue: 0x5)
    package static let maxHeaderListSize = HTTP2SettingID(rawValue: 0x6)
}

/// What a received or sent frame was, as the session's delegate sees it.
package struct HTTP2FrameSummary: Sendable, Equatable {
    package var type: HTTP2FrameType
    package var streamID: Int32
    package var flags: UInt8
    /// RST_STREAM's and GOAWAY's error code; `.noError` for other frames.
    package var errorCode: HTTP2ErrorCode = .noError
    /// GOAWAY's last-stream-id; 0 for other frames.
    package var lastStreamID: Int32 = 0
    /// SETTINGS carried (not for an ACK).
    package var settings: [HTTP2Setting] = []

    package var endsStream: Bool { flags & 0x1 != 0 && (type == .data || type == .headers) }
    package var isAcknowledgement: Bool { flags & 0x1 != 0 && (type == .settings || type == .ping) }
}

/// One SETTINGS entry.
package struct HTTP2Setting: Sendable, Equatable {
    package var id: HTTP2SettingID
    package var value: UInt32
    package init(_ id: HTTP2SettingID, _ value: UInt32) {
        self.id = id
        self.value = value
    }
}

/// A header field; names are lowercase on HTTP/2, pseudo-headers start with `:`.
package struct HTTP2Header: Sendable, Hashable {
    package var name: String
    package var value: String
    /// Sent as an HPACK literal never added to the dynamic table (RFC 7541 §6.2.3): for values unique to one
    /// request (an `apns-id`), whose indexing would only evict the fields that repeat.
    package var neverIndexed: Bool
    package init(_ name: String, _ value: String, neverIndexed: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndexed = neverIndexed
    }
}
