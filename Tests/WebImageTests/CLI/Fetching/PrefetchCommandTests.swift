import Foundation
import Testing
@testable import WebImage

/// `webimage prefetch` run as a process against a loopback server.
@Suite struct PrefetchCommandTests {
    func summary(_ result: CommandLineTool.Result) throws -> [String: Int] {
        let line = try #require(try result.jsonLines().first)
        return line.compactMapValues { $0 as? Int }
    }

    @Test func inputFileAndArgumentsAreLoadedThenComeFromTheCacheTheSecondTime() async throws {
        try await FetchCommandTests.withImages { served, work in
            let list = work.appendingPathComponent("urls.txt")
            try Data("# images\n\(served.a)\n\n   \(served.b)  \n".utf8).write(to: list)
            let cache = work.appendingPathComponent("cache").path
            let third = served.server.url("/files/a.png?copy").absoluteString
            let first = try await CommandLineTool.run(
                ["prefetch", "--json", "--input", list.path, "--cache-dir", cache, third])
            #expect(first.status == 0 && first.stderr == "")
            #expect(try summary(first) == ["total": 3, "finished": 3, "skipped": 0, "failed": 0])
            #expect(first.lines.count == 1)
            #expect(served.server.log.requests.count == 3)

            let second = try await CommandLineTool.run(
                ["prefetch", "--json", "--input", "-", "--cache-dir", cache], input: Data("\(served.a)\n\(served.b)\n".utf8))
            #expect(second.status == 0)
            #expect(try summary(second) == ["total": 2, "finished": 2, "skipped": 0, "failed": 0])
            #expect(served.server.log.requests.count == 3)
        }
    }

    @Test func failedAndInvalidURLsCountAsFailed() async throws {
        try await FetchCommandTests.withImages { served, work in
            let result = try await CommandLineTool.run(
                ["prefetch", "--json", "--cache-dir", work.path, served.a,
                 served.server.url("/status/404").absoluteString, "::not a url::"])
            #expect(result.status == 1)
            #expect(try summary(result) == ["total": 3, "finished": 1, "skipped": 0, "failed": 2])
            #expect(result.errorLines.count == 1)  // the invalid URL; load failures are in the summary
        }
    }

    @Test func textSummaryAndQuiet() async throws {
        try await FetchCommandTests.withImages { served, work in
            let text = try await CommandLineTool.run(["prefetch", "--cache-dir", work.path, served.a])
            #expect(text.status == 0)
            #expect(text.lines == ["1 URLs: 1 loaded, 0 skipped, 0 failed"])
            let quiet = try await CommandLineTool.run(["prefetch", "-q", "--cache-dir", work.path, served.a])
            #expect(quiet.status == 0 && quiet.stdout == "" && quiet.stderr == "")
        }
    }

    @Test func anUnreadableListIsOneLineAndAFailingStatus() async throws {
        let missing = TestScratch.root.appendingPathComponent("no-such-list-\(UUID().uuidString)")
        let result = try await CommandLineTool.run(["prefetch", "--input", missing.path])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.errorLines == ["webimage: cannot read the URL list \(missing.path): no such file"])
        let folder = try await CommandLineTool.run(["prefetch", "--input", TestScratch.root.path])
        #expect(folder.status == 1 && folder.errorLines.count == 1)
    }

    @Test(arguments: [["prefetch"], ["prefetch", "--input"], ["prefetch", "--concurrency", "-1", "https://h/a"],
                      ["prefetch", "--wat"]])
    func badArgumentsGiveOneLine(arguments: [String]) async throws {
        let result = try await CommandLineTool.run(arguments)
        #expect(result.status != 0)
        #expect(result.errorLines.count == 1)
    }
}
