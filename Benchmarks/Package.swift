// swift-tools-version:6.2
import PackageDescription

/// The side-by-side benchmarks, in a package of their own so that the main package's `swift test` (run three
/// times in CI: plainly and under two sanitizers) never compiles or links them. `Benchmarks/run.sh` builds it in
/// release mode.
let package = Package(
    name: "swift-web-image-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-web-image", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "WebImageBenchmarks",
            dependencies: [
                .product(name: "WebImage", package: "swift-web-image"),
                .product(name: "WebImageAVIF", package: "swift-web-image"),
                .product(name: "WebImageHEIF", package: "swift-web-image"),
                .product(name: "WebImageJXL", package: "swift-web-image"),
                .product(name: "WebImageSVG", package: "swift-web-image"),
                .product(name: "WebImageRedis", package: "swift-web-image"),
                .product(name: "WebImageServer", package: "swift-web-image"),
                .product(name: "CTurboJPEG", package: "swift-web-image"),
                .product(name: "CSpng", package: "swift-web-image"),
                .product(name: "CWebP", package: "swift-web-image"),
                .product(name: "CGif", package: "swift-web-image"),
            ],
            path: "Sources/WebImageBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
