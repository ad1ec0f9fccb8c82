import Foundation
import Testing
@testable import WebImage

/// Thumbnails of PNGs made row by row while inflating (``RowStreamingResampler``) against a full decode resized
/// afterwards with the same filter.
@Suite struct PNGThumbnailTests {
    private func expectSameAsAFullDecodeResized(_ data: Data, box: PixelSize) throws {
        let full = try PNGCoder().decode(data, options: DecodeOptions(applyOrientation: false))
        let thumbnail = try PNGCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box,
                                                                            applyOrientation: false))
        #expect(thumbnail.flags.contains(.thumbnail))
        let expected = try full.pixels.resized(to: thumbnail.size, filter: .area)
        #expect(alphaWeightedDifference(thumbnail.pixels, expected) <= 2)
    }

    @Test(arguments: ["gray8", "gray16", "gray_alpha16", "rgb16", "rgba8", "rgba16", "rgb8_trns", "palette8_trns",
                      "interlaced_rgba8", "bands64x32"])
    func everyFlavourShrinksLikeAFullDecode(_ name: String) throws {
        try expectSameAsAFullDecodeResized(try Fixtures.data("png/\(name).png"), box: PixelSize(width: 7, height: 7))
    }

    /// Colour under partly transparent pixels must not bleed: rows with alpha are premultiplied as they arrive.
    @Test func aLargeImageWithAlphaGradientsShrinksLikeAFullDecode() throws {
        let width = 301, height = 207
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 4
                rgba[index] = UInt8(x * 255 / width)
                rgba[index + 1] = UInt8(y * 255 / height)
                rgba[index + 2] = UInt8((x ^ y) & 0xFF)
                rgba[index + 3] = y < 50 ? 255 : UInt8((x * 7 + y * 3) & 0xFF)  // opaque rows first
            }
        }
        let png = try PNGEncoder.encode(try PixelBuffer(width: width, height: height, rgba: rgba))
        try expectSameAsAFullDecodeResized(png, box: PixelSize(width: 64, height: 64))
        try expectSameAsAFullDecodeResized(png, box: PixelSize(width: 301, height: 100))  // height alone
        try expectSameAsAFullDecodeResized(png, box: PixelSize(width: 150, height: 207))  // width alone
    }

    /// The target comes from the displayed (turned) size, so the eXIf chunk is read before the pixels are.
    @Test func aNonSquareBoxAppliesToTheTurnedSize() throws {
        // exif6.png stores 4x2 and displays 2x4; a 1x4 box gives a displayed 1x2, stored 2x1.
        let image = try PNGCoder().decode(Fixtures.data("png/exif6.png"),
                                          options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1, height: 4)))
        #expect(image.size == PixelSize(width: 1, height: 2))
        #expect(image.orientation == .right)
    }

    @Test func aCutFileIsRefusedAndNotShrunkFromWhatArrived() throws {
        let width = 200, height = 100
        let rgba = (0..<width * height * 4).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let png = try PNGEncoder.encode(try PixelBuffer(width: width, height: height, rgba: rgba))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        for cut in [png.count / 2, png.count - 20, png.count - 1] {
            #expect { try PNGCoder().decode(png.prefix(cut), options: options) } throws: {
                ($0 as? ImageError)?.code == .badImageData
            }
        }
    }
}
