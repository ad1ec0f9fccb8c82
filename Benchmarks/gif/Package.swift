// swift-tools-version:6.2
import PackageDescription

// The GIF side-by-side benchmark as a package of its own, so it builds in release mode against the library
// without adding a target to the main package. Run it with Benchmarks/gif/run.sh.
let package = Package(
    name: "gif-benchmark",
    platforms: [.macOS(.v15)],
    // library/swift-web-image is a symbolic link to the repository root: SwiftPM names a path dependency after its
    // folder, and the checkout folder may be called anything.
    dependencies: [.package(path: "library/swift-web-image")],
    targets: [
        .executableTarget(
            name: "GIFBenchmark",
            dependencies: [.product(name: "WebImage", package: "swift-web-image")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
