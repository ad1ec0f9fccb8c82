// swift-tools-version:6.2
import PackageDescription

/// `WEBIMAGE_INSTRUMENT=address` builds this package for the AddressSanitizer suite and the fuzz harnesses
/// (`scripts/test-address`, `scripts/fuzz`; never set by users). Only this package's own targets are then compiled
/// with AddressSanitizer and libFuzzer's coverage instrumentation; the dependencies are compiled exactly as in a
/// plain build, so the plain suite, the AddressSanitizer suite and the fuzz harnesses share one build folder in
/// which BoringSSL, NIO and Hummingbird (over half of a debug build) are compiled once. The harnesses, which read
/// internals through `@testable import`, are targets of the package only in this mode: a release build never
/// sees them.
let instrumented = Context.environment["WEBIMAGE_INSTRUMENT"] == "address"
/// Coverage for libFuzzer: edges (inline counters with their table of addresses), comparisons, indirect calls.
/// Programs without libFuzzer (the test runner) get the AddressSanitizer runtime's empty coverage callbacks.
let coverage = "edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table"

/// Every Swift target is built in Swift 6 language mode with warnings treated as errors (and instrumented when
/// `instrumented`).
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
] + (instrumented ? [.unsafeFlags(["-sanitize=address", "-sanitize-coverage=\(coverage)"])] : [])
/// Our C wrappers, instrumented like the Swift targets.
let instrumentedC: [CSetting] = instrumented
    ? [.unsafeFlags(["-fsanitize=address", "-fsanitize-coverage=\(coverage)"])] : []
/// What every program (the test runner, the executables) links: the AddressSanitizer runtime when instrumented.
let programLinking: [LinkerSetting] = instrumented ? [.unsafeFlags(["-sanitize=address"])] : []

/// The libFuzzer harnesses (`Fuzz/`), built and run by `scripts/fuzz`: one executable for all of them, which
/// `scripts/fuzz` links with libFuzzer's runtime.
var fuzzTargets: [Target] {
    let plugins = ["WebImageAVIF", "WebImageHEIF", "WebImageJXL", "WebImageSVG", "WebImagePDF", "WebImageTIFF"]
    return [
        // A weak reference to libFuzzer's driver: `scripts/fuzz` links libFuzzer's runtime into the harnesses'
        // program, `swift test`'s link of the same program has none.
        .target(name: "CLibFuzzer", path: "Fuzz/Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["WebImage", "CLibFuzzer"], path: "Fuzz/Sources/FuzzSupport",
                swiftSettings: strict),
        .executableTarget(
            name: "FuzzHarnesses",
            // The plugin coders, which some harnesses drive (FuzzProperties drives them all); FuzzRESP drives
            // WebImageRedis, FuzzProxyURL the proxy's URL format.
            dependencies: ["FuzzSupport", "WebImage", "WebImageRedis", "WebImageProxyURL"]
                + plugins.map { .target(name: $0) },
            path: "Fuzz/Sources/FuzzHarnesses",
            swiftSettings: strict,
            linkerSettings: programLinking
        ),
    ]
}

/// `name` where pkg-config is needed to find a library's headers (Homebrew's prefix); `nil` on Linux, where they
/// are on the compiler's own paths.
func pkgConfigOffLinux(_ name: String) -> String? {
    #if os(Linux)
    return nil
    #else
    return name
    #endif
}

