// swift-tools-version:6.2
import PackageDescription

// The GIF side-by-side benchmark as a package of its own, so it builds in release mode against the library
// without adding a target to the main package. Run it with Benchmarks/gif/run.sh.
let package = Package(
    name: "gif-benchmark",
    platforms: [.macOS(.v15)],
    // run.sh links .library/swift-web-image to the repository root: SwiftPM names a path dependency after its
    // folder, and the checkout folder may be called anything. (A committed link to an ancestor would make a cycle.)
    dependencies: [.package(path: ".library/swift-web-image")],
    targets: [
        .executableTarget(
            name: "GIFBenchmark",
            dependencies: [.product(name: "WebImage", package: "swift-web-image")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
