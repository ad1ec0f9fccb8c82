import Foundation
import NIOCore
import Testing
import WebImage
import WebImageAVIF
import WebImageHEIF
import WebImageSVG

@testable import WebImageServer

/// imgproxy's server settings that change answers: `--always-rasterize-svg`, `--watermark-opacity` and
/// `enforce_thumbnail` (with its default, `--enforce-thumbnail`); each with a result cache that never hands out
/// what other settings made.
@Suite struct ProxyServerSettingsTests {
    /// What `webimage serve` registers for these formats: SVG drawn by librsvg, HEIC by libheif, AVIF by libavif
    /// with its thumbnails read by libheif.
    static let coders = ImageCoders(coders: ImageCoders.builtIn + [
        SVGCoder(), HEIFCoder(),
        AVIFCoder(embeddedThumbnails: { try HEIFCoder.embeddedThumbnail(of: $0, options: $1) }),
    ])

    /// A 20×10 green rectangle (computed: a `Data` held in a global is reported by LeakSanitizer at exit).
    static var svg: Data {
        Data("""
            <svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">\
            <rect width="20" height="10" fill="#00ff00"/></svg>
            """.utf8)
    }

    /// The HEIF coder's fixtures, read where they live: 160×120 with a 40×30 thumbnail, in HEIC and in AVIF.
    static func fixture(_ name: String) throws -> Data {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: tests.appendingPathComponent("WebImageHEIFTests/Fixtures/\(name)"))
    }

    /// Another proxy over the same caches (a restart with other settings): only the memory tier is its own.
    static func restarted(_ harness: ProxyHarness, _ adjust: (inout ProxyConfiguration) -> Void) -> ImageProxy {
        var configuration = harness.proxy.configuration
        adjust(&configuration)
        return ImageProxy(configuration: configuration, coders: Self.coders)
    }

    // MARK: - Always rasterize SVG

    @Test func anSVGSourceIsRasterisedWhenTheURLNamesNoFormat() async throws {
        let webp = FormatNegotiation(offersAVIF: false, offersWebP: true)
        try await ProxyHarness.with(configuring: { $0.alwaysRasterizesSVG = true; $0.negotiation = webp },
                                    coders: Self.coders) { harness throws in
            harness.origin.serve("icon.svg", data: Self.svg, contentType: "image/svg+xml")
            // An SVG has transparency: the preferred formats give PNG.
            let drawn = await harness.get(harness.plainPath([], "icon.svg"))
            #expect(drawn.status == 200 && drawn.header("Content-Type") == "image/png")
            let image = try ProxyHarness.decode(drawn)
            #expect(image.size == PixelSize(width: 20, height: 10) && image.pixels[10, 5] == RGBA(0, 255, 0))
            let filled = try ProxyHarness.decode(await harness.get(harness.plainPath(["rs:fill:4:4"], "icon.svg")))
            #expect(filled.size == PixelSize(width: 4, height: 4))
            // A format from Accept is what the raster answer becomes.
            let negotiated = await harness.get(harness.plainPath([], "icon.svg"), accept: "image/webp")
            #expect(negotiated.status == 200 && negotiated.header("Content-Type") == "image/webp")
            // SVG named in the URL, or its processing skipped: still answered as SVG.
            for options in [["f:svg"], ["skp:svg"]] {
                let svg = await harness.get(harness.plainPath(options, "icon.svg"), accept: "image/webp")
                #expect(svg.status == 200 && svg.header("Content-Type") == "image/svg+xml", "\(options)")
                #expect(String(buffer: svg.body).contains("<rect"))
            }
            // Other sources are answered as before.
            let photo = await harness.get(harness.plainPath([], "photo.jpg"))
            #expect(photo.header("Content-Type") == "image/jpeg")
        }
    }

    @Test func withoutTheSettingAnSVGSourceStaysSVGAndItsResultIsNotReusedOnceItIsOn() async throws {
        try await ProxyHarness.with(coders: Self.coders) { harness throws in
            harness.origin.serve("icon.svg", data: Self.svg, contentType: "image/svg+xml")
            let path = harness.plainPath([], "icon.svg")
            #expect(await harness.get(path).header("Content-Type") == "image/svg+xml")
            let rasterising = Self.restarted(harness) { $0.alwaysRasterizesSVG = true }
            let drawn = await rasterising.respond(to: ProxyRequest(method: "GET", path: path))
            #expect(drawn.status == 200 && drawn.header("Content-Type") == "image/png")
            // A URL that names its format gets the same answer either way, so it keeps its key.
            let png = harness.plainPath([], "icon.svg", ext: "png")
            // Asked for twice, so the disk has it for the restarted proxy.
            #expect(await harness.get(png).status == 200)
            #expect(await harness.get(png).status == 200)
            let started = rasterising.renderingsStarted
            #expect(await rasterising.respond(to: ProxyRequest(method: "GET", path: png)).status == 200)
            #expect(rasterising.renderingsStarted == started)
        }
    }

    // MARK: - Watermark opacity

    /// A 10×10 opaque red watermark over a grey 100×100 source.
    static let red = RGBA(255, 0, 0), grey = RGBA(128, 128, 128)

    static func render(_ segments: [String], baseOpacity: Double) throws -> PixelBuffer {
        let mark = ProxyWatermark(pixels: try PixelBuffer(width: 10, height: 10, filledWith: red), opacity: baseOpacity)
        let source = Image(pixels: try PixelBuffer(width: 100, height: 100, filledWith: grey))
        let data = try ProxyRenderer(watermark: mark).render(source, options: try ProcessingOptions(segments: segments),
                                                             format: .png)
        return try ImageCoders.shared.decode(data).pixels
    }

    static func near(_ a: RGBA, _ b: RGBA, _ tolerance: Int = 1) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && a.a == b.a
    }

    @Test func theWatermarkOpacityMultipliesTheOptionsOpacity() throws {
        // Red at a half over grey is (191, 64, 64); at a quarter (160, 96, 96).
        #expect(Self.near(try Self.render(["wm:1:nowe"], baseOpacity: 1)[0, 0], Self.red, 0))
        #expect(Self.near(try Self.render(["wm:1:nowe"], baseOpacity: 0.5)[0, 0], RGBA(191, 64, 64)))
        #expect(Self.near(try Self.render(["wm:0.5:nowe"], baseOpacity: 1)[0, 0], RGBA(191, 64, 64)))
        let quarter = try Self.render(["wm:0.5:nowe"], baseOpacity: 0.5)
        #expect(Self.near(quarter[0, 0], RGBA(160, 96, 96)) && quarter[10, 10] == Self.grey)
        let tiled = try Self.render(["wm:0.5:re"], baseOpacity: 0.5)
        #expect(Self.near(tiled[50, 50], RGBA(160, 96, 96)))
    }

    @Test func theProxyDrawsItsWatermarkAtItsOpacityAndCachesPerOpacity() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wm-\(UUID().uuidString).png")
        let mark = try PixelBuffer(width: 10, height: 10, filledWith: Self.red)
        try ImageCoders.shared.encode(Image(pixels: mark), as: .png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let grey = Image(pixels: try PixelBuffer(width: 100, height: 100, filledWith: Self.grey))
        try await ProxyHarness.with(configuring: { $0.watermarkPath = file.path; $0.watermarkOpacity = 0.5 }) {
            harness throws in
            harness.origin.serve("grey.png", data: try ImageCoders.shared.encode(grey, as: .png),
                                 contentType: "image/png")
            try await harness.proxy.loadWatermark()
            let path = harness.plainPath(["wm:0.5:soea"], "grey.png", ext: "png")
            let faint = try ProxyHarness.decode(await harness.get(path)).pixels
            #expect(Self.near(faint[99, 99], RGBA(160, 96, 96)) && faint[89, 89] == Self.grey)
            // Restarted at full opacity over the same caches: drawn again, not the fainter result.
            let full = Self.restarted(harness) { $0.watermarkOpacity = 1 }
            try await full.loadWatermark()
            let strong = try ProxyHarness.decode(await full.respond(to: ProxyRequest(method: "GET", path: path)))
            #expect(Self.near(strong.pixels[99, 99], RGBA(191, 64, 64)))
            // Out of (0, 1] the watermark is refused at start-up, as imgproxy refuses the setting.
            for opacity in [0, -0.5, 1.5] {
                let refused = Self.restarted(harness) { $0.watermarkOpacity = opacity }
                await #expect(throws: ProxyConfigurationError.self) { try await refused.loadWatermark() }
            }
        }
    }

    // MARK: - Enforce thumbnail

    @Test func enforceThumbnailAnswersFromTheEmbeddedThumbnail() async throws {
        try await ProxyHarness.with(coders: Self.coders) { harness throws in
            harness.origin.serve("thumb.heic", data: try Self.fixture("thumb.heic"), contentType: "image/heic")
            harness.origin.serve("thumb.avif", data: try Self.fixture("thumb.avif"), contentType: "image/avif")
            func size(_ options: [String], _ name: String) async throws -> PixelSize {
                let answer = await harness.get(harness.plainPath(options, name, ext: "png"))
                #expect(answer.status == 200)
                return try ProxyHarness.decode(answer).size
            }
            for name in ["thumb.heic", "thumb.avif"] {
                #expect(try await size([], name) == PixelSize(width: 160, height: 120))
                #expect(try await size(["w:0"], name) == PixelSize(width: 160, height: 120))
                // The thumbnail is the source from then on: its size, and the geometry worked out on it.
                #expect(try await size(["eth:1"], name) == PixelSize(width: 40, height: 30), "\(name)")
                #expect(try await size(["eth:1", "w:0"], name) == PixelSize(width: 40, height: 30))
                #expect(try await size(["eth:1", "w:20"], name) == PixelSize(width: 20, height: 15))
                #expect(try await size(["eth:1", "w:80", "el:1"], name) == PixelSize(width: 80, height: 60))
                #expect(try await size(["eth:0"], name) == PixelSize(width: 160, height: 120))
            }
            // The thumbnail item's own pixels, not the main image scaled down.
            let answer = await harness.get(harness.plainPath(["eth:1"], "thumb.heic", ext: "png"))
            let thumbnail = try Self.coders.decode(try Self.fixture("thumb.heic"),
                                                   options: DecodeOptions(prefersEmbeddedThumbnail: true))
            #expect(try ProxyHarness.decode(answer).pixels.bytes == thumbnail.pixels.bytes)
            // Other formats have none: the option changes nothing.
            #expect(try await size(["eth:1"], "photo.jpg") == PixelSize(width: 400, height: 300))
        }
    }

    @Test func theServerDefaultEnforcesThumbnailsUnlessTheURLSaysNo() async throws {
        try await ProxyHarness.with(configuring: { $0.enforcesThumbnail = true }, coders: Self.coders) {
            harness throws in
            harness.origin.serve("thumb.heic", data: try Self.fixture("thumb.heic"), contentType: "image/heic")
            func size(_ options: [String]) async throws -> PixelSize {
                try ProxyHarness.decode(await harness.get(harness.plainPath(options, "thumb.heic", ext: "png"))).size
            }
            #expect(try await size([]) == PixelSize(width: 40, height: 30))
            #expect(try await size(["eth:0"]) == PixelSize(width: 160, height: 120))
            // The URL without eth was answered with the thumbnail here: a server without the default renders anew.
            let plain = Self.restarted(harness) { $0.enforcesThumbnail = false }
            let path = harness.plainPath([], "thumb.heic", ext: "png")
            let full = try ProxyHarness.decode(await plain.respond(to: ProxyRequest(method: "GET", path: path)))
            #expect(full.size == PixelSize(width: 160, height: 120))
        }
    }

    @Test func theURLsLimitsApplyToTheThumbnailWhenItIsUsed() async throws {
        // 160×120 is 19 200 pixels, the thumbnail 1 200: a limit between them refuses only the main image.
        try await ProxyHarness.with(configuring: { $0.allowsSecurityOptions = true }, coders: Self.coders) {
            harness throws in
            harness.origin.serve("thumb.heic", data: try Self.fixture("thumb.heic"), contentType: "image/heic")
            #expect(await harness.get(harness.plainPath(["msr:0.01"], "thumb.heic", ext: "png")).status == 422)
            let thumbnail = await harness.get(harness.plainPath(["msr:0.01", "eth:1"], "thumb.heic", ext: "png"))
            #expect(thumbnail.status == 200)
        }
    }
}
