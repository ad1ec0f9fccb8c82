import Foundation
import Testing
import WebImage
import WebImageHEIF

/// `prefersEmbeddedThumbnail` (imgproxy's `enforce_thumbnail`): the embedded thumbnail whatever its size, else the
/// primary image; and the same reader on AVIF files, whose own decoder does not expose thumbnails.
@Suite struct HEIFEmbeddedThumbnailTests {
    let coder = HEIFCoder()

    /// thumb.heic is 160×120 with a 40×30 thumbnail: asked for it, the decoder answers the thumbnail item itself.
    @Test func decodesTheEmbeddedThumbnailAtItsOwnSize() throws {
        let data = try HEIFFixtures.data("thumb.heic")
        let image = try coder.decode(data, options: DecodeOptions(prefersEmbeddedThumbnail: true))
        #expect(image.size == PixelSize(width: 40, height: 30))
        #expect(image.flags.contains(.thumbnail) && image.format == .heic)
        // A 40×40 box picks the same item and keeps it unscaled: byte for byte the same pixels. The primary image
        // area-averaged down would differ.
        let item = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40)))
        #expect(image.pixels.bytes == item.pixels.bytes)
        let primary = try coder.decode(data, options: DecodeOptions()).pixels.resized(to: image.size, filter: .area)
        #expect(primary.bytes != image.pixels.bytes)
    }

    @Test func theOtherOptionsApplyToTheThumbnail() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20), prefersEmbeddedThumbnail: true)
        let image = try coder.decode(HEIFFixtures.data("thumb.heic"), options: options)
        #expect(image.size == PixelSize(width: 20, height: 15))
    }

    @Test func aFileWithoutAThumbnailDecodesItsPrimaryImage() throws {
        let data = try HEIFFixtures.data("photo.heic")
        let image = try coder.decode(data, options: DecodeOptions(prefersEmbeddedThumbnail: true))
        #expect(image.size == PixelSize(width: 64, height: 48) && !image.flags.contains(.thumbnail))
        #expect(try HEIFCoder.embeddedThumbnail(of: data, options: DecodeOptions()) == nil)
    }

    /// thumb.avif (heif-enc -A -t 40): libheif decodes its AV1 thumbnail item; the image says AVIF.
    @Test func readsTheThumbnailOfAnAVIFFile() throws {
        let data = try HEIFFixtures.data("thumb.avif")
        let thumbnail = try #require(try HEIFCoder.embeddedThumbnail(of: data, options: DecodeOptions()))
        #expect(thumbnail.size == PixelSize(width: 40, height: 30) && thumbnail.format == .avif)
        let reference = try HEIFFixtures.reference("thumb.png").resized(to: thumbnail.size, filter: .area)
        #expect(HEIFFixtures.psnr(thumbnail.pixels, reference) > 25)
    }
}
