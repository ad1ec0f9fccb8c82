import Foundation
import Testing
import WebImage

/// Every command's `--help` exits 0 and shows examples.
@Suite struct HelpTests {
    @Test(arguments: [[], ["info"], ["convert"], ["fetch"], ["prefetch"], ["cache"], ["demo"]])
    func helpHasExamples(command: [String]) async throws {
        let result = try await CommandLineTool.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        let examples = result.stdout.components(separatedBy: "Examples:").last ?? ""
        let name = command.first ?? ""
        #expect(examples.contains("webimage \(name)"))
    }

    @Test func rootHelpListsEveryCommand() async throws {
        let result = try await CommandLineTool.run(["--help"])
        for name in ["info", "convert", "fetch", "prefetch", "cache", "demo"] {
            #expect(result.stdout.contains("  \(name) "))
        }
    }

    /// `--version` prints the package's version, the one CHANGELOG.md's newest entry names and the default
    /// `User-Agent` carries.
    @Test func versionIsTheChangelogsNewest() async throws {
        let result = try await CommandLineTool.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == LibraryVersion.current + "\n")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(LibraryVersion.current) ") == true)
        #expect(ImageLoadRequest.defaultUserAgent == "swift-web-image/\(LibraryVersion.current)")
    }
}
