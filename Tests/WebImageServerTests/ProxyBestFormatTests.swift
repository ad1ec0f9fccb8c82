import CoderTestSupport
import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// `format:best` (imgproxy Pro's best format): the smallest of the candidate formats, lossless for graphics and
/// lossy for photos, holding what the result needs, named `Vary: Accept` when `Accept` adds candidates.
@Suite struct ProxyBestFormatTests {
    static let coders = ProxyServerSettingsTests.coders
    static let modern = "image/avif,image/webp,*/*"

    static func negotiating(_ configuration: inout ProxyConfiguration) {
        configuration.negotiation = FormatNegotiation(offersAVIF: true, offersWebP: true)
    }

    /// A photo-like 480×360 JPEG (fine grain under smooth colour: complexity well above the threshold).
    static func photo() throws -> Data {
        try GrainyPhoto.jpeg(width: 480, height: 360, progressive: false)
    }

    /// A 240×160 graphic of four flat colours (complexity near 0).
    static func graphic() throws -> Data {
        let image = try ProxyRenderingOptionsTests.quadrants(width: 240, height: 160)
        return try ImageCoders.shared.encode(image, as: .png)
    }

    static func format(_ response: ProxyResponse) -> String? { response.headers[.contentType] }

    @Test func aPhotoIsAnsweredInTheSmallestLossyCandidate() async throws {
        let decoded = try ImageCoders.shared.decode(try Self.photo())
        #expect(decoded.pixels.complexity > BestFormatSettings().complexityThreshold)
        try await ProxyHarness.with(configuring: Self.negotiating, coders: Self.coders) { harness in
            harness.origin.serve("grain.jpg", data: try Self.photo(), contentType: "image/jpeg")
            let best = await harness.get(harness.plainPath(["w:300", "f:best"], "grain.jpg"), accept: Self.modern)
            #expect(best.status == 200 && best.headers[.vary] == "Accept")
            var sizes: [String: Int] = [:]
            for ext in ["jpg", "webp", "avif"] {
                let single = await harness.get(harness.plainPath(["w:300"], "grain.jpg", ext: ext), accept: Self.modern)
                #expect(single.status == 200)
                sizes[Self.format(single)!] = single.body.readableBytes
            }
            let smallest = try #require(sizes.min { $0.value < $1.value })
            #expect(Self.format(best) == smallest.key && best.body.readableBytes == smallest.value, "\(sizes)")
            #expect(try Self.coders.decode(best.bodyData).size == PixelSize(width: 300, height: 225))
            // The extension says the same; a client that takes neither AVIF nor WebP gets JPEG.
            let byExtension = await harness.get(harness.plainPath(["w:300"], "grain.jpg", ext: "best"),
                                                accept: Self.modern)
            #expect(byExtension.bodyData == best.bodyData)
            let plain = await harness.get(harness.plainPath(["w:300", "f:best"], "grain.jpg"), accept: "image/*")
            #expect(Self.format(plain) == "image/jpeg")
        }
    }

    @Test func aGraphicIsAnsweredLosslesslyWithItsPixelsExact() async throws {
        let source = try Self.graphic()
        let pixels = try ImageCoders.shared.decode(source).pixels
        #expect(pixels.complexity < 1)
        try await ProxyHarness.with(configuring: Self.negotiating, coders: Self.coders) { harness in
            harness.origin.serve("flat.png", data: source, contentType: "image/png")
            for accept in [Self.modern, "image/*"] {
                let best = await harness.get(harness.plainPath(["f:best"], "flat.png"), accept: accept)
                #expect(best.status == 200)
                let format = try #require(Self.format(best))
                #expect(accept == Self.modern ? ["image/png", "image/webp"].contains(format) : format == "image/png")
                #expect(try ProxyHarness.decode(best).pixels.bytes == pixels.bytes, "\(format)")
                // Smaller than the lossy answer the same URL gets without best: no ringing to pay for.
                let png = await harness.get(harness.plainPath([], "flat.png", ext: "png"))
                #expect(best.body.readableBytes <= png.body.readableBytes)
            }
        }
    }

    @Test func animationsStayAnimatedAndTransparencyStays() async throws {
        try await ProxyHarness.with(coders: Self.coders) { harness throws in
            let animated = await harness.get(harness.plainPath(["f:best"], "anim.gif"))
            #expect(animated.status == 200)
            #expect(try Self.coders.decode(animated.bodyData).frames.count == 3, "\(Self.format(animated) ?? "")")
            // The smaller of the lossless APNG and the GIF the candidates allow.
            let gif = await harness.get(harness.plainPath([], "anim.gif", ext: "gif")).body.readableBytes
            let png = await harness.get(harness.plainPath([], "anim.gif", ext: "png")).body.readableBytes
            #expect(animated.body.readableBytes == min(gif, png))
            let logo = await harness.get(harness.plainPath(["f:best", "w:32"], "logo.png"))
            #expect(Self.format(logo) != "image/jpeg")
            #expect(try ProxyHarness.decode(logo).pixels.containsTransparency)
        }
    }

    @Test func serverSettingsByDefaultMaximumResolutionAndSkips() async throws {
        try await ProxyHarness.with(configuring: {
            Self.negotiating(&$0)
            $0.bestFormat.byDefault = true
            $0.bestFormat.maximumPixels = 10_000
        }, coders: Self.coders) { harness in
            harness.origin.serve("grain.jpg", data: try Self.photo(), contentType: "image/jpeg")
            harness.origin.serve("icon.svg", data: ProxyServerSettingsTests.svg, contentType: "image/svg+xml")
            // Over the resolution: one encoding, the newest codec the client takes.
            let large = await harness.get(harness.plainPath(["w:300"], "grain.jpg"), accept: Self.modern)
            #expect(Self.format(large) == "image/avif")
            // Named formats still win over the default.
            let named = await harness.get(harness.plainPath(["w:300"], "grain.jpg", ext: "png"), accept: Self.modern)
            #expect(Self.format(named) == "image/png")
            // An SVG is drawn, not passed on, unless skips are allowed.
            let svg = await harness.get(harness.plainPath([], "icon.svg"), accept: Self.modern)
            #expect(svg.status == 200 && Self.format(svg) != "image/svg+xml")
        }
        try await ProxyHarness.with(configuring: { $0.bestFormat.allowsSkips = true }, coders: Self.coders) { harness in
            harness.origin.serve("icon.svg", data: ProxyServerSettingsTests.svg, contentType: "image/svg+xml")
            let svg = await harness.get(harness.plainPath(["f:best"], "icon.svg"))
            #expect(Self.format(svg) == "image/svg+xml")
        }
    }
}
