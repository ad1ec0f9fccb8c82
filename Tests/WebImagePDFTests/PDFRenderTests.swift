import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImagePDF

/// Pages drawn through poppler's cairo backend, compared with `pdftoppm` (poppler's Splash rasteriser): sizes,
/// page choice, rotation, thumbnails drawn at their size, white paper, properties against the full decode.
@Suite struct PDFRenderTests {
    let coder = PDFCoder()

    @Test(arguments: [("shapes.pdf", 0, "shapes.rgb", PixelSize(width: 100, height: 80)),
                      ("two-pages.pdf", 1, "two-pages-2.rgb", PixelSize(width: 60, height: 90)),
                      ("rotated.pdf", 0, "rotated.rgb", PixelSize(width: 50, height: 100)),
                      ("fractional.pdf", 0, "fractional.rgb", PixelSize(width: 51, height: 31))])
    func matchesPdftoppm(file: String, page: Int, reference: String, size: PixelSize) throws {
        let image = try coder.decode(try PDFFixtures.data(file), options: DecodeOptions(frameIndex: page))
        #expect(image.size == size)
        #expect(image.format == .pdf)
        #expect(!image.hasAlpha)
        #expect(image.frames.count == 1 && image.loopCount == 1)
        let difference = PDFFixtures.difference(image.pixels, try PDFFixtures.reference(reference),
                                                partialEdges: file != "fractional.pdf")
        #expect(difference.mean < 1.5, "mean difference \(difference.mean)")
        #expect(difference.farShare < 0.02, "\(difference.farShare) of channels differ by more than 16")
    }

    @Test func knownColoursOnWhitePaper() throws {
        let image = try coder.decode(try PDFFixtures.data("shapes.pdf"), options: DecodeOptions())
        // PDF's y axis points up: the red rectangle at (10, 10)–(50, 40) is rows 40…69 from the top.
        #expect(image.pixels[30, 55] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[70, 25] == RGBA(0, 0, 255, 255))  // blue at (50, 40)–(90, 70)
        #expect(image.pixels[2, 2] == RGBA(255, 255, 255, 255))
        #expect(image.pixels[97, 77] == RGBA(255, 255, 255, 255))
    }

    @Test func firstPageByDefault() throws {
        let image = try coder.decode(try PDFFixtures.data("two-pages.pdf"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 100, height: 80))
        #expect(PDFFixtures.difference(image.pixels, try PDFFixtures.reference("shapes.rgb")).mean < 1.5)
    }

    @Test func pagePastTheLastIsAnInvalidParameter() throws {
        let data = try PDFFixtures.data("two-pages.pdf")
        for page in [2, 100, -1] {
            #expect(errorCode { try coder.decode(data, options: DecodeOptions(frameIndex: page)) }
                    == .invalidParameter)
        }
    }

    @Test func thumbnailIsDrawnAtItsSize() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50))
        let image = try coder.decode(try PDFFixtures.data("shapes.pdf"), options: options)
        #expect(image.size == PixelSize(width: 50, height: 40))
        #expect(image.flags.contains(.thumbnail))
        let difference = PDFFixtures.difference(image.pixels, try PDFFixtures.reference("shapes-50x40.rgb"))
        #expect(difference.mean < 2.5, "mean difference \(difference.mean)")
        // Drawn at half size, the red rectangle's edges fall on whole pixels: pure colours on both sides.
        #expect(image.pixels[5, 20] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[4, 20] == RGBA(255, 255, 255, 255))
    }

    @Test func largerBoxesAreDrawnLargerAndSharp() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200))
        let image = try coder.decode(try PDFFixtures.data("shapes.pdf"), options: options)
        #expect(image.size == PixelSize(width: 200, height: 160))
        // Drawn at 144 dpi: the red rectangle's left edge (10 pt) is at x = 20, one clean step.
        #expect(image.pixels[20, 100] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[19, 100] == RGBA(255, 255, 255, 255))
    }

    @Test func thumbnailWithoutAspectRatioFillsTheBox() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 60), preserveAspectRatio: false)
        let image = try coder.decode(try PDFFixtures.data("shapes.pdf"), options: options)
        #expect(image.size == PixelSize(width: 20, height: 60))
    }

    @Test func scaleDownLimitRendersSmaller() throws {
        let options = DecodeOptions(scaleDownLimitBytes: 50 * 40 * 4)
        let image = try coder.decode(try PDFFixtures.data("shapes.pdf"), options: options)
        #expect(image.size.area <= 50 * 40)
        #expect(image.flags.contains(.thumbnail))
    }

    @Test(arguments: [("shapes.pdf", 1), ("two-pages.pdf", 2), ("rotated.pdf", 1), ("fractional.pdf", 1)])
    func propertiesAgreeWithTheDecode(file: String, pages: Int) throws {
        let data = try PDFFixtures.data(file)
        let properties = try coder.properties(of: data)
        let image = try coder.decode(data, options: DecodeOptions())
        // A decode draws one page; the properties count every page as a frame. All else is the same.
        var expected = ImageProperties(of: image)
        expected.frameCount = pages
        #expect(properties == expected)
        #expect(!properties.hasAlpha && properties.loopCount == 1 && properties.frameDurations.isEmpty)
        #expect(!properties.isAnimated)
    }

    @Test func registeredCoderDetectsAndDecodes() throws {
        let data = try PDFFixtures.data("shapes.pdf")
        #expect(coder.canDecode(data))
        #expect(coder.decodableFormats == [.pdf])
        #expect(try ImageCoders(coders: [coder]).properties(of: data).frameCount == 1)
    }

    @Test func concurrentDecodesAgree() async throws {
        let data = try PDFFixtures.data("two-pages.pdf")
        let coder = coder
        let sizes = try await withThrowingTaskGroup(of: PixelSize.self) { group in
            for page in 0..<8 {
                group.addTask { try coder.decode(data, options: DecodeOptions(frameIndex: page % 2)).size }
            }
            return try await group.reduce(into: [PixelSize]()) { $0.append($1) }
        }
        #expect(sizes.filter { $0 == PixelSize(width: 100, height: 80) }.count == 4)
        #expect(sizes.filter { $0 == PixelSize(width: 60, height: 90) }.count == 4)
    }

    @Test func doesNotEncode() throws {
        let image = try coder.decode(try PDFFixtures.data("fractional.pdf"), options: DecodeOptions())
        #expect(errorCode { try coder.encode(image, as: .pdf, options: EncodeOptions()) } == .unsupportedFormat)
    }
}
