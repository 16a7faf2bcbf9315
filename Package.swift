// swift-tools-version:6.0
// ActivityPush — build, check and send Apple Live Activity pushes from a Swift server.
import PackageDescription

let package = Package(
    name: "ActivityPush",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ActivityPushCore", targets: ["ActivityPushCore"]),
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
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),   // <sys/epoll.h>, <sys/eventfd.h> (glibc)
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPQ", path: "Sources/CPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),

        // Pure Swift + Foundation: JSON, schema, payload builder, validator, diagnosis.
        .target(name: "ActivityPushCore"),
        // HTTP/2 on libnghttp2 + OpenSSL with an epoll loop: the client role (APNs client) lives here.
        .target(name: "ActivityPushHTTP2", dependencies: ["CNghttp2", "COpenSSL", "CEpoll"]),
        .target(name: "ActivityPushAPNs", dependencies: ["ActivityPushCore", "ActivityPushHTTP2", "COpenSSL"]),
        .target(name: "ActivityPushMock", dependencies: ["ActivityPushCore", "CNghttp2", "COpenSSL"]),
        .target(name: "ActivityPushQueue", dependencies: ["ActivityPushCore", "ActivityPushAPNs", "CSQLite", "CPQ"]),
        .target(name: "ActivityPushConsole",
                dependencies: ["ActivityPushCore", "ActivityPushAPNs", "ActivityPushQueue", "CMicroHTTPD"]),
        .executableTarget(name: "activity-push",
                          dependencies: ["ActivityPushCore", "ActivityPushAPNs", "ActivityPushMock",
                                         "ActivityPushQueue", "ActivityPushConsole"]),

        .testTarget(name: "ActivityPushCoreTests", dependencies: ["ActivityPushCore"]),
        // Runs the built `activity-push` executable (exit statuses, output formats).
        .testTarget(name: "ActivityPushCLITests"),
        .testTarget(name: "ActivityPushAPNsTests", dependencies: ["ActivityPushAPNs", "ActivityPushHTTP2", "ActivityPushMock"]),
        .testTarget(name: "ActivityPushMockTests", dependencies: ["ActivityPushMock"]),
        .testTarget(name: "ActivityPushQueueTests", dependencies: ["ActivityPushQueue", "ActivityPushMock"]),
        .testTarget(name: "ActivityPushConsoleTests", dependencies: ["ActivityPushConsole", "ActivityPushMock"]),
    ],
    swiftLanguageModes: [.v6]
)
