import Foundation
import TestImageServer
import Testing
import WebImage
import WebImageServer

@testable import WebImageCLI

/// `--fallback-image`, `--fallback-image-status` and `--fallback-image-ttl`, read from their flags, `WEBIMAGE_*`
/// or imgproxy's `IMGPROXY_FALLBACK_IMAGE_DATA`, `_PATH`, `_URL`, `_HTTP_CODE` and `_TTL`, in that order.
@Suite struct ServeFallbackImageSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments),
                      environment: Self.pair.merging(variables) { $1 })
    }

    func fallback(_ arguments: [String] = [], _ variables: [String: String]) throws
        -> ProxyConfiguration.FallbackImage
    {
        try settings(arguments, variables).configuration().fallbackImage
    }

    @Test func withoutAnySettingThereIsNoFallbackAndImgproxysDefaults() throws {
        let none = try fallback([], [:])
        #expect(none.source == nil && none.status == 200 && none.timeToLive == 0)
    }

    @Test func imgproxysDataIsBase64WithOrWithoutLineBreaks() throws {
        let bytes = Data((0..<200).map { UInt8($0) })
        let settings = try settings([], ["IMGPROXY_FALLBACK_IMAGE_DATA": bytes.base64EncodedString()])
        #expect(try settings.configuration().fallbackImage.source == .data(bytes))
        #expect(settings.warnings.isEmpty)
        let wrapped = bytes.base64EncodedString(options: [.lineLength64Characters, .endLineWithCarriageReturn,
                                                          .endLineWithLineFeed])
        #expect(wrapped.contains("\r\n"))
        #expect(try fallback([], ["IMGPROXY_FALLBACK_IMAGE_DATA": wrapped]).source == .data(bytes))
        #expect(throws: ServeError.self) { try fallback([], ["IMGPROXY_FALLBACK_IMAGE_DATA": "not base64!"]) }
    }

    @Test func imgproxysPathAndURL() throws {
        let path = try settings([], ["IMGPROXY_FALLBACK_IMAGE_PATH": "/srv/fallback.png"])
        #expect(try path.configuration().fallbackImage.source == .file("/srv/fallback.png"))
        #expect(path.warnings.isEmpty)
        let url = try settings([], ["IMGPROXY_FALLBACK_IMAGE_URL": "https://cdn.example/fallback.png"])
        #expect(try url.configuration().fallbackImage.source == .url(URL(string: "https://cdn.example/fallback.png")!))
        #expect(url.warnings.isEmpty)
        for refused in ["ftp://cdn.example/a.png", "/srv/a.png", "https://"] {
            #expect(throws: ServeError.self, "\(refused)") {
                try fallback([], ["IMGPROXY_FALLBACK_IMAGE_URL": refused])
            }
        }
    }

    @Test func imgproxysOrderIsDataThenPathThenURL() throws {
        let data = Data([1, 2, 3])
        let all = ["IMGPROXY_FALLBACK_IMAGE_DATA": data.base64EncodedString(),
                   "IMGPROXY_FALLBACK_IMAGE_PATH": "/srv/fallback.png",
                   "IMGPROXY_FALLBACK_IMAGE_URL": "https://cdn.example/fallback.png"]
        #expect(try fallback([], all).source == .data(data))
        #expect(try fallback([], all.filter { $0.key != "IMGPROXY_FALLBACK_IMAGE_DATA" }).source
            == .file("/srv/fallback.png"))
        // Blank is unset, as in imgproxy.
        #expect(try fallback([], all.merging(["IMGPROXY_FALLBACK_IMAGE_DATA": " ", "IMGPROXY_FALLBACK_IMAGE_PATH": ""])
            { $1 }).source == .url(URL(string: "https://cdn.example/fallback.png")!))
    }

    @Test func aFlagBeatsOurVariableWhichBeatsImgproxysAndTakesAFileOrAURL() throws {
        let all = ["IMGPROXY_FALLBACK_IMAGE_PATH": "/c.png", "WEBIMAGE_FALLBACK_IMAGE": "https://b.example/b.png",
                   "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "404", "WEBIMAGE_FALLBACK_IMAGE_STATUS": "410",
                   "IMGPROXY_FALLBACK_IMAGE_TTL": "30", "WEBIMAGE_FALLBACK_IMAGE_TTL": "20"]
        let flags = try fallback(["--fallback-image", "/a.png", "--fallback-image-status", "0",
                                  "--fallback-image-ttl", "10"], all)
        #expect(flags.source == .file("/a.png") && flags.status == 0 && flags.timeToLive == 10)
        let ours = try fallback([], all)
        #expect(ours.source == .url(URL(string: "https://b.example/b.png")!) && ours.status == 410
            && ours.timeToLive == 20)
        let theirs = try fallback([], all.filter { $0.key.hasPrefix("IMGPROXY_") })
        #expect(theirs.source == .file("/c.png") && theirs.status == 404 && theirs.timeToLive == 30)
    }

    @Test func theStatusIsZeroOrAnHTTPStatusAndTheLifetimeIsNotNegative() throws {
        #expect(try fallback([], ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "0"]).status == 0)
        #expect(try fallback([], ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "599"]).status == 599)
        #expect(try fallback([], ["IMGPROXY_FALLBACK_IMAGE_TTL": "0"]).timeToLive == 0)
        let refused: [[String: String]] = [
            ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "99"], ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "600"],
            ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "-1"], ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "ok"],
            ["IMGPROXY_FALLBACK_IMAGE_TTL": "-5"], ["IMGPROXY_FALLBACK_IMAGE_TTL": "1h"],
        ]
        for variables in refused {
            #expect(throws: ServeError.self, "\(variables)") { try fallback([], variables) }
        }
    }

    @Test func webimageServeRefusesABrokenFallbackAndAnswersAMissingSourceWithAGoodOne() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("broken.png")
        try Data("<html>not an image</html>".utf8).write(to: broken)
        let refused = try await CommandLineTool.run(["serve", "--insecure", "--bind", "127.0.0.1:0",
                                                     "--cache-dir", folder.path, "--fallback-image", broken.path])
        #expect(refused.status != 0 && refused.stderr.contains("the fallback image is not an image"))

        let magenta = RGBA(255, 0, 255)
        let fallback = try ImageCoders.shared.encode(
            Image(pixels: try PixelBuffer(width: 80, height: 60, filledWith: magenta)), as: .png)
        let origin = try await TestImageServer.start()
        let server: ServeProcess
        do {
            server = try await ServeProcess.start(
                ["--insecure", "--bind", "127.0.0.1:0", "--cache-dir", folder.path, "--allow-loopback-sources"],
                environment: ["IMGPROXY_FALLBACK_IMAGE_DATA": fallback.base64EncodedString(),
                              "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "404", "IMGPROXY_FALLBACK_IMAGE_TTL": "30"])
        } catch {
            await origin.shutdown()
            throw error
        }
        let path = "/_/w:20/plain/" + origin.url("/files/missing.png").absoluteString + "@png"
        let answer: Result<(status: Int, headers: [(String, String)], body: Data), any Error>
        do { answer = .success(try await server.get(path)) } catch { answer = .failure(error) }
        #expect(await server.terminate() == 0)
        await origin.shutdown()
        let (status, headers, body) = try answer.get()
        #expect(status == 404)
        let fields = Dictionary(headers.map { ($0.0.lowercased(), $0.1) }) { first, _ in first }
        #expect(fields["content-type"] == "image/png" && fields["cache-control"] == "max-age=30, public")
        let image = try ImageCoders.shared.decode(body)
        #expect(image.size == PixelSize(width: 20, height: 15) && image.pixels[10, 7] == magenta)
    }
}
