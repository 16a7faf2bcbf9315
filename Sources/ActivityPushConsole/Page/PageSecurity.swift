/// Headers every HTML page of the console carries: its own script and style only, and never framed
/// (clickjacking), in the header (CSP `frame-ancestors`) and the older `X-Frame-Options`.
enum PageSecurity {
    static let headers: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"), ("X-Frame-Options", "DENY"),
    ]
}
