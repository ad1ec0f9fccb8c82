// swift-tools-version:6.2
import PackageDescription

// A Hummingbird 2 app that uses WebImage the way `ServerApps.md` describes: public API only, Swift 6 language mode.
let package = Package(
    name: "HummingbirdThumbnails",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named: a path dependency's identity is its folder's name (`main` in one checkout, `swift-web-image` in
        // another); the name lets the product below be found whatever the repository's folder is called.
        .package(name: "swift-web-image", path: "../.."),
        // Without its default traits, as the library asks for it: they add swift-configuration, unused here, and
        // one package's default traits would turn them on for the library's Hummingbird too.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdThumbnails",
            dependencies: [
                .product(name: "WebImage", package: "swift-web-image"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ]
)
