import Foundation
import Testing
@testable import WebImage

@Suite struct PNGEncoderTests {
    /// A deterministic pattern with every kind of alpha, including fully transparent pixels with colour.
    static func pattern(width: Int, height: Int, opaque: Bool) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let alpha: UInt8 = opaque ? 255 : UInt8(truncatingIfNeeded: x * 7 + y * 13)
                bytes += [UInt8(truncatingIfNeeded: x * 11), UInt8(truncatingIfNeeded: y * 17),
                          UInt8(truncatingIfNeeded: x * y), alpha]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    /// The colour type byte of the IHDR chunk.
    private func colourType(_ png: Data) -> UInt8 { png[png.startIndex + 25] }

    @Test(arguments: [false, true])
    func roundTripIsExact(opaque: Bool) throws {
        let pixels = try Self.pattern(width: 37, height: 23, opaque: opaque)
        let png = try PNGCoder().encode(Image(pixels: pixels), as: .png, options: EncodeOptions())
        #expect(ImageFormat.detect(png) == .png)
        #expect(colourType(png) == (opaque ? 2 : 6))
        let decoded = try PNGCoder().decode(png, options: DecodeOptions())
        #expect(decoded.size == pixels.size)
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha == !opaque)
    }

    @Test func opaqueImagesAreWrittenSmallerAsRGB() throws {
        let opaque = try Self.pattern(width: 64, height: 64, opaque: true)
        let rgb = try PNGCoder().encode(Image(pixels: opaque), as: .png, options: EncodeOptions())
        // The same pixels with one pixel barely transparent must be written as RGBA.
        var bytes = opaque.bytes
        bytes[3] = 254
        let withAlpha = try PixelBuffer(width: 64, height: 64, rgba: bytes)
        let rgba = try PNGCoder().encode(Image(pixels: withAlpha), as: .png, options: EncodeOptions())
        #expect(colourType(rgb) == 2)
        #expect(colourType(rgba) == 6)
        #expect(try PNGCoder().decode(rgba, options: DecodeOptions()).pixels.bytes == bytes)
    }

    /// A gray image stays gray (as ImageIO and imgproxy keep it): a third of the samples, the same pixels; unless it
    /// carries an RGB profile, which PNG allows only on RGB images.
    @Test(arguments: [false, true])
    func grayImagesAreWrittenGray(opaque: Bool) throws {
        let bytes = (0..<(40 * 30)).flatMap { index -> [UInt8] in
            let level = UInt8(truncatingIfNeeded: index * 7)
            return [level, level, level, opaque ? 255 : UInt8(truncatingIfNeeded: index * 3)]
        }
        let gray = try PixelBuffer(width: 40, height: 30, rgba: bytes)
        let png = try PNGCoder().encode(Image(pixels: gray), as: .png, options: EncodeOptions())
        #expect(colourType(png) == (opaque ? 0 : 4))
        #expect(try PNGCoder().decode(png, options: DecodeOptions()).pixels.bytes == bytes)
        var tagged = Image(pixels: gray)
        tagged.colorProfile = .displayP3
        let rgb = try PNGCoder().encode(tagged, as: .png, options: EncodeOptions())
        #expect(colourType(rgb) == (opaque ? 2 : 6))
        let original = try PNGCoder().decode(rgb, options: DecodeOptions(colorHandling: .original))
        #expect(original.colorProfile?.space == .displayP3 && original.pixels.bytes == bytes)
        // One pixel off gray makes the whole image colour.
        var almost = bytes
        almost[almost.count - 3] &+= 1
        let colour = try PNGCoder().encode(Image(pixels: try PixelBuffer(width: 40, height: 30, rgba: almost)),
                                           as: .png, options: EncodeOptions())
        #expect(colourType(colour) == (opaque ? 2 : 6))
    }

    @Test func fixtureRoundTripsThroughTheRegistry() throws {
        let original = try ImageCoders.shared.decode(Fixtures.data("png/interlaced_rgba8.png"))
        let png = try ImageCoders.shared.encode(original, as: .png)
        let again = try ImageCoders.shared.decode(png)
        #expect(again.pixels.bytes == original.pixels.bytes)
    }

    @Test func maxPixelSizeScalesDownBeforeWriting() throws {
        let image = try PNGCoder().decode(Fixtures.data("png/bands64x32.png"), options: DecodeOptions())
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions(maxPixelSize: 16))
        let small = try PNGCoder().decode(png, options: DecodeOptions())
        #expect(small.size == PixelSize(width: 16, height: 8))
        #expect(small.pixels[5, 4] == RGBA(0, 255, 0))
    }

    @Test func otherFormatsAreRefused() throws {
        let image = Image(pixels: try PixelBuffer(width: 1, height: 1))
        #expect(throws: ImageError.self) { try PNGCoder().encode(image, as: .jpeg, options: EncodeOptions()) }
        #expect(!PNGCoder().canEncode(to: .webp))
        #expect(PNGCoder().canEncode(to: .png))
    }
}
