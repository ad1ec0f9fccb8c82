// swift-tools-version:6.2
import PackageDescription

/// libFuzzer harnesses for swift-web-image, kept out of the main package so that it stays free of unsafe flags.
/// Build and run them with `scripts/fuzz` (it passes `-sanitize=fuzzer,address` to every Swift module).
/// The harnesses share one executable whose entry point is `LLVMFuzzerTestOneInput`; libFuzzer supplies `main`,
/// so the harness sources are compiled as a library (`-parse-as-library`).
let harnessSettings: [SwiftSetting] = [
    .unsafeFlags(["-parse-as-library"]),
    .treatAllWarnings(as: .error),
]

/// The plugin coders, which some harnesses drive (FuzzProperties drives them all); FuzzRESP drives WebImageRedis, FuzzProxyURL the proxy's URL format.
let plugins = ["WebImageAVIF", "WebImageHEIF", "WebImageJXL", "WebImageSVG", "WebImagePDF", "WebImageTIFF"]

let package = Package(
    name: "swift-web-image-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-web-image", path: ".."),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "WebImage", package: "swift-web-image")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // Every harness in one executable (see Harnesses.swift): `scripts/fuzz` runs it under each harness's name.
        .executableTarget(
            name: "FuzzHarnesses",
            dependencies: ["FuzzSupport", .product(name: "WebImage", package: "swift-web-image")]
                + plugins.map { .product(name: $0, package: "swift-web-image") }
                + [.product(name: "WebImageRedis", package: "swift-web-image"),
                   .product(name: "WebImageProxyURL", package: "swift-web-image")],
            swiftSettings: harnessSettings
        ),
    ]
)
