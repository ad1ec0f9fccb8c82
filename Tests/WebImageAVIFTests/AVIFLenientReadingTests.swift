import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// Files that break one of libavif's strict rules but that browsers, libvips and Pillow show are decoded.
@Suite struct AVIFLenientReadingTests {
    let coder = AVIFCoder()

    /// `data` with every `pixi` box type renamed to `free`, which no reader takes for a property: the image items
    /// lose their pixel information (as files from libheif 1.11 and older lack it) while the property indices of
    /// `ipma` still point at the same boxes. Also returns how many boxes were renamed.
    static func withoutPixelInformation(_ data: Data) -> (data: Data, renamed: Int) {
        var bytes = [UInt8](data)
        let pixi = Array("pixi".utf8)
        var renamed = 0
        // A box type follows its 4-byte size; a full box `pixi` is at least 13 bytes.
        for index in 4..<(bytes.count - 8) where bytes[index..<index + 4].elementsEqual(pixi) {
            bytes.replaceSubrange(index..<index + 4, with: Array("free".utf8))
            renamed += 1
        }
        return (Data(bytes), renamed)
    }

    @Test(arguments: [("src-rgb.rgba", false), ("src-rgba.rgba", true)])
    func anImageWithoutPixiIsDecoded(name: String, alpha: Bool) throws {
        let pixels = try PixelBuffer(width: 48, height: 32, rgba: try AVIFFixtures.rgba(name))
        let encoded = try coder.encode(Image(pixels: pixels), as: .avif, options: EncodeOptions(lossless: true))
        let stripped = Self.withoutPixelInformation(encoded)
        // The colour item has one, and the alpha item its own.
        #expect(stripped.renamed == (alpha ? 2 : 1))
        #expect(ImageFormat.detect(stripped.data) == .avif)

        let image = try coder.decode(stripped.data, options: DecodeOptions())
        #expect(image.hasAlpha == alpha)
        #expect(image.pixels.bytes == pixels.bytes)
        let properties = try coder.properties(of: stripped.data)
        #expect(properties.size == PixelSize(width: 48, height: 32) && properties.hasAlpha == alpha)
    }

    /// Leniency is about structure only: the limits still refuse the same file.
    @Test func theLimitsStillApply() throws {
        let pixels = try PixelBuffer(width: 48, height: 32, rgba: try AVIFFixtures.rgba("src-rgb.rgba"))
        let encoded = try coder.encode(Image(pixels: pixels), as: .avif, options: EncodeOptions(lossless: true))
        let stripped = Self.withoutPixelInformation(encoded).data
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 48 * 32 - 1))
        #expect(errorCode { try coder.decode(stripped, options: options) } == .imageTooLarge)
        let huge = try AVIFFixtures.withImageSpatialExtents(stripped, width: 40_000, height: 40_000)
        #expect(errorCode { try coder.decode(huge, options: DecodeOptions()) } == .imageTooLarge)
    }
}
