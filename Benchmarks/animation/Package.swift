// swift-tools-version:6.2
import PackageDescription

// The lazy-animation memory benchmark as a package of its own (like Benchmarks/gif), so it builds in release mode
// against the library without adding a target to the main package. Run it with Benchmarks/animation/run.sh.
let package = Package(
    name: "animation-benchmark",
    platforms: [.macOS(.v15)],
    // run.sh links .library/swift-web-image to the repository root: SwiftPM names a path dependency after its
    // folder, and the checkout folder may be called anything. (A committed link to an ancestor would make a cycle.)
    dependencies: [.package(path: ".library/swift-web-image")],
    targets: [
        .executableTarget(
            name: "AnimationBenchmark",
            dependencies: [.product(name: "WebImage", package: "swift-web-image")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
