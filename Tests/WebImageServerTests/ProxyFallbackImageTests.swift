import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// The fallback image (imgproxy's `IMGPROXY_FALLBACK_IMAGE_*`): a source that cannot be fetched is answered with
/// it, rendered with the request's options, at the configured status and lifetime; everything else answers as
/// without one.
@Suite struct ProxyFallbackImageTests {
    /// The fallback's colour: no pixel of the harness's photo is this (its blue channel is 40 or 200).
    static let magenta = RGBA(255, 0, 255)

    /// An 80 × 60 magenta PNG.
    static func fallbackPNG() throws -> Data {
        try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: 80, height: 60, filledWith: magenta)),
                                      as: .png)
    }

    /// A proxy whose fallback is ``fallbackPNG()``, loaded as `webimage serve` loads it.
    static func withFallback(status: Int = 200, timeToLive: Int = 0,
                             configuring adjust: @escaping (inout ProxyConfiguration) -> Void = { _ in },
                             _ body: (ProxyHarness) async throws -> Void) async throws {
        let fallback = try fallbackPNG()
        try await ProxyHarness.with(configuring: { configuration in
            configuration.fallbackImage.source = .data(fallback)
            configuration.fallbackImage.status = status
            configuration.fallbackImage.timeToLive = timeToLive
            adjust(&configuration)
        }) { harness in
            try await harness.proxy.loadFallbackImage()
            try await body(harness)
        }
    }

    @Test func aSourceTheOriginDoesNotHaveIsAnsweredWithTheFallbackRenderedAsAsked() async throws {
        try await Self.withFallback(timeToLive: 60) { harness in
            let answer = await harness.get(harness.plainPath(["rs:force:40:30"], "missing.png", ext: "webp"))
            #expect(answer.status == 200)
            #expect(answer.headers[.contentType] == "image/webp")
            #expect(answer.headers[.cacheControl] == "max-age=60, public")
            let image = try ProxyHarness.decode(answer)
            #expect(image.size == PixelSize(width: 40, height: 30))
            let centre = image.pixels[20, 15]
            #expect(centre.r > 240 && centre.g < 15 && centre.b > 240, "\(centre)")
            #expect(harness.origin.log.count("/files/missing.png") == 1)
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(metrics.contains("webimage_serve_fallback_answers_total 1"))
        }
    }

    @Test func anImageTheOriginHasIsAnsweredAsWithoutAFallback() async throws {
        try await Self.withFallback(timeToLive: 60) { harness in
            let answer = await harness.get(harness.plainPath(["rs:force:40:30"], "photo.jpg", ext: "png"))
            #expect(answer.status == 200)
            #expect(answer.headers[.cacheControl] == "max-age=31536000, public")
            let image = try ProxyHarness.decode(answer)
            #expect(image.size == PixelSize(width: 40, height: 30))
            #expect(image.pixels[20, 15] != Self.magenta)
            #expect(image.pixels[20, 15].g > 60)  // the photo's gradient, half way down
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(!metrics.contains("webimage_serve_fallback_answers_total 1"))
        }
    }

    @Test func theFallbackIsNeverCachedAsTheSourceOnceTheOriginHasIt() async throws {
        try await Self.withFallback { harness in
            let path = harness.plainPath(["w:40"], "late.png", ext: "png")
            let early = try ProxyHarness.decode(await harness.get(path))
            #expect(early.pixels[10, 10] == Self.magenta)
            // Asked again: the fallback's own result answers, but the origin is asked again too.
            let again = try ProxyHarness.decode(await harness.get(path))
            #expect(again.pixels[10, 10] == Self.magenta)
            #expect(harness.origin.log.count("/files/late.png") == 2)
            harness.origin.serve("late.png", data: try ProxyHarness.photo(width: 80, height: 60, as: .png),
                                 contentType: "image/png")
            let late = await harness.get(path)
            #expect(late.status == 200)
            let image = try ProxyHarness.decode(late)
            #expect(image.size == PixelSize(width: 40, height: 30))
            #expect(image.pixels[10, 10] != Self.magenta)
            #expect(harness.origin.log.count("/files/late.png") == 3)
        }
    }

    @Test func theConfiguredStatusOrZeroForTheFailuresOwn() async throws {
        try await Self.withFallback(status: 0) { harness in
            let answer = await harness.get(harness.plainPath(["w:20"], "missing.png", ext: "png"))
            #expect(answer.status == 404)
            let image = try ProxyHarness.decode(answer)
            #expect(image.pixels[5, 5] == Self.magenta)
            #expect(answer.headers[.cacheControl] == "max-age=31536000, public")
        }
        try await Self.withFallback(status: 503, timeToLive: 5) { harness in
            let path = harness.plainPath(["w:20"], "missing.png", ext: "png")
            let first = await harness.get(path)
            #expect(first.status == 503 && first.headers[.cacheControl] == "max-age=5, public")
            // Not a 304: "not modified" would keep a missing image's placeholder as if it were the image.
            let tag = try #require(first.header("ETag"))
            let again = await harness.get(path, ifNoneMatch: tag)
            #expect(again.status == 503 && again.body.readableBytes > 0)
        }
    }

    @Test func aSourceOfNoImageFormatGetsTheFallbackButOneThatFailsToDecodeDoesNot() async throws {
        try await Self.withFallback { harness in
            // `text.txt` is served as image/jpeg but holds text: imgproxy's type detection fails in its download.
            let text = await harness.get(harness.plainPath(["w:20"], "text.txt", ext: "png"))
            #expect(text.status == 200)
            let image = try ProxyHarness.decode(text)
            #expect(image.pixels[5, 5] == Self.magenta)
            // A JPEG's signature and then nothing a decoder can read: a decode failure, answered as one.
            harness.origin.serve("broken.jpg", data: Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 64)),
                                 contentType: "image/jpeg")
            #expect(await harness.get(harness.plainPath(["w:20"], "broken.jpg", ext: "png")).status == 422)
        }
    }

    @Test func refusalsBeforeAnythingIsFetchedAreNotAnsweredWithTheFallback() async throws {
        let signer = try URLSignature(keyHex: "736563726574", saltHex: "68656c6c6f")
        try await Self.withFallback(configuring: { $0.signature = signer }) { harness in
            let unsigned = harness.plainPath(["w:20"], "missing.png", ext: "png")
            let signedPart = String(unsigned.dropFirst(2))  // after "/_"
            #expect(await harness.get("/" + signer.signature(for: signedPart[...]) + signedPart).status == 200)
            let forged = await harness.get("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" + signedPart)
            #expect(forged.status == 403)
            #expect(forged.headers[.contentType] == "text/plain; charset=utf-8")
            let badOption = "/w:abc" + signedPart.dropFirst("/w:20".count)
            #expect(await harness.get("/" + signer.signature(for: badOption[...]) + badOption).status == 404)
            #expect(harness.origin.log.count("/files/missing.png") == 1)
        }
    }

    @Test func aFallbackThatIsNotAnImageOrCannotBeReadStopsTheStart() async throws {
        for source: ProxyConfiguration.FallbackImage.Source in [
            .data(Data("<html>not an image</html>".utf8)),
            .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])),
            .file("/nonexistent/fallback.png"),
        ] {
            try await ProxyHarness.with(configuring: { $0.fallbackImage.source = source }) { harness in
                await #expect(throws: ProxyConfigurationError.self, "\(source)") {
                    try await harness.proxy.loadFallbackImage()
                }
            }
        }
        try await ProxyHarness.with(configuring: { $0.fallbackImage.source = nil }) { harness in
            let url = harness.origin.url("/files/missing.png")
            var configuration = harness.proxy.configuration
            configuration.fallbackImage.source = .url(url)
            let proxy = ImageProxy(configuration: configuration)
            await #expect(throws: ProxyConfigurationError.self) { try await proxy.loadFallbackImage() }
        }
    }

    @Test func aFallbackFromAURLIsDownloadedAtTheStart() async throws {
        try await ProxyHarness.with { harness in
            harness.origin.serve("fallback.png", data: try Self.fallbackPNG(), contentType: "image/png")
            var configuration = harness.proxy.configuration
            configuration.fallbackImage.source = .url(harness.origin.url("/files/fallback.png"))
            let proxy = ImageProxy(configuration: configuration)
            try await proxy.loadFallbackImage()
            #expect(harness.origin.log.count("/files/fallback.png") == 1)
            let answer = await proxy.respond(to: ProxyRequest(
                method: "GET", path: harness.plainPath(["w:20"], "missing.png", ext: "png")))
            #expect(answer.status == 200)
            let image = try ProxyHarness.decode(answer)
            #expect(image.pixels[5, 5] == Self.magenta)
            #expect(harness.origin.log.count("/files/fallback.png") == 1)
        }
    }
}
