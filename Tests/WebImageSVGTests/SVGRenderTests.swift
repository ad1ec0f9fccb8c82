import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageSVG

/// Renders compared with `rsvg-convert`'s (same librsvg and cairo underneath, so they must agree to the byte,
/// allowing 1 for rounding), sizes, thumbnails drawn at their size, and properties against the full decode.
@Suite struct SVGRenderTests {
    let coder = SVGCoder()

    @Test(arguments: ["shapes", "gradient", "viewbox", "units", "one-side", "fractional"])
    func matchesRsvgConvert(name: String) throws {
        let image = try coder.decode(try SVGFixtures.data("\(name).svg"), options: DecodeOptions())
        let expected = try #require(SVGFixtures.renderable.first { $0.name == name }).size
        #expect(image.size == expected)
        #expect(image.format == .svg)
        #expect(image.hasAlpha)
        #expect(!image.flags.contains(.thumbnail))
        #expect(SVGFixtures.maxDifference(image.pixels, try SVGFixtures.reference("\(name).rgba")) <= 1)
    }

    @Test func knownColours() throws {
        let image = try coder.decode(try SVGFixtures.data("shapes.svg"), options: DecodeOptions())
        #expect(image.pixels[5, 5] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[60, 5] == RGBA(0, 255, 0, 255))
        #expect(image.pixels[5, 44] == RGBA(0, 0, 255, 255))
        #expect(image.pixels[60, 44] == RGBA(255, 255, 255, 128))  // 0.5 opacity over a transparent background
    }

    @Test func thumbnailsAreDrawnAtTheirSize() throws {
        for (name, box, reference) in [("shapes", PixelSize(width: 32, height: 32), "shapes-32x24"),
                                       ("gradient", PixelSize(width: 40, height: 40), "gradient-40x30")] {
            let image = try coder.decode(try SVGFixtures.data("\(name).svg"),
                                         options: DecodeOptions(thumbnailPixelSize: box))
            #expect(image.flags.contains(.thumbnail))
            // rsvg-convert -w -h draws at that size too: a resampled big render would differ along every edge.
            #expect(SVGFixtures.maxDifference(image.pixels, try SVGFixtures.reference("\(reference).rgba")) <= 1)
        }
    }

