import Foundation
import Testing
import TestImageServer
import WebImage

@testable import WebImageServer

/// `--base-url` and `--url-replacement` (imgproxy's `IMGPROXY_BASE_URL` and `IMGPROXY_URL_REPLACEMENTS`) through
/// a proxy: the rewritten URL is the one fetched, judged by `--allow-source`, and named by the result's key.
@Suite struct ProxySourceRewritingTests {
    /// Runs `body` with an origin serving `/files/photo.jpg` and `/other/photo.jpg`, and a proxy set up by
    /// `adjust`, which sees the origin's base URL (`http://127.0.0.1:PORT`).
    func withProxy(_ adjust: @escaping (inout ProxyConfiguration, String) -> Void,
                   _ body: (ProxyHarness, TestImageServer) async throws -> Void) async throws {
        let origin = try await TestImageServer.start()
        let photo = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg)
        origin.serve("photo.jpg", data: photo, contentType: "image/jpeg")
        let base = origin.url("/").absoluteString.dropLast()  // no trailing slash
        do {
            try await ProxyHarness.with(configuring: { adjust(&$0, String(base)) }) { harness in
                try await body(harness, origin)
            }
        } catch {
            await origin.shutdown()
            throw error
        }
        await origin.shutdown()
    }

    static func base64(_ source: String) -> String {
        Data(source.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func theBaseURLGoesInFrontOfPlainAndBase64SourcesUnlessAlreadyThere() async throws {
        try await withProxy({ $0.sourceURLRewriting.baseURL = $1 + "/files/" }) { harness, origin in
            let plain = await harness.get("/_/rs:fit:40:40/plain/photo.jpg@png")
            #expect(plain.status == 200)
            let image = try ProxyHarness.decode(plain)
            #expect(image.size == PixelSize(width: 40, height: 30))
            #expect(await harness.get("/_/rs:fit:20:20/" + Self.base64("photo.jpg") + ".png").status == 200)
            let full = origin.url("/files/photo.jpg").absoluteString
            #expect(await harness.get("/_/rs:fit:30:30/plain/\(full)@png").status == 200)
            #expect(await harness.get("/_/plain/missing.jpg@png").status == 404)
        }
    }

    @Test func replacementsRewriteTheSourceInOrderWithTheirWildcards() async throws {
        try await withProxy({ configuration, origin in
            configuration.sourceURLRewriting.replacements = [
                SourceURLReplacement(pattern: "img://*/", replacement: "cdn://${1}/"),
                SourceURLReplacement(pattern: "cdn://", replacement: origin + "/"),
            ]
        }) { harness, _ in
            let response = await harness.get("/_/rs:fit:40:40/plain/img://files/photo.jpg@png")
            #expect(response.status == 200)
            let image = try ProxyHarness.decode(response)
            #expect(image.size.width == 40)
            #expect(await harness.get("/_/plain/img://nothing/photo.jpg@png").status == 404)
        }
    }

    @Test func allowedSourcesJudgeTheRewrittenURL() async throws {
        try await withProxy({ configuration, origin in
            configuration.allowedSourcePrefixes = [origin + "/files/"]
            configuration.sourceURLRewriting.replacements = [
                SourceURLReplacement(pattern: "ok:", replacement: origin + "/files/"),
                SourceURLReplacement(pattern: "elsewhere:", replacement: origin + "/other/"),
            ]
        }) { harness, origin in
            #expect(await harness.get("/_/plain/ok:photo.jpg@png").status == 200)
            #expect(await harness.get("/_/plain/elsewhere:photo.jpg@png").status == 404)
            // Refused before any request reaches the origin: only the allowed one was fetched.
            #expect(!origin.log.paths.contains("/other/photo.jpg"))
        }
    }

    @Test func twoSpellingsOfOneRewrittenSourceShareOneResult() async throws {
        try await withProxy({ configuration, origin in
            configuration.sourceURLRewriting.replacements = [
                SourceURLReplacement(pattern: "img:", replacement: origin + "/files/"),
            ]
        }) { harness, origin in
            let full = origin.url("/files/photo.jpg").absoluteString
            #expect(await harness.get("/_/rs:fit:24:24/plain/img:photo.jpg@png").status == 200)
            #expect(await harness.get("/_/rs:fit:24:24/plain/\(full)@png").status == 200)
            #expect(harness.proxy.renderingsStarted == 1)
        }
    }

    @Test func aReplacementMayLeadToALocalFile() async throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-rewrite-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try ProxyHarness.photo(width: 50, height: 50, as: .png).write(to: root.appendingPathComponent("a.png"))
        try await withProxy({ configuration, _ in
            configuration.localFilesystemRoot = root.path
            configuration.sourceURLRewriting.replacements = [
                SourceURLReplacement(pattern: "pics:", replacement: "local:///"),
            ]
        }) { harness, _ in
            let response = await harness.get("/_/rs:fit:10:10/plain/pics:a.png@png")
            #expect(response.status == 200)
            let image = try ProxyHarness.decode(response)
            #expect(image.size == PixelSize(width: 10, height: 10))
        }
    }
}
