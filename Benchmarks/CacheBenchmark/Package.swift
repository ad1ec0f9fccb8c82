// swift-tools-version:6.2
// The caching benchmarks (issue 4): a package of its own so the library's build and CI never compile it.
// Run from this folder: swift run -c release CacheBenchmark [memory|disk|decode|sweep|all]
import PackageDescription

let package = Package(
    name: "CacheBenchmark",
    dependencies: [.package(name: "swift-web-image", path: "../..")],
    targets: [
        .systemLibrary(name: "CTurboJPEGBench", providers: [.apt(["libturbojpeg0-dev"])]),
        .executableTarget(
            name: "CacheBenchmark",
            dependencies: ["CTurboJPEGBench", .product(name: "WebImage", package: "swift-web-image")],
            // Language mode 5: NSCache, the comparison, is not marked Sendable on Linux.
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
