import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// `local:///PATH` sources under `--local-root` (imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`): files inside are
/// served like any source, and no spelling of a path reads a file outside, which lies right beside the root.
@Suite struct ProxyLocalSourceTests {
    /// A root folder with images, links and a sub-folder, and an image just outside it that must never be served.
    struct Folder {
        let base: URL
        var root: URL { base.appendingPathComponent("root") }
        var secret: URL { base.appendingPathComponent("secret.png") }

        init() throws {
            base = FileManager.default.temporaryDirectory
                .appendingPathComponent("webimage-local-\(UUID().uuidString)", isDirectory: true)
            let files = FileManager.default
            try files.createDirectory(at: root.appendingPathComponent("inside"), withIntermediateDirectories: true)
            try ProxyHarness.photo(width: 64, height: 48, as: .png).write(to: root.appendingPathComponent("photo.png"))
            try ProxyHarness.photo(width: 30, height: 20, as: .png)
                .write(to: root.appendingPathComponent("inside/deep.png"))
            try ProxyHarness.photo(width: 13, height: 7, as: .png).write(to: secret)
            // Links: to the file outside (absolutely and relatively), to the folder above, and one inside.
            try files.createSymbolicLink(atPath: root.appendingPathComponent("link.png").path,
                                         withDestinationPath: secret.path)
            try files.createSymbolicLink(atPath: root.appendingPathComponent("rel.png").path,
                                         withDestinationPath: "../secret.png")
            try files.createSymbolicLink(atPath: root.appendingPathComponent("up").path, withDestinationPath: "..")
            try files.createSymbolicLink(atPath: root.appendingPathComponent("alias.png").path,
                                         withDestinationPath: "photo.png")
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    /// Runs `body` with a proxy serving `folder`'s root, removing the folder afterwards.
    func withProxy(_ adjust: @escaping (inout ProxyConfiguration) -> Void = { _ in },
                   _ body: (ProxyHarness, Folder) async throws -> Void) async throws {
        let folder = try Folder()
        defer { folder.remove() }
        try await ProxyHarness.with(configuring: {
            $0.localFilesystemRoot = folder.root.path
            adjust(&$0)
        }) { harness in
            try await body(harness, folder)
        }
    }

    static func base64(_ source: String) -> String {
        Data(source.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func aFileUnderTheRootIsServedWithItsModificationTimeAsLastModified() async throws {
        try await withProxy { harness, folder in
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)],
                                                  ofItemAtPath: folder.root.appendingPathComponent("photo.png").path)
            let response = await harness.get("/_/rs:fit:32:32/plain/local:///photo.png@png")
            #expect(response.status == 200)
            #expect(response.header("Last-Modified") == "Sun, 13 Sep 2020 12:26:40 GMT")
            let image = try ProxyHarness.decode(response)
            #expect(image.size.width == 32 && image.size.height == 24)
            let encoded = await harness.get("/_/rs:fit:20:20/" + Self.base64("local:///inside/deep.png") + ".png")
            #expect(encoded.status == 200)
            #expect(try ProxyHarness.decode(encoded).size.width == 20)
        }
    }

    @Test func dotSegmentsAndLinksThatStayInsideTheRootWork() async throws {
        try await withProxy { harness, _ in
            for source in ["local:///inside/../photo.png", "local:///./inside/./deep.png", "local:///alias.png",
                           "local://any-host/photo.png", "local:///../photo.png"] {
                let response = await harness.get("/_/rs:fit:16:16/plain/\(source)@png")
                #expect(response.status == 200, "\(source): \(response.status)")
            }
            // A query names no file, as imgproxy cuts it off (Base64: a plain path's `?` would end the path).
            #expect(await harness.get("/_/" + Self.base64("local:///photo.png?v=2") + ".png").status == 200)
        }
    }

