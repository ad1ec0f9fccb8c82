import Foundation
import Testing
@testable import WebImage

/// Still WebP files against the pixels that went into cwebp (lossless: exact) or dwebp's decode of the same file
/// (lossy: same library, so at most 1 apart from rounding in the colour conversion).
@Suite struct WebPDecoderTests {
    private func decode(_ name: String, _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try WebPCoder().decode(Fixtures.data("webp/\(name).webp"), options: options)
    }

    private func reference(_ name: String) throws -> [UInt8] { Array(try Fixtures.data("webp/\(name).rgba")) }

    @Test func losslessIsExactIncludingTransparentColour() throws {
        let image = try decode("lossless")
        #expect(image.size == PixelSize(width: 32, height: 32))
        #expect(image.format == .webp)
        #expect(image.hasAlpha)
        #expect(image.frames.count == 1)
        #expect(image.pixels.bytes == (try reference("lossless.source")))
        #expect(image.pixels[0, 0] == RGBA(0, 0, 255, 0))  // fully transparent, colour kept by -exact
    }

    @Test func lossyMatchesTheReferenceDecode() throws {
        let image = try decode("lossy")
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(!image.hasAlpha)
        #expect(PixelComparison.maxDifference(image.pixels.bytes, try reference("lossy.dwebp")) <= 1)
        // The encoder itself loses some detail: q90 of this image is 36.5 dB from its source.
        #expect(PixelComparison.psnr(image.pixels.bytes, try reference("lossy.source")) >= 33)
    }

    @Test func lossyWithAlphaMatchesTheReferenceDecode() throws {
        let image = try decode("lossy_alpha")
        #expect(image.size == PixelSize(width: 32, height: 32))
        #expect(image.hasAlpha)
        let expected = try reference("lossy_alpha.dwebp")
        #expect(PixelComparison.maxDifference(image.pixels.bytes, expected) <= 1)
        // The alpha plane is compressed losslessly: it equals the source's.
        let source = try reference("lossless.source")
        #expect(stride(from: 3, to: source.count, by: 4).allSatisfy { image.pixels.bytes[$0] == source[$0] })
    }

    @Test func thumbnailIsScaledByLibwebpWhileDecoding() throws {
        let image = try decode("lossy", DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(image.size == PixelSize(width: 16, height: 12))
        #expect(image.flags.contains(.thumbnail))
        #expect(PixelComparison.maxDifference(image.pixels.bytes, try reference("lossy.thumb16x12.dwebp")) <= 1)
    }

    @Test func thumbnailWithoutAspectRatioIsExactlyTheBox() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 20), preserveAspectRatio: false)
        let image = try decode("lossy", options)
        #expect(image.size == PixelSize(width: 10, height: 20))
    }

    @Test func scaleDownLimitBoundsTheBytes() throws {
        // 32x32 RGBA is 4096 bytes; 1024 bytes allow 256 pixels: 16x16.
        let image = try decode("lossless", DecodeOptions(scaleDownLimitBytes: 1024))
        #expect(image.size == PixelSize(width: 16, height: 16))
        #expect(image.flags.contains(.thumbnail))
    }

    @Test func exifOrientationSixTurnsThePixelsClockwise() throws {
        let stored = try PixelBuffer(width: 4, height: 2, rgba: try reference("exif6.source"))
        let image = try decode("exif6")
        #expect(image.orientation == .right)
        #expect(image.size == PixelSize(width: 2, height: 4))
        for y in 0..<4 {
            for x in 0..<2 {
                #expect(image.pixels[x, y] == stored[y, 1 - x], "(\(x), \(y))")
            }
        }
    }

    @Test func rawPixelsWhenOrientationIsNotApplied() throws {
        let image = try decode("exif6", DecodeOptions(applyOrientation: false))
        #expect(image.orientation == .right)
        #expect(image.pixels.bytes == (try reference("exif6.source")))
    }

    @Test func thumbnailBoxAppliesToTheOrientedSize() throws {
        let image = try decode("exif6", DecodeOptions(thumbnailPixelSize: PixelSize(width: 2, height: 2)))
        #expect(image.size == PixelSize(width: 1, height: 2))
        #expect(image.orientation == .right)
    }

    @Test func sharedRegistryRoutesWebPHere() throws {
        let image = try ImageCoders.shared.decode(Fixtures.data("webp/lossless.webp"), options: DecodeOptions(fileNameHint: "a@3x.webp"))
        #expect(image.format == .webp)
        #expect(image.scale == 3)
        #expect(image.pixels.bytes == (try reference("lossless.source")))
    }
}
