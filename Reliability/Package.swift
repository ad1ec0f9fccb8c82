// swift-tools-version:6.2
import PackageDescription

/// The fault soak of RELIABILITY.md (`scripts/soak`), kept out of the main package so that its `swift test`
/// builds never compile or link it.
let package = Package(
    name: "swift-web-image-reliability",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-web-image", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "WebImageSoak",
            dependencies: [
                .product(name: "WebImage", package: "swift-web-image"),
                .product(name: "TestImageServer", package: "swift-web-image"),
            ],
            path: "Sources/WebImageSoak",
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