let package = Package(
    name: "swift-web-image",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        // Coders that need heavy system libraries are products of their own, registered with
        // `ImageCoders.shared.add(_:)`: a server that reads JPEG, PNG, GIF and WebP links none of them.
        .library(name: "WebImageAVIF", targets: ["WebImageAVIF"]),
        .library(name: "WebImageHEIF", targets: ["WebImageHEIF"]),
        .library(name: "WebImageJXL", targets: ["WebImageJXL"]),
        .library(name: "WebImageSVG", targets: ["WebImageSVG"]),
        .library(name: "WebImagePDF", targets: ["WebImagePDF"]),
        .library(name: "WebImageTIFF", targets: ["WebImageTIFF"]),
        .executable(name: "webimage", targets: ["WebImageCLI"]),
        // The image proxy behind `webimage serve`, for apps that embed it.
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        // The proxy's URL format alone (paths, processing options, presets, signatures), without the server:
        // what the fuzz harnesses drive, and what a client that builds or checks imgproxy URLs needs.
        .library(name: "WebImageProxyURL", targets: ["WebImageProxyURL"]),
        // A cache tier on Redis shared by several processes, with its own small RESP client.
        .library(name: "WebImageRedis", targets: ["WebImageRedis"]),
        // For the benchmark and soak packages beside this one (Benchmarks/, Reliability/), which are kept out of
        // this package so that `swift test` does not build them: the loopback test server and the C libraries'
        // shims they call directly. Not API.
        .library(name: "TestImageServer", targets: ["TestImageServer"]),
        .library(name: "CTurboJPEG", targets: ["CTurboJPEG"]),
        .library(name: "CSpng", targets: ["CSpng"]),
        .library(name: "CWebP", targets: ["CWebP"]),
        .library(name: "CGif", targets: ["CGif"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Without its default traits: they add swift-configuration, which the proxy does not use.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Hummingbird's own: the proxy sets its service group's graceful stop timeout.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CSpng", pkgConfig: "spng",
                       providers: [.apt(["libspng-dev"]), .brew(["libspng"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp",
                       providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        .systemLibrary(name: "CGif", providers: [.apt(["libgif-dev"]), .brew(["giflib"])]),
        // zlib itself, for the PNG rows inflated and unfiltered here (`PNGRowReader`).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // libdeflate, which inflates a PNG's whole image data in one call several times faster than zlib.
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate",
                       providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),
        // Little CMS 2: the colour transforms from a file's ICC profile or colour code points to sRGB.
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        // libjpeg's own API (from the same libjpeg-turbo) and libpng: the push decoders behind incremental decoding.
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng16",
                       providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // C wrappers that keep libjpeg's and libpng's setjmp/longjmp error handling out of Swift frames.
        .target(name: "CJPEGIncremental", dependencies: ["CLibJPEG"], cSettings: instrumentedC,
                linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CPNGIncremental", dependencies: ["CLibPNG"], cSettings: instrumentedC,
                linkerSettings: [.linkedLibrary("png16")]),
        // The matrix-shaper colour conversion in AVX-512 or AVX2, where the CPU has them.
        .target(name: "CColorKernel", cSettings: instrumentedC),
        // The heavy formats' libraries, one shim each.
        // On Debian their headers are in /usr/include and their module maps name the libraries, so pkg-config is
        // not asked: its flags for them (`-DAVIF_DLL`, `-DHWY_SHARED_DEFINE`, which matter only to Windows DLLs)
        // make SwiftPM warn "prohibited flag(s)" in every package that depends on this one.
        .systemLibrary(name: "CAVIF", pkgConfig: pkgConfigOffLinux("libavif"),
                       providers: [.apt(["libavif-dev"]), .brew(["libavif"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"]), .brew(["libheif"])]),
        .systemLibrary(name: "CJXL", pkgConfig: pkgConfigOffLinux("libjxl"),
                       providers: [.apt(["libjxl-dev"]), .brew(["jpeg-xl"])]),
        // librsvg's headers need GLib's, which only pkg-config finds, and its flags carry `-pthread` (the same
        // warning): the shim declares the few functions the SVG coder calls instead of including them.
        .systemLibrary(name: "CRsvg", pkgConfig: pkgConfigOffLinux("librsvg-2.0"),
                       providers: [.apt(["librsvg2-dev"]), .brew(["librsvg"])]),
        .systemLibrary(name: "CPoppler", pkgConfig: "poppler-glib",
                       providers: [.apt(["libpoppler-glib-dev"]), .brew(["poppler"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"]), .brew(["libtiff"])]),
        .target(name: "WebImageAVIF", dependencies: ["WebImage", "CAVIF"], swiftSettings: strict),
        .target(name: "WebImageHEIF", dependencies: ["WebImage", "CHeif"], swiftSettings: strict),
        .target(name: "WebImageJXL", dependencies: ["WebImage", "CJXL"], swiftSettings: strict),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"]), .brew(["cairo"])]),
        // What the two vector coders share: drawing with cairo into a pixel buffer, and the size to draw at.
        .target(name: "WebImageCairo", dependencies: ["WebImage", "CCairo"], swiftSettings: strict),
        .target(name: "WebImageSVG", dependencies: ["WebImage", "WebImageCairo", "CCairo", "CRsvg"],
                swiftSettings: strict),
        .target(name: "WebImagePDF", dependencies: ["WebImage", "WebImageCairo", "CPoppler"], swiftSettings: strict),
        .target(name: "WebImageTIFF", dependencies: ["WebImage", "CTIFF"], swiftSettings: strict),
        // What every module shares and a URL-signing client needs without a codec: formats and their detection,
        // errors, HTTP fields and responses, digests, gzip, colours, the ISO BMFF box and JPEG segment walkers.
        // `WebImage` re-exports it.
        // glibc's call that closes a spawned child's other descriptors, declared for GNU sources only.
        .target(name: "CChildProcess", cSettings: instrumentedC),
        .target(name: "WebImageCore", dependencies: ["CZlib", "CChildProcess"], swiftSettings: strict),
        .target(
            name: "WebImage",
            dependencies: [
                "WebImageCore", "CTurboJPEG", "CSpng", "CWebP", "CGif", "CJPEGIncremental", "CPNGIncremental", "CZlib", "CDeflate", "CLCMS2",
                "CColorKernel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // For the connection errors AsyncHTTPClient passes through (a refused connection, say).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        /// A real HTTP server on 127.0.0.1 with routes that misbehave on purpose: used by the tests, the
        /// offline demo and the benchmarks.
        .target(
            name: "TestImageServer",
            dependencies: [
                "WebImageCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "WebImageRedis",
            dependencies: [
                "WebImage", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebImageRedisTests",
            dependencies: ["WebImageRedis", "WebImage", "TestImageServer",
                           .product(name: "MetricsTestKit", package: "swift-metrics")],
            swiftSettings: strict,
            linkerSettings: programLinking
        ),
        // imgproxy's URL format: paths, processing options, presets, signatures; no server.
        .target(name: "WebImageProxyURL", dependencies: ["WebImageCore"], swiftSettings: strict),
        // The image proxy behind `webimage serve`: rendering, caching, the Hummingbird server, over the URL
        // format above. It composes the library; the library never imports it.
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImage", "WebImageCore", "WebImageProxyURL", "WebImageRedis", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The trace exporter posts to the collector with the client the library downloads with.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "WebImageServerTests",
            // The plugin coders draw SVG sources and read HEIC and AVIF thumbnails in the proxy's own tests.
            dependencies: ["WebImageServer", "WebImageProxyURL", "WebImage", "TestImageServer", "CoderTestSupport",
                           "WebImageSVG", "WebImageHEIF", "WebImageAVIF",
                           .product(name: "NIOCore", package: "swift-nio"),
                           // The pipeline's own handlers are tested on an embedded channel.
                           .product(name: "NIOEmbedded", package: "swift-nio"),
                           .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict,
            linkerSettings: programLinking
        ),
        // `webimage demo` serves its generated images from TestImageServer: the demo's real server, not test
        // scaffolding left in the binary. The demo promises an offline run over real HTTP on 127.0.0.1, and this
        // server (NIO, already linked through the library) is the one the tests trust for exactly that; its
        // fault-injecting routes stay unused unless a test asks for them. Its target adds no library to the binary.
        .executableTarget(
            name: "WebImageCLI",
            dependencies: [
                "WebImage", "TestImageServer",
                "WebImageAVIF", "WebImageHEIF", "WebImageJXL", "WebImageSVG", "WebImagePDF", "WebImageTIFF",
                "WebImageServer", "WebImageRedis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),  // `webimage health`
            ],
            swiftSettings: strict,
            linkerSettings: programLinking
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage", "WebImageCLI", "TestImageServer", "CTurboJPEG", "CJPEGIncremental", "CoderTestSupport",
                // Decoder isolation's tests compare helpers' pixels with these coders' in-process decodes.
                "WebImageServer", "WebImageHEIF", "WebImageTIFF", "WebImagePDF", "WebImageAVIF",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict,
            linkerSettings: programLinking
        ),
        // What the test targets share: reference pixels and colours, and a real S3 API (moto) for the proxy's and
        // the command's object-storage tests.
        .target(name: "CoderTestSupport", dependencies: ["WebImage", "CLCMS2", "TestImageServer"],
                path: "Tests/CoderTestSupport",
                swiftSettings: strict),
    ] + ["AVIF", "HEIF", "JXL", "SVG", "PDF", "TIFF"].map { format in
        // Each plugin coder is tested on its own, against fixtures written and decoded by other tools.
        .testTarget(
            name: "WebImage\(format)Tests",
            // The SVG tests gzip documents themselves (`.svgz`), with zlib.
            dependencies: [.target(name: "WebImage\(format)"), "WebImage", "CoderTestSupport"]
                + (format == "SVG" ? ["CZlib"] : []),
            resources: [.copy("Fixtures")],
            swiftSettings: strict,
            linkerSettings: programLinking
        )
    } + (instrumented ? fuzzTargets : [])
)

