import CoderTestSupport
import Foundation
import Testing
import WebImage
@testable import WebImageJXL

/// JPEG XL files carry EXIF and XMP in container boxes, written by libjxl and read back from the boxes.
@Suite struct JXLMetadataTests {
    @Test func exifAndXMPBoxesAreWrittenAndRead() throws {
        var image = Image(pixels: try PixelBuffer(width: 16, height: 8, rgba: [UInt8](repeating: 200, count: 16 * 8 * 4)),
                          hasAlpha: false)
        image.metadata = MetadataSamples.all
        let jxl = try JXLCoder().encode(image, as: .jxl, options: EncodeOptions(quality: 0.8))
        let read = try #require(ImageMetadata.read(from: jxl))
        #expect(read.exif == MetadataSamples.all.exif)
        #expect(read.xmp == MetadataSamples.xmp)
        #expect(read.iptc == nil)  // JPEG XL has no place for it
        let decoded = try ImageCoders(coders: [JXLCoder()]).decode(jxl, options: DecodeOptions(readsMetadata: true))
        #expect(decoded.size == PixelSize(width: 16, height: 8))
        #expect(decoded.metadata?.xmp == MetadataSamples.xmp)
        // Without metadata the file stays a bare codestream, as before.
        image.metadata = nil
        let bare = try JXLCoder().encode(image, as: .jxl, options: EncodeOptions(quality: 0.8))
        #expect(Array(bare.prefix(2)) == [0xFF, 0x0A])
    }
}
