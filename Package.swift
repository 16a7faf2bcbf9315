// swift-tools-version:6.0
// ActivityPush — build, check and send Apple Live Activity pushes from a Swift server.
import PackageDescription

let package = Package(
    name: "ActivityPush",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ActivityPushCore", targets: ["ActivityPushCore"]),
        .library(name: "ActivityPushDiagnosis", targets: ["ActivityPushDiagnosis"]),
        .library(name: "ActivityPushAPNs", targets: ["ActivityPushAPNs"]),
        .library(name: "ActivityPushMock", targets: ["ActivityPushMock"]),
        .library(name: "ActivityPushQueue", targets: ["ActivityPushQueue"]),
        .library(name: "ActivityPushConsole", targets: ["ActivityPushConsole"]),
        .executable(name: "activity-push", targets: ["activity-push"]),
    ],
    targets: [
        // System libraries (Debian -dev packages); each has a module map and, where needed, a tiny C shim header.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNghttp2", path: "Sources/CNghttp2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPQ", path: "Sources/CPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        // Linux epoll + eventfd for ActivityPushHTTP2's event loop (headers only; part of libc).
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),

        // Pure Swift + Foundation: JSON, schema, payload builder, validator, the APNs vocabulary.
        .target(name: "ActivityPushCore"),
        // Device-log analysis and the payload-site audit (pure Swift, used by the CLI).
        .target(name: "ActivityPushDiagnosis", dependencies: ["ActivityPushCore"]),
        // The HTTP/2 stack both roles share (epoll event loop, TLS, nghttp2 session glue; server role for
        // mock-apns, client role for the APNs client); `package` API only.
        .target(name: "ActivityPushHTTP2", dependencies: ["CNghttp2", "COpenSSL", "CEpoll"]),
        .target(name: "ActivityPushAPNs", dependencies: ["ActivityPushCore", "ActivityPushHTTP2", "COpenSSL"]),
        .target(name: "ActivityPushMock", dependencies: ["ActivityPushCore", "ActivityPushHTTP2", "CNghttp2", "COpenSSL"]),
        .target(name: "ActivityPushQueue", dependencies: ["ActivityPushCore", "ActivityPushAPNs", "CSQLite", "CPQ", "COpenSSL"]),
        .target(name: "ActivityPushConsole",
                dependencies: ["ActivityPushCore", "ActivityPushAPNs", "ActivityPushQueue", "CMicroHTTPD"]),
        .executableTarget(name: "activity-push",
                          dependencies: ["ActivityPushCore", "ActivityPushDiagnosis", "ActivityPushAPNs", "ActivityPushMock",
                                         "ActivityPushQueue", "ActivityPushConsole"]),

        .testTarget(name: "ActivityPushCoreTests", dependencies: ["ActivityPushCore", "ActivityPushDiagnosis"]),
        .testTarget(name: "ActivityPushDiagnosisTests", dependencies: ["ActivityPushDiagnosis"]),
        // Runs the built `activity-push` executable (exit statuses, output formats); the builder-input parity test
        // also drives the console API in process.
        .testTarget(name: "ActivityPushCLITests", dependencies: ["ActivityPushConsole"]),
        // The CLI's option layer (parsing, help, errors) in process: `@testable import activity_push`.
        .testTarget(name: "ActivityPushCLIOptionTests", dependencies: ["activity-push"]),
        .testTarget(name: "ActivityPushAPNsTests", dependencies: ["ActivityPushAPNs", "ActivityPushHTTP2", "ActivityPushMock"]),
        .testTarget(name: "ActivityPushMockTests", dependencies: ["ActivityPushMock", "ActivityPushHTTP2", "ActivityPushDiagnosis"]),
        .testTarget(name: "ActivityPushHTTP2Tests", dependencies: ["ActivityPushHTTP2"]),
        .testTarget(name: "ActivityPushQueueTests", dependencies: ["ActivityPushQueue", "ActivityPushMock", "ActivityPushConsole"]),
        .testTarget(name: "ActivityPushConsoleTests", dependencies: ["ActivityPushConsole", "ActivityPushMock"]),
    ],
    swiftLanguageModes: [.v6]
)
