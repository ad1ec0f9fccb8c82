// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "loadbench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-web-image", path: "../..")],
    targets: [
        .executableTarget(name: "loadbench", dependencies: [
            .product(name: "WebImage", package: "swift-web-image"),
        ]),
    ]
)
