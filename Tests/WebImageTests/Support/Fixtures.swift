import Foundation
@testable import WebImage

/// Test images committed under `Tests/WebImageTests/Fixtures/` (generators in `scripts/fixtures/`).
enum Fixtures {
    /// The folder holding the fixtures inside the test bundle.
    static var folder: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures", isDirectory: true)
    }

    /// The bytes of the fixture at `path`, relative to the fixtures folder (for example `"jpeg/baseline.jpg"`).
    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: url(path))
    }

    /// The file URL of the fixture at `path`.
    static func url(_ path: String) -> URL {
        folder.appendingPathComponent(path)
    }

    /// Every fixture file below `subfolder`, sorted by name.
    static func files(in subfolder: String) throws -> [URL] {
        let directory = folder.appendingPathComponent(subfolder, isDirectory: true)
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Copies of `data` cut at several lengths, from a few bytes to all but the last one.
    static func truncations(of data: Data) -> [Data] {
        let cuts = [1, 2, 4, 8, 16, 32, 64, 100, data.count / 4, data.count / 2, data.count * 3 / 4, data.count - 1]
        return Set(cuts.filter { $0 > 0 && $0 < data.count }).sorted().map { data.prefix($0) }
    }
}