    @Test func noSpellingOfAPathReadsTheFileBesideTheRoot() async throws {
        try await withProxy { harness, folder in
            let secretBytes = try Data(contentsOf: folder.secret)
            let outside = folder.secret.path
            // As they appear after /plain/ (decoded once there, as imgproxy decodes a plain source).
            let plain = [
                "local:///../secret.png", "local:///../../secret.png", "local:///%2e%2e/secret.png",
                "local:///%2E%2e/secret.png", "local:///.%2e/secret.png", "local:///%252e%252e/secret.png",
                "local:///..%2fsecret.png", "local:///..%2Fsecret.png", "local:///..%252fsecret.png",
                "local:///..%5Csecret.png", "local:///..%5C..%5Csecret.png", "local:///inside/../../secret.png",
                "local:///inside/%2e%2e/%2e%2e/secret.png", "local:///inside/..%2F..%2Fsecret.png",
                "local:////../secret.png", "local://../secret.png", "local://..%2F/secret.png",
                "local://\(outside)", "local:\(outside)", "local:///\(outside)", "local:../secret.png",
                "local:///link.png", "local:///rel.png", "local:///up/secret.png", "local:///up/root/../secret.png",
                "local:///secret.png%00.png", "local:///..%00/secret.png", "local:///%00../secret.png",
                "LOCAL:///../secret.png", "local:///", "local:///inside", "local:///missing.png",
            ]
            let encoded = ["local:///../secret.png", "local:///..\\secret.png", "local:///link.png",
                           "local://\(outside)", "local:///inside/../../secret.png", "local:///secret.png\0"]
            let paths = plain.map { "/_/rs:fit:16:16/plain/\($0)@png" }
                + encoded.map { "/_/rs:fit:16:16/" + Self.base64($0) + ".png" }
            for path in paths {
                let response = await harness.get(path)
                #expect([403, 404].contains(response.status), "\(path): \(response.status)")
                #expect(response.bodyData.range(of: secretBytes) == nil, "\(path)")
            }
            // The file itself is a good image: read, it would have been answered 200.
            #expect(try ProxyHarness.decode(await harness.get(
                "/_/plain/local:///photo.png@png")).size.width == 64)
        }
    }

    @Test func withoutARootLocalSourcesAreRefused() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        try await ProxyHarness.with { harness in
            let path = folder.root.appendingPathComponent("photo.png").path
            for source in ["local:///photo.png", "local://\(path)", "file://\(path)"] {
                #expect(await harness.get("/_/plain/\(source)@png").status == 404, "\(source)")
            }
        }
    }

    @Test func aFileOverTheSourceByteLimitIs422() async throws {
        try await withProxy({ $0.maximumSourceBytes = 200 }) { harness, folder in
            let size = try FileManager.default.attributesOfItem(
                atPath: folder.root.appendingPathComponent("photo.png").path)[.size] as? Int
            #expect((size ?? 0) > 200)
            #expect(await harness.get("/_/plain/local:///photo.png@png").status == 422)
        }
    }

    @Test func allowedSourcePrefixesHoldForLocalPathsAfterDotSegments() async throws {
        try await withProxy({ $0.allowedSourcePrefixes = ["local:///inside/"] }) { harness, _ in
            #expect(await harness.get("/_/plain/local:///inside/deep.png@png").status == 200)
            #expect(await harness.get("/_/plain/local:///photo.png@png").status == 404)
            #expect(await harness.get("/_/plain/local:///inside/../photo.png@png").status == 404)
            #expect(await harness.get("/_/plain/local:///inside%2F..%2Fphoto.png@png").status == 404)
        }
    }

    @Test func aLocalSourceSharesTheSourceCacheWithOtherRenditions() async throws {
        try await withProxy { harness, folder in
            #expect(await harness.get("/_/rs:fit:32:32/plain/local:///photo.png@png").status == 200)
            try FileManager.default.removeItem(at: folder.root.appendingPathComponent("photo.png"))
            // Another size of the same source: its bytes come from the source cache, not the (gone) file.
            let other = await harness.get("/_/rs:fit:20:20/plain/local:///photo.png@png")
            #expect(other.status == 200)
            #expect(try ProxyHarness.decode(other).size.width == 20)
            #expect(await harness.get("/_/plain/local:///inside/gone.png@png").status == 404)
        }
    }

    /// The watermark and the fallback image may be `local:` files too, as in imgproxy, under the same root and
    /// its rules: one outside the root does not load.
    @Test func theWatermarkAndTheFallbackMayBeLocalFilesUnderTheRoot() async throws {
        try await withProxy({
            $0.watermarkURL = URL(string: "local:///inside/deep.png")
            $0.fallbackImage.source = .url(URL(string: "local:///photo.png")!)
        }) { harness, _ in
            try await harness.proxy.loadWatermark()
            try await harness.proxy.loadFallbackImage()
            #expect(harness.proxy.renders.fallbackImage.current != nil)
            let missing = await harness.get("/_/rs:fit:32:32/plain/local:///missing.png@png")
            #expect(missing.status == 200)
            #expect(try ProxyHarness.decode(missing).size == PixelSize(width: 32, height: 24))
            let marked = await harness.get("/_/wm:1:ce/plain/local:///photo.png@png")
            let plain = await harness.get("/_/plain/local:///photo.png@png")
            #expect(marked.status == 200 && plain.status == 200)
            // The mark (30 × 20, centred) changes the middle of the 64 × 48 photo.
            let (withMark, without) = (try ProxyHarness.decode(marked).pixels, try ProxyHarness.decode(plain).pixels)
            let changed = (17..<47).flatMap { x in (14..<34).map { y in (x, y) } }
                .filter { withMark[$0.0, $0.1] != without[$0.0, $0.1] }.count
            #expect(changed > 300)
        }
        for outside in ["local:///link.png", "local:///up/secret.png"] {
            try await withProxy({ $0.watermarkURL = URL(string: outside) }) { harness, _ in
                await #expect(throws: ProxyConfigurationError.self) { try await harness.proxy.loadWatermark() }
            }
            try await withProxy({ $0.fallbackImage.source = .url(URL(string: outside)!) }) { harness, _ in
                await #expect(throws: ProxyConfigurationError.self) { try await harness.proxy.loadFallbackImage() }
            }
        }
    }
}
