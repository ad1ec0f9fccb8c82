// swift-tools-version:6.2
import PackageDescription

// A Vapor app that uses WebImage the way `ServerApps.md` describes: public API only, Swift 6 language mode.
let package = Package(
    name: "VaporThumbnails",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named: a path dependency's identity is its folder's name (`main` in one checkout, `swift-web-image` in
        // another); the name lets the product below be found whatever the repository's folder is called.
        .package(name: "swift-web-image", path: "../.."),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .executableTarget(
            name: "VaporThumbnails",
            dependencies: [
                .product(name: "WebImage", package: "swift-web-image"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
    ]
)
