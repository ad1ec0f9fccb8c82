import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageSVG

/// Hostile documents: external references, entity bombs, huge declared sizes, truncated and corrupt bytes.
/// Each ends in a typed error or a render that used nothing outside the document.
@Suite struct SVGSafetyTests {
    let coder = SVGCoder()

    @Test func externalReferencesAreNeverLoaded() throws {
        let image = try coder.decode(try SVGFixtures.data("external.svg"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 40, height: 30))
        #expect(SVGFixtures.maxDifference(image.pixels, try SVGFixtures.reference("external.rgba")) == 0)
    }

    @Test func existingLocalFilesAreNeverLoaded() throws {
        // Real files that would paint the image red if librsvg followed the references.
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let red = try PixelBuffer(width: 8, height: 8, filledWith: RGBA(255, 0, 0))
        let png = folder.appendingPathComponent("red.png")
        try PNGCoder().encode(Image(pixels: red), as: .png, options: EncodeOptions()).write(to: png)
        let other = folder.appendingPathComponent("other.svg")
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg"><rect id="r" width="8" height="8" fill="red"/></svg>"#.utf8)
            .write(to: other)
        let document = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="8" height="8">
            <image href="\(png.absoluteString)" width="8" height="8"/>
            <image xlink:href="\(png.path)" width="8" height="8"/>
            <use href="\(other.absoluteString)#r"/>
            </svg>
            """
        let image = try coder.decode(Data(document.utf8), options: DecodeOptions())
        #expect(image.pixels.bytes.allSatisfy { $0 == 0 })  // nothing drawn: fully transparent
    }

    @Test func dataURLsInsideTheDocumentStillWork() throws {
        let red = try PixelBuffer(width: 2, height: 2, filledWith: RGBA(255, 0, 0))
        let png = try PNGCoder().encode(Image(pixels: red), as: .png, options: EncodeOptions())
        let document = """
            <svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">
            <image href="data:image/png;base64,\(png.base64EncodedString())" width="4" height="4"/></svg>
            """
        let image = try coder.decode(Data(document.utf8), options: DecodeOptions())
        #expect(image.pixels[1, 1] == RGBA(255, 0, 0, 255))
    }

    @Test func embeddedImagesOverThePixelLimitAreRefused() throws {
        // gdk-pixbuf would decode the embedded image at its own 16×16 to draw it at 4×4.
        let blue = try PixelBuffer(width: 16, height: 16, filledWith: RGBA(0, 0, 255))
        let png = try PNGCoder().encode(Image(pixels: blue), as: .png, options: EncodeOptions())
        let document = Data("""
            <svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">
            <image href="data:image/png;base64,\(png.base64EncodedString())" width="4" height="4"/></svg>
            """.utf8)
        let tight = DecodeOptions(limits: DecodeLimits(maxPixels: 100))
        #expect(errorCode { try coder.decode(document, options: tight) } == .imageTooLarge)
        #expect(try coder.decode(document, options: DecodeOptions()).pixels[2, 2] == RGBA(0, 0, 255, 255))
    }

    @Test func entityBombIsRefused() throws {
        let data = try SVGFixtures.data("entity-bomb.svg")
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .badImageData)
        #expect(errorCode { try coder.properties(of: data) } == .badImageData)
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeDrawing() throws {
        let data = SVGFixtures.document(#"width="100000" height="100000""#)
        #expect(try coder.properties(of: data).size == PixelSize(width: 100_000, height: 100_000))
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
        // A thumbnail of it is small, so it is drawn: the limit applies to the rendered size.
        let small = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let thumbnail = try coder.decode(data, options: small)
        #expect(thumbnail.size == PixelSize(width: 16, height: 16))
    }

    @Test func pixelLimitApplies() throws {
        let data = try SVGFixtures.data("shapes.svg")
        let limits = DecodeLimits(maxPixels: 64 * 48 - 1)
        #expect(errorCode { try coder.decode(data, options: DecodeOptions(limits: limits)) } == .imageTooLarge)
    }

    @Test func sizesCairoCannotDrawAreRefused() throws {
        let data = SVGFixtures.document(#"width="40000" height="2""#)
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
        let absurd = SVGFixtures.document(#"width="1e12" height="1""#)
        #expect(errorCode { try coder.properties(of: absurd) } == .imageTooLarge)
        #expect(errorCode { try coder.decode(absurd, options: DecodeOptions()) } == .imageTooLarge)
    }

    @Test(arguments: [#"width="0" height="10""#, #"width="10" height="0""#, #"viewBox="0 0 0 0" width="0""#])
    func emptyDocumentsAreBadData(attributes: String) throws {
        let data = SVGFixtures.document(attributes)
        #expect(errorCode { try coder.decode(data, options: DecodeOptions()) } == .badImageData)
        #expect(errorCode { try coder.properties(of: data) } == .badImageData)
    }

    @Test func truncationsAreBadData() throws {
        let data = try SVGFixtures.data("gradient.svg")
        for length in [0, 1, 5, 30, 100, 250, data.count / 2, data.count - 20, data.count - 8] {
            let cut = data.prefix(length)
            #expect(errorCode { try coder.decode(cut, options: DecodeOptions()) } == .badImageData,
                    "cut at \(length)")
            #expect(errorCode { try coder.properties(of: cut) } == .badImageData, "cut at \(length)")
        }
    }

    @Test func garbageIsBadData() {
        for bytes in [Data("not xml at all".utf8), Data([0x3C, 0x73, 0x76, 0x67, 0x00, 0xFF, 0xFE]),
                      Data(#"<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>"#.utf8),
                      Data("<html><body>an error page</body></html>".utf8)] {
            #expect(errorCode { try coder.decode(bytes, options: DecodeOptions()) } == .badImageData)
        }
    }

    @Test func corruptCopiesGiveATypedErrorOrAnImage() throws {
        let data = try SVGFixtures.data("shapes.svg")
        var generator = SplitMix(seed: 13)
        for _ in 0..<40 {
            var copy = data
            for _ in 0..<3 {
                copy[Int(generator.next() % UInt64(copy.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                let image = try coder.decode(copy, options: DecodeOptions())
                #expect(image.size.area > 0)
            } catch let error as ImageError {
                #expect([.badImageData, .imageTooLarge].contains(error.code))
            }
        }
    }
}
