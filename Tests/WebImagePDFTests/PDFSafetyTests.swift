import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImagePDF

/// Hostile and damaged documents: thousands of pages, huge pages, passwords, truncated and corrupt bytes.
@Suite struct PDFSafetyTests {
    let coder = PDFCoder()

    @Test func thousandsOfPagesAreCountedAndOnlyOneDrawn() throws {
        let data = PDFFixtures.document(pages: 3_000)
        let properties = try coder.properties(of: data)
        #expect(properties.frameCount == 3_000)
        #expect(properties.size == PixelSize(width: 30, height: 20))
        // Past the default 10 000-frame limit would not matter either: one page is drawn.
        let last = try coder.decode(data, options: DecodeOptions(frameIndex: 2_999, limits: DecodeLimits(maxFrames: 1)))
        #expect(last.frames.count == 1)
        #expect(last.pixels[5, 15] == RGBA(0, 255, 0, 255))
        #expect(last.pixels[20, 5] == RGBA(255, 255, 255, 255))
    }

    @Test func hugePagesAreRefusedBeforeDrawing() throws {
        let data = PDFFixtures.document(pages: 1, mediaBox: "0 0 100000 100000")
        #expect(try coder.properties(of: data).size == PixelSize(width: 100_000, height: 100_000))
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
        let small = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        let thumbnail = try coder.decode(data, options: small)
        #expect(thumbnail.size == PixelSize(width: 64, height: 64))
    }

    @Test func imagesWithinTheLimitAreDrawn() throws {
        // 2×2 samples: red, green / blue, white, stretched over the 20×20 page (image rows run top to bottom).
        let data = PDFFixtures.document(imageWidth: 2, height: 2, hex: "FF000000FF000000FFFFFFFF>")
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.size == PixelSize(width: 20, height: 20))
        #expect(image.pixels[2, 2] == RGBA(255, 0, 0, 255))
        #expect(image.pixels[17, 17] == RGBA(255, 255, 255, 255))
    }

    @Test func imagesOverThePixelLimitAreRefusedBeforeDrawing() throws {
        // poppler would decode this image at 20 000 × 20 000 (1.6 GB) to draw a 20×20 page.
        let data = PDFFixtures.document(imageWidth: 20_000, height: 20_000, hex: "00>")
        #expect(try coder.properties(of: data).size == PixelSize(width: 20, height: 20))
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4))
        #expect(errorCode { try coder.decode(data, options: thumbnail) } == .imageTooLarge)
        let small = PDFFixtures.document(imageWidth: 2, height: 2, hex: "FF000000FF000000FFFFFFFF>")
        let limits = DecodeLimits(maxPixels: 3)
        let thumbnailOfSmall = DecodeOptions(thumbnailPixelSize: PixelSize(width: 1, height: 1), limits: limits)
        #expect(errorCode { try coder.decode(small, options: thumbnailOfSmall) } == .imageTooLarge)
    }

    @Test func pixelLimitApplies() throws {
        let data = try PDFFixtures.data("shapes.pdf")
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 100 * 80 - 1))
        #expect(errorCode { try coder.decode(data, options: options) } == .imageTooLarge)
    }

    @Test func sizesCairoCannotDrawAreRefused() {
        let data = PDFFixtures.document(pages: 1, mediaBox: "0 0 40000 2")
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
    }

    @Test func emptyPageBoxFallsBackToLetter() throws {
        // poppler replaces an empty MediaBox with US Letter (612×792 points), as viewers do.
        let data = PDFFixtures.document(pages: 1, mediaBox: "0 0 0 0")
        #expect(try coder.properties(of: data).size == PixelSize(width: 612, height: 792))
        #expect(try coder.decode(data, options: DecodeOptions()).size == PixelSize(width: 612, height: 792))
    }

    @Test func documentWithoutPagesIsBadData() {
        let data = PDFFixtures.document(pages: 0)
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .badImageData)
        #expect(errorCode { try coder.properties(of: data) } == .badImageData)
    }

    @Test func passwordProtectedIsUnsupported() throws {
        let data = try PDFFixtures.data("encrypted.pdf")
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .unsupportedFormat)
        #expect(errorCode { try coder.properties(of: data) } == .unsupportedFormat)
        do {
            _ = try coder.decode(data, options: DecodeOptions())
        } catch let error as ImageError {
            #expect(error.message.contains("password"))
        }
    }

    @Test func truncationsAreBadData() throws {
        let data = try PDFFixtures.data("shapes.pdf")
        for length in [0, 1, 4, 9, 40, 200, data.count / 2, data.count - 60, data.count - 7] {
            let cut = data.prefix(length)
            #expect(errorCode { try coder.decode(cut, options: DecodeOptions()) } == .badImageData,
                    "cut at \(length)")
            #expect(errorCode { try coder.properties(of: cut) } == .badImageData, "cut at \(length)")
        }
    }

    @Test func garbageIsBadData() {
        for text in ["%PDF-1.4\nnothing here at all\n%%EOF\n", "%PDF-", "%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%%EOF",
                     "<html>error</html>\n%%EOF"] {
            let data = Data(text.utf8)
            #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .badImageData, "\(text)")
            #expect(errorCode { try coder.properties(of: data) } == .badImageData, "\(text)")
        }
    }

    @Test func corruptCopiesGiveATypedErrorOrAnImage() throws {
        let data = try PDFFixtures.data("two-pages.pdf")
        var state: UInt64 = 6
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<40 {
            var copy = data
            for _ in 0..<4 { copy[next() % (copy.count - 8)] = UInt8(truncatingIfNeeded: next()) }
            do {
                let image = try coder.decode(copy, options: DecodeOptions())
                #expect(image.size.area > 0)
            } catch let error as ImageError {
                #expect([.badImageData, .imageTooLarge, .unsupportedFormat].contains(error.code))
            }
        }
    }
}
