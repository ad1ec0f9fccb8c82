import Foundation
import TestImageServer
import Testing
@testable import WebImage

@Suite("webimage cache")
struct CacheCommandTests {
    func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    @Test("stats, trim, clear and path, with --json fields and exit status 0")
    func commands() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = try await WebImageTool.run(["cache", "stats", "--cache-dir", folder.path, "--json"])
        #expect(empty.status == 0 && empty.standardError.isEmpty)
        let emptyStats = try json(empty.standardOutput)
        #expect(Set(emptyStats.keys) == ["entries", "bytes", "path"])
        #expect(emptyStats["entries"] as? Int == 0 && emptyStats["bytes"] as? Int == 0)
        #expect(emptyStats["path"] as? String == folder.url.standardizedFileURL.path)

        let written = try await WebImageTool.run(["cache", "_write", "--cache-dir", folder.path, "--count", "4",
                                                  "--size", "1000"])
        #expect(written.status == 0)
        let cache = makeDiskCache(folder)
        let stats = try json(try await WebImageTool.run(["cache", "stats", "--cache-dir", folder.path, "--json"])
            .standardOutput)
        #expect(stats["entries"] as? Int == 4)
        #expect(stats["bytes"] as? Int == cache.totalSize)
        let entrySize = cache.totalSize / 4

        let trimmed = try await WebImageTool.run(["cache", "trim", "--cache-dir", folder.path,
                                                  "--max-size", String(entrySize * 2), "--json"])
        #expect(trimmed.status == 0)
        let trimReport = try json(trimmed.standardOutput)
        #expect(trimReport["entries"] as? Int == 2 && trimReport["removedEntries"] as? Int == 2)
        #expect(trimReport["bytes"] as? Int == entrySize * 2)
        #expect(makeDiskCache(folder).count == 2)

        let aged = try await WebImageTool.run(["cache", "trim", "--cache-dir", folder.path, "--max-age", "0", "--json"])
        #expect(try json(aged.standardOutput)["entries"] as? Int == 0)

        _ = try await WebImageTool.run(["cache", "_write", "--cache-dir", folder.path, "--count", "3"])
        let cleared = try await WebImageTool.run(["cache", "clear", "--cache-dir", folder.path, "--json"])
        #expect(cleared.status == 0)
        #expect(try json(cleared.standardOutput)["removedEntries"] as? Int == 3)
        #expect(folder.names().isEmpty)

        let path = try await WebImageTool.run(["cache", "path", "--cache-dir", folder.path])
        #expect(path.status == 0 && path.standardOutput == folder.url.standardizedFileURL.path + "\n")
        let text = try await WebImageTool.run(["cache", "stats", "--cache-dir", folder.path])
        #expect(text.standardOutput.contains("entries: 0"))
    }

    @Test("the default folder follows XDG_CACHE_HOME")
    func defaultFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let process = try WebImageTool.start(["cache", "path", "--json"],
                                             environment: ["XDG_CACHE_HOME": folder.path, "HOME": "/nonexistent"])
        #expect(await process.waitForExit() == 0)
        let text = String(decoding: try #require(process.outputPipe).readDataToEndOfFile(), as: UTF8.self)
        #expect(try json(text)["path"] as? String == folder.path + "/swift-web-image/default")
        #expect(DiskCache.sanitizedNamespace("../evil/name") == ".._evil_name")
        #expect(DiskCache.sanitizedNamespace("..") == "default")
    }

    @Test("errors are one line on stderr with a non-zero exit", arguments: [
        ["cache", "stats", "--bogus"],
        ["cache", "trim", "--max-size", "-5"],
        ["cache", "trim", "--max-age", "soon"],
        ["cache", "stats", "--cache-dir", "/dev/null"],
        ["cache", "frobnicate"],
    ])
    func errors(arguments: [String]) async throws {
        let result = try await WebImageTool.run(arguments)
        #expect(result.status != 0)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("webimage: "))
        #expect(result.standardError.filter { $0 == "\n" }.count == 1, "\(result.standardError)")
    }
}
