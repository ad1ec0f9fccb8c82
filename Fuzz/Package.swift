// swift-tools-version:6.2
import PackageDescription

/// libFuzzer harnesses for swift-web-image, kept out of the main package so that it stays free of unsafe flags.
/// Build and run them with `scripts/fuzz` (it passes `-sanitize=fuzzer,address` to every Swift module).
/// Each harness is an executable whose entry point is `LLVMFuzzerTestOneInput`; libFuzzer supplies `main`,
/// so the harness sources are compiled as a library (`-parse-as-library`).
let harnessSettings: [SwiftSetting] = [
    .unsafeFlags(["-parse-as-library"]),
    .treatAllWarnings(as: .error),
]

let harnesses = [
    "FuzzFormatDetection", "FuzzJPEG", "FuzzPNG", "FuzzGIF", "FuzzWebP", "FuzzAnimatedImage", "FuzzEXIF",
    "FuzzIncremental", "FuzzDataURL", "FuzzDiskEntryHeader", "FuzzBMP", "FuzzICO", "FuzzProperties",
]

/// Harnesses of the plugin coders, each with the product it drives (FuzzProperties drives them all).
let pluginHarnesses = [
    "FuzzAVIF": "WebImageAVIF", "FuzzHEIF": "WebImageHEIF", "FuzzJXL": "WebImageJXL", "FuzzSVG": "WebImageSVG",
    "FuzzPDF": "WebImagePDF", "FuzzTIFF": "WebImageTIFF",
]
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
    ] + harnesses.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", .product(name: "WebImage", package: "swift-web-image")]
                + (name == "FuzzProperties" ? plugins.map { .product(name: $0, package: "swift-web-image") } : []),
            swiftSettings: harnessSettings
        )
    } + pluginHarnesses.sorted(by: { $0.key < $1.key }).map { name, product in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport", .product(name: "WebImage", package: "swift-web-image"),
                .product(name: product, package: "swift-web-image"),
            ],
            swiftSettings: harnessSettings
        )
    }
)
