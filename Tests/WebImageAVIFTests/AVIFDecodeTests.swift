import Foundation
import Testing
import WebImage
import WebImageAVIF

/// Pixels against references made by other tools: the PNG sources (lossless files must come back exactly,
/// as avifdec also gives them), avifdec's own decodes of the lossy 10 and 12-bit files, and Pillow's turns
/// and flips of the source for the transformed files.
@Suite struct AVIFDecodeTests {
    let coder = AVIFCoder()

    @Test func detectsItsFormat() throws {
        #expect(coder.decodableFormats == [.avif])
        #expect(coder.canDecode(try AVIFFixtures.data("rgb8-lossless.avif")))
        #expect(coder.canDecode(try AVIFFixtures.data("sequence.avif")))
        #expect(coder.canEncode(to: .avif) && !coder.canEncode(to: .heic))
    }

    @Test func losslessEightBitComesBackExactly() throws {
        let image = try coder.decode(try AVIFFixtures.data("rgb8-lossless.avif"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 48, height: 32))
        #expect(image.format == .avif && image.frames.count == 1 && image.loopCount == 1)
        #expect(!image.hasAlpha && image.orientation == .up)
        #expect(image.pixels.bytes == (try AVIFFixtures.rgba("src-rgb.rgba")))
    }

    @Test func losslessAlphaComesBackExactly() throws {
        let image = try coder.decode(try AVIFFixtures.data("rgba8-lossless.avif"), options: DecodeOptions())
        #expect(image.hasAlpha)
        #expect(image.pixels.bytes == (try AVIFFixtures.rgba("src-rgba.rgba")))
    }

    @Test(arguments: [("rgb10.avif", "src-rgb.rgba", false), ("rgba12.avif", "src-rgba.rgba", true)])
    func highBitDepthMatchesAvifdec(name: String, source: String, alpha: Bool) throws {
        let image = try coder.decode(try AVIFFixtures.data(name), options: DecodeOptions())
        #expect(image.hasAlpha == alpha)
        let reference = try AVIFFixtures.rgba(name.replacingOccurrences(of: ".avif", with: ".avifdec.rgba"))
        // avifdec's PNG writer takes libyuv's 10/12 to 8-bit path, which rounds a little differently.
        #expect(AVIFFixtures.maxDifference(image.pixels.bytes, reference) <= 2)
        if !alpha {  // colour under transparent pixels is free to drift in a lossy file
            #expect(AVIFFixtures.psnr(image.pixels.bytes, try AVIFFixtures.rgba(source)) > 35)
        }
    }

    /// irot turns anticlockwise first, imir mirrors after (HEIF order); the expected pictures are Pillow's.
    @Test(arguments: [
        ("irot1.avif", Orientation.left), ("imir1.avif", .upMirrored), ("irot3-imir0.avif", .rightMirrored),
        ("irot1-imir0.avif", .leftMirrored),
    ])
    func transformationsAreApplied(name: String, orientation: Orientation) throws {
        let data = try AVIFFixtures.data(name)
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.orientation == orientation)
        #expect(image.size == orientation.displayedSize(of: PixelSize(width: 48, height: 32)))
        let expected = try AVIFFixtures.rgba(name.replacingOccurrences(of: ".avif", with: ".expected.rgba"))
        #expect(image.pixels.bytes == expected)

        let raw = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(raw.orientation == orientation && raw.size == PixelSize(width: 48, height: 32))
        #expect(raw.pixels.bytes == (try AVIFFixtures.rgba("src-rgb.rgba")))
    }

    /// avifenc copies an Exif orientation into irot; the image is turned once, not twice.
    @Test func exifCopiedIntoIrotTurnsOnce() throws {
        let image = try coder.decode(try AVIFFixtures.data("exif6.avif"), options: DecodeOptions())
        #expect(image.orientation == .right && image.size == PixelSize(width: 32, height: 48))
        #expect(image.pixels.bytes == (try AVIFFixtures.rgba("exif6.expected.rgba")))
    }

    @Test func exifOrientationAloneIsApplied() throws {
        let image = try coder.decode(try AVIFFixtures.data("exif8-only.avif"), options: DecodeOptions())
        #expect(image.orientation == .left && image.size == PixelSize(width: 32, height: 48))
        #expect(image.pixels.bytes == (try AVIFFixtures.rgba("exif8-only.expected.rgba")))
    }

    @Test func thumbnailIsTheAreaAverageOfTheFullDecode() throws {
        let data = try AVIFFixtures.data("rgb8-lossless.avif")
        let box = PixelSize(width: 24, height: 24)
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        #expect(thumbnail.size == PixelSize(width: 24, height: 16))
        #expect(thumbnail.flags.contains(.thumbnail))
        let source = try PixelBuffer(width: 48, height: 32, rgba: try AVIFFixtures.rgba("src-rgb.rgba"))
        let expected = try source.resized(to: PixelSize(width: 24, height: 16), filter: .area)
        #expect(thumbnail.pixels.bytes == expected.bytes)
    }

    @Test func thumbnailOfATurnedImageFitsTheDisplayedShape() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let image = try coder.decode(try AVIFFixtures.data("irot1.avif"), options: options)
        #expect(image.size == PixelSize(width: 11, height: 16))
        #expect(image.flags.contains(.thumbnail))
    }
}
