import Foundation
import CoderTestSupport
import TestImageServer
import Testing
@testable import WebImage

/// `webimage fetch` run as a process against a loopback server.
@Suite struct FetchCommandTests {
    struct Served {
        let server: TestImageServer
        /// A 32×24 PNG of one colour at /files/a.png.
        let png: Data
        /// A 40×20 JPEG at /files/b.jpg.
        let jpeg: Data
        var a: String { server.url("/files/a.png").absoluteString }
        var b: String { server.url("/files/b.jpg").absoluteString }
    }

    /// Runs `body` with a server of the two images and a scratch folder, both removed afterwards.
    static func withImages(_ body: (Served, URL) async throws -> Void) async throws {
        let png = try ImageCoders.shared.encode(
            Image(pixels: try PixelBuffer(width: 32, height: 24, filledWith: RGBA(200, 40, 40))), as: .png)
        let jpeg = try ImageCoders.shared.encode(
            Image(pixels: try PixelBuffer(width: 40, height: 20, filledWith: RGBA(40, 40, 200))), as: .jpeg)
        let work = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: png, contentType: "image/png")
            server.serve("b.jpg", data: jpeg, contentType: "image/jpeg")
            try await body(Served(server: server, png: png, jpeg: jpeg), work)
        }
    }

    @Test func jsonLinesInOrderWithFilesNamedByTheRules() async throws {
        try await Self.withImages { served, work in
            let out = work.appendingPathComponent("out/nested").path, cache = work.appendingPathComponent("cache").path
            let dataURL = "data:image/png;base64," + served.png.base64EncodedString()
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--cache-dir", cache, "--out", out, served.a, served.b, served.a, dataURL])
            #expect(result.status == 0)
            #expect(result.stderr == "")  // no progress bar: stderr is not a terminal
            let lines = try result.jsonLines()
            try #require(lines.count == 4)
            #expect(lines.map { $0["url"] as? String } == [served.a, served.b, served.a, dataURL])
            #expect(lines.allSatisfy { $0["status"] as? String == "ok" })
            #expect(lines[1]["cacheType"] as? String == "none")
            #expect(lines[0]["format"] as? String == "png" && lines[1]["format"] as? String == "jpeg")
            #expect(lines[0]["width"] as? Int == 32 && lines[0]["height"] as? Int == 24)
            #expect(lines[1]["width"] as? Int == 40 && lines[1]["height"] as? Int == 20)
            #expect(lines[0]["bytes"] as? Int == served.png.count && lines[1]["bytes"] as? Int == served.jpeg.count)
            let names = lines.map { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }
            #expect(names == ["a.png", "b.jpg", "a-2.png", OutputNamingProbe.shortHash(dataURL) + ".png"])
            for (line, bytes) in zip(lines, [served.png, served.jpeg, served.png, served.png]) {
                let path = try #require(line["path"] as? String)
                #expect(FileManager.default.contents(atPath: path) == bytes)
            }

            // A second process with the same cache folder finds both on disk and asks the server nothing.
            let before = served.server.log.requests.count
            let again = try await CommandLineTool.run(["fetch", "--json", "--cache-dir", cache, served.a, served.b])
            #expect(again.status == 0)
            #expect(try again.jsonLines().map { $0["cacheType"] as? String } == ["disk", "disk"])
            #expect(try again.jsonLines().allSatisfy { $0["path"] == nil })
            #expect(served.server.log.requests.count == before)
        }
    }

    @Test func failuresAreReportedPerURLAndMakeTheExitStatusNonZero() async throws {
        try await Self.withImages { served, work in
            let missing = served.server.url("/status/404").absoluteString
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--cache-dir", work.path, missing, served.a, "not a url"])
            #expect(result.status == 1)
            let lines = try result.jsonLines()
            try #require(lines.count == 3, "stderr: \(result.stderr)")
            #expect(lines[0]["status"] as? String == "error")
            #expect((lines[0]["error"] as? [String: Any])?["code"] as? String == "invalidDownloadStatusCode")
            #expect(lines[1]["status"] as? String == "ok")
            #expect((lines[2]["error"] as? [String: Any])?["code"] as? String == "invalidURL")
            #expect(result.errorLines.count == 2)
            #expect(result.errorLines.allSatisfy { $0.hasPrefix("webimage: ") })
        }
    }

    @Test func fromCacheOnlyNeverAsksTheNetwork() async throws {
        try await Self.withImages { served, work in
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--from-cache-only", "--cache-dir", work.path, served.a])
            #expect(result.status == 1)
            let error = (try result.jsonLines().first)?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "notFoundInCache")
            #expect(served.server.log.requests.isEmpty)
        }
    }

    @Test func thumbnailAndTransformsSaveTheEncodedResult() async throws {
        try await Self.withImages { served, work in
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--cache-dir", work.appendingPathComponent("c").path,
                 "--out", work.appendingPathComponent("o").path, "--thumbnail", "16", "--flip", "h", served.a])
            #expect(result.status == 0)
            let line = try #require(try result.jsonLines().first)
            #expect(line["width"] as? Int == 16 && line["height"] as? Int == 12)
            let path = try #require(line["path"] as? String)
            let saved = try ImageCoders.shared.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(saved.format == .png && saved.size == PixelSize(width: 16, height: 12))
            #expect(saved.pixels[0, 0] == RGBA(200, 40, 40))
        }
    }

    @Test("a thumbnail whose download stopped early reports the bytes it read, not 0")
    func anEarlyStoppedThumbnailCountsWhatItRead() async throws {
        let data = try GrainyPhoto.jpeg(width: 1600, height: 1200, progressive: true)
        let work = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await LoadingTest.withServer { server in
            server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            // The server sends a fifth of the file and waits: the load only finishes if the client stops there.
            let url = server.url("/stall-once/photo.jpg?after=\(data.count / 5)").absoluteString
            let result = try await CommandLineTool.run(
                ["fetch", "--json", "--cache-dir", work.path, "--thumbnail", "200", url])
            #expect(result.status == 0)
            let line = try #require(try result.jsonLines().first)
            #expect(line["width"] as? Int == 200 && line["height"] as? Int == 150)
            await server.waitUntil { $0.inFlight == 0 }
            let sent = try #require(server.log.requests(for: "/stall-once/photo.jpg").first?.bodyBytesSent)
            #expect(sent == data.count / 5)
            let bytes = try #require(line["bytes"] as? Int)
            #expect(bytes > 0 && bytes <= sent)
        }
    }

    @Test func anUnwritableOutputFolderFailsBeforeLoadingWithOneLine() async throws {
        try await Self.withImages { served, work in
            let file = work.appendingPathComponent("plain-file")
            try Data("x".utf8).write(to: file)
            for out in [file.path, file.appendingPathComponent("below").path] {
                let result = try await CommandLineTool.run(
                    ["fetch", "--json", "--cache-dir", work.path, "--out", out, served.a])
                #expect(result.status == 1)
                #expect(result.stdout == "")
                #expect(result.errorLines.count == 1)
                #expect(result.errorLines.first?.hasPrefix("webimage: cannot") == true)
            }
            #expect(served.server.log.requests.isEmpty)
        }
    }

    @Test func refreshIfStaleAsksOnlyAboutStaleCopies() async throws {
        try await Self.withImages { served, work in
            let png = served.png
            served.server.serve("fresh.png", data: png, contentType: "image/png", cacheControl: "max-age=3600")
            served.server.serve("stale.png", data: png, contentType: "image/png", cacheControl: "max-age=0")
            let fresh = served.server.url("/files/fresh.png").absoluteString
            let stale = served.server.url("/files/stale.png").absoluteString
            let first = try await CommandLineTool.run(["fetch", "--json", "--cache-dir", work.path, fresh, stale])
            #expect(first.status == 0)
            let again = try await CommandLineTool.run(
                ["fetch", "--json", "--refresh-if-stale", "--cache-dir", work.path, fresh, stale])
            #expect(again.status == 0)
            let lines = try again.jsonLines()
            #expect(lines.map { $0["status"] as? String } == ["ok", "ok"])
            #expect(lines.map { $0["cacheType"] as? String } == ["disk", "disk"])
            // The fresh copy cost nothing; the stale one one conditional request, answered 304.
            #expect(served.server.log.count("/files/fresh.png") == 1)
            #expect(served.server.log.count("/files/stale.png") == 2)
            #expect(served.server.log.requests.last?.header("If-None-Match") != nil)
        }
    }

    @Test func textOutputIsOneLinePerURLAndQuietPrintsNothing() async throws {
        try await Self.withImages { served, work in
            let text = try await CommandLineTool.run(["fetch", "--cache-dir", work.path, served.a])
            #expect(text.status == 0 && text.stderr == "")
            #expect(text.lines == ["\(served.a): png 32x24, \(served.png.count) bytes, from the network"])
            let quiet = try await CommandLineTool.run(["fetch", "--quiet", "--cache-dir", work.path, served.a])
            #expect(quiet.status == 0 && quiet.stdout == "" && quiet.stderr == "")
        }
    }

    @Test(arguments: [["fetch"], ["fetch", "--bogus", "https://h/a.png"], ["fetch", "--concurrency", "0", "https://h/a"],
                      ["fetch", "--thumbnail", "-3", "https://h/a"], ["fetch", "--resize", "0x9", "https://h/a"],
                      ["fetch", "--refresh", "--from-cache-only", "https://h/a"],
                      ["fetch", "--refresh-if-stale", "--from-cache-only", "https://h/a"]])
    func badArgumentsGiveOneLineAndAFailingStatus(arguments: [String]) async throws {
        let result = try await CommandLineTool.run(arguments)
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.errorLines.count == 1)
    }
}

/// The naming rule's hash, computed here independently: 64-bit FNV-1a in 16 hex digits.
enum OutputNamingProbe {
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
