import Foundation
import Testing
@testable import WebImage

/// Thumbnails of still GIFs and of first frames, shrunk row by row as the frame is decompressed, against the frame
/// decoded whole and resized afterwards with the same filter.
@Suite struct GIFThumbnailTests {
    private func expectSameAsAFirstFrameResized(_ data: Data, box: PixelSize, firstFrameOnly: Bool = true) throws {
        let full = try GIFCoder().decode(data, options: DecodeOptions(firstFrameOnly: firstFrameOnly))
        let thumbnail = try GIFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box,
                                                                            firstFrameOnly: firstFrameOnly))
        #expect(thumbnail.frames.count == 1)
        #expect(thumbnail.flags.contains(.thumbnail))
        #expect(thumbnail.flags.contains(.hasAlpha) == full.flags.contains(.hasAlpha))
        #expect(thumbnail.size.width <= box.width && thumbnail.size.height <= box.height)
        let expected = try full.pixels.resized(to: thumbnail.size, filter: .area)
        #expect(alphaWeightedDifference(thumbnail.pixels, expected) <= 2)
    }

    /// Frames smaller than the screen, outside it, interlaced and clipped, transparent, without a palette.
    @Test(arguments: ["static-opaque.gif", "static-transparent.gif", "interlaced.gif", "interlaced-clipped.gif",
                      "no-palette.gif", "screen-zero.gif", "dispose-previous.gif", "frame-outside.gif",
                      "local-palettes.gif", "magick-optimized.gif"])
    func everyFixtureShrinksLikeItsFirstFrame(_ name: String) throws {
        let data = try Fixtures.data("gif/\(name)")
        let size = try GIFCoder().decode(data, options: DecodeOptions(firstFrameOnly: true)).size
        guard size.width > 2 || size.height > 2 else { return }
        try expectSameAsAFirstFrameResized(data, box: PixelSize(width: max(size.width / 2, 1),
                                                                height: max(size.height / 3, 1)))
    }

    @Test func aLargeFrameWithTransparencyShrinksLikeAFullDecode() throws {
        let image = try GIFTesting.image(width: 301, height: 207, durations: [0.1, 0.1]) { frame, x, y in
            if (x / 9 + y / 7) % 5 == 0 { return GIFColors.clear }
            return frame == 0 ? RGBA(UInt8(x * 255 / 301), UInt8(y * 255 / 207), UInt8((x ^ y) & 0xF0))
                : GIFColors.white
        }
        let data = try GIFCoder().encode(image, as: .gif, options: EncodeOptions())
        try expectSameAsAFirstFrameResized(data, box: PixelSize(width: 64, height: 64))
        try expectSameAsAFirstFrameResized(data, box: PixelSize(width: 301, height: 100))
        // A still GIF takes the same path without being asked for its first frame only.
        let still = try GIFCoder().encode(Image(frames: [image.frames[0]]), as: .gif, options: EncodeOptions())
        try expectSameAsAFirstFrameResized(still, box: PixelSize(width: 64, height: 64), firstFrameOnly: false)
    }

    @Test func aCorruptFirstFrameIsATypedErrorAndTheThumbnailPathGivesTheSameOne() throws {
        let data = try Fixtures.data("gif/corrupt-middle.gif")
        var damaged = data
        // Cut inside the first frame's image data: both paths must refuse it the same way.
        damaged.removeSubrange(data.count / 4..<data.count)
        for options in [DecodeOptions(firstFrameOnly: true),
                        DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4), firstFrameOnly: true)] {
            #expect { try GIFCoder().decode(damaged, options: options) } throws: {
                ($0 as? ImageError)?.code == .badImageData
            }
        }
    }
}