    @Test func thumbnailEdgesStaySharp() throws {
        // The 4 px red/green boundary at x = 32 of a 64 px document falls on x = 8 of a 16 px thumbnail: drawn at
        // 16 px, the columns on either side are pure colours.
        let image = try coder.decode(try SVGFixtures.data("shapes.svg"),
                                     options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 12)))
        #expect(image.size == PixelSize(width: 16, height: 12))
        #expect(image.pixels[7, 1] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[8, 1] == RGBA(0, 255, 0, 255))
    }

    @Test func thumbnailWithoutAspectRatioFillsTheBox() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 40), preserveAspectRatio: false)
        let image = try coder.decode(try SVGFixtures.data("shapes.svg"), options: options)
        #expect(image.size == PixelSize(width: 20, height: 40))
        #expect(image.pixels[0, 0] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[19, 39] == RGBA(255, 255, 255, 128))
    }

    @Test func scaleDownLimitRendersSmaller() throws {
        let options = DecodeOptions(scaleDownLimitBytes: 32 * 24 * 4)
        let image = try coder.decode(try SVGFixtures.data("shapes.svg"), options: options)
        #expect(image.size.area <= 32 * 24)
        #expect(image.flags.contains(.thumbnail))
    }

    @Test func largerBoxesAreDrawnLargerAndSharp() throws {
        let image = try coder.decode(try SVGFixtures.data("shapes.svg"),
                                     options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 640, height: 640)))
        #expect(image.size == PixelSize(width: 640, height: 480))
        // Drawn at 10×, not scaled up: the red/green boundary at x = 320 is one clean step.
        #expect(image.pixels[319, 10] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[320, 10] == RGBA(0, 255, 0, 255))
        // The scale-down limit still only reduces.
        let limited = DecodeOptions(thumbnailPixelSize: PixelSize(width: 640, height: 640),
                                    scaleDownLimitBytes: 128 * 96 * 4)
        #expect(try coder.decode(try SVGFixtures.data("shapes.svg"), options: limited).size.area <= 128 * 96)
    }

    @Test func documentWithoutSizeUsesTheDefault() throws {
        let image = try coder.decode(try SVGFixtures.data("no-size.svg"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 512, height: 512))
        #expect(image.pixels[10, 10] == RGBA(0x33, 0x66, 0x99, 255))  // 50% of the 512 px viewport
        #expect(image.pixels[300, 300].a == 0)
    }

    @Test func onlyFrameZeroExists() throws {
        let data = try SVGFixtures.data("fractional.svg")
        #expect(try coder.decode(data, options: DecodeOptions(frameIndex: 0)).size == PixelSize(width: 11, height: 8))
        #expect(errorCode { try coder.decode(data, options: DecodeOptions(frameIndex: 1)) } == .invalidParameter)
    }

    @Test func scaleComesFromTheFileName() throws {
        let options = DecodeOptions(fileNameHint: "icon@2x.svg")
        #expect(try coder.decode(try SVGFixtures.data("shapes.svg"), options: options).scale == 2)
    }

    @Test(arguments: SVGFixtures.renderable.map(\.name))
    func propertiesAgreeWithTheDecode(name: String) throws {
        let data = try SVGFixtures.data("\(name).svg")
        let properties = try coder.properties(of: data)
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(properties == ImageProperties(of: image))
        #expect(properties.hasAlpha)
        #expect(properties.frameCount == 1 && properties.loopCount == 1 && properties.frameDurations.isEmpty)
    }

    @Test func registeredCoderDetectsAndDecodes() throws {
        let data = try SVGFixtures.data("viewbox.svg")
        #expect(coder.canDecode(data))
        #expect(coder.decodableFormats == [.svg])
        let coders = ImageCoders(coders: [coder])
        #expect(try coders.properties(of: data).size == PixelSize(width: 60, height: 45))
    }

    @Test func concurrentDecodesAgree() async throws {
        let data = try SVGFixtures.data("gradient.svg")
        let reference = try SVGFixtures.reference("gradient.rgba")
        let coder = coder
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    SVGFixtures.maxDifference(try coder.decode(data, options: DecodeOptions()).pixels, reference)
                }
            }
            for try await difference in group { #expect(difference <= 1) }
        }
    }

    @Test func textIsDrawnWithTheSystemFonts() throws {
        // Text goes through pango and fontconfig, which librsvg loads only for text: the one path of the coder that
        // reads files outside the document (the system's fonts). Under AddressSanitizer this test also checks the
        // suppression of fontconfig's one-time caches (scripts/lsan-suppressions.txt).
        let text = #"<text x="4" y="34" font-family="sans-serif" font-size="32" fill="black">WI</text>"#
        let data = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="40">\#(text)</svg>"#.utf8)
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.size == PixelSize(width: 64, height: 40))
        var inked = 0
        for y in 0..<40 {
            for x in 0..<64 where image.pixels[x, y].a == 255 {
                inked += 1
                #expect(image.pixels[x, y] == RGBA(0, 0, 0, 255))
            }
        }
        // Two capitals 32 px high cover far more than 50 pixels and far less than the canvas.
        #expect(inked > 50 && inked < 64 * 40 / 2)
        #expect(image.pixels[63, 39].a == 0)
        #expect(try coder.decode(data, options: DecodeOptions()).pixels.bytes == image.pixels.bytes)
    }

    @Test func doesNotEncode() throws {
        let image = try coder.decode(try SVGFixtures.data("fractional.svg"), options: DecodeOptions())
        #expect(!coder.canEncode(to: .png))
        #expect(errorCode { try coder.encode(image, as: .svg, options: EncodeOptions()) } == .unsupportedFormat)
    }
}
