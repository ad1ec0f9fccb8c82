import Foundation
import Testing
import WebImage
@testable import WebImageHEIF

/// Thumbnails: the embedded one when it is large enough, else the primary image scaled down.
@Suite struct HEIFThumbnailTests {
    let coder = HEIFCoder()

    @Test func picksTheSmallestThumbnailCoveringTheTarget() {
        let sizes = [PixelSize(width: 320, height: 240), PixelSize(width: 40, height: 30), PixelSize(width: 160, height: 120)]
        #expect(HEIFCoder.thumbnailIndex(sizes: sizes, covering: PixelSize(width: 40, height: 30)) == 1)
        #expect(HEIFCoder.thumbnailIndex(sizes: sizes, covering: PixelSize(width: 41, height: 30)) == 2)
        #expect(HEIFCoder.thumbnailIndex(sizes: sizes, covering: PixelSize(width: 300, height: 200)) == 0)
        #expect(HEIFCoder.thumbnailIndex(sizes: sizes, covering: PixelSize(width: 400, height: 10)) == nil)
        #expect(HEIFCoder.thumbnailIndex(sizes: [], covering: PixelSize(width: 1, height: 1)) == nil)
    }

    /// thumb.heic is 160×120 with an embedded 40×30 thumbnail (heif-enc -t 40).
    @Test(arguments: [(40, PixelSize(width: 40, height: 30)), (32, PixelSize(width: 32, height: 24)),
                      (100, PixelSize(width: 100, height: 75))])
    func decodesThumbnails(box: Int, expected: PixelSize) throws {
        let data = try HEIFFixtures.data("thumb.heic")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
        let image = try coder.decode(data, options: options)
        #expect(image.size == expected)
        #expect(image.flags.contains(.thumbnail))
        // Whichever item it came from, it looks like heif-convert's full decode scaled down.
        let reference = try HEIFFixtures.reference("thumb.png").resized(to: expected, filter: .area)
        #expect(HEIFFixtures.psnr(image.pixels, reference) > 25)
    }

    @Test func scaleDownLimitAlsoReducesTheImage() throws {
        let options = DecodeOptions(scaleDownLimitBytes: 40 * 30 * 4)
        let image = try coder.decode(HEIFFixtures.data("thumb.heic"), options: options)
        #expect(image.size.area <= 40 * 30)
        #expect(image.flags.contains(.thumbnail))
    }

    @Test func thumbnailsOfARotatedImageKeepItsShape() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24))
        let image = try coder.decode(HEIFFixtures.data("rotated.heic"), options: options)
        #expect(image.size == PixelSize(width: 18, height: 24))
    }

    @Test func aBoxLargerThanTheImageKeepsItWhole() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500))
        let image = try coder.decode(HEIFFixtures.data("photo.heic"), options: options)
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(!image.flags.contains(.thumbnail))
    }
}
