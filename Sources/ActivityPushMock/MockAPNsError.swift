/// Why the mock could not start or could not read its configuration. Each message names the file or flag and
/// the fix.
public enum MockAPNsError: Error, Sendable, CustomStringConvertible {
    /// Binding or listening failed (address in use, address not on this machine).
    case socket(String)
    /// The host to bind is not a numeric IP address (`localhost` is accepted as 127.0.0.1).
    case host(String)
    /// TLS set-up or certificate generation failed.
    case tls(String)
    /// The `.p8` provider key could not be read.
    case authKey(String)
    /// A `--faults` spec could not be parsed.
    case faults(String)
    /// The journal file could not be opened.
    case journal(String)

    public var description: String {
        switch self {
        case .socket(let message), .host(let message), .tls(let message), .authKey(let message), .faults(let message),
             .journal(let message):
            return message
        }
    }
}
