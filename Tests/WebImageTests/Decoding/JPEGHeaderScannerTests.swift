import Foundation
import Testing
@testable import WebImage

/// ``EarlyStop/header``: a JPEG's bytes up to its first scan header, read as a whole file by the properties
/// and metadata readers; any other format read whole.
@Suite struct JPEGHeaderScannerTests {
    static func watch(_ data: Data, rule: EarlyStop = .header, chunk: Int = 501) -> Data? {
        var watch = EarlyStopWatch(rule)
        var end = 0
        while end < data.count {
            end = min(data.count, end + chunk)
            if let prefix = watch.sufficientPrefix(of: data.prefix(end)) { return prefix }
        }
        return nil
    }

    @Test func aJPEGStopsAtItsFirstScanHeaderWithItsPropertiesAndMetadata() throws {
        var image = Image(pixels: try PixelBuffer(width: 640, height: 480, filledWith: RGBA(40, 90, 160)))
        image.metadata = ImageMetadata(xmp: Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8))
        for progressive in [false, true] {
            let data = try ImageCoders.shared.encode(image, as: .jpeg,
                                                     options: EncodeOptions(quality: 0.9, progressive: progressive))
            let prefix = try #require(Self.watch(data))
            #expect(prefix.count < data.count / 2)
            #expect(prefix.suffix(2) == Data([0xFF, 0xD9]))
            // The header ends with the first scan header: the byte before the closing marker is its last.
            let sos = try #require(Array(prefix).indices.last { prefix[$0] == 0xFF && prefix[$0 + 1] == 0xDA })
            let length = Int(prefix[sos + 2]) << 8 | Int(prefix[sos + 3])
            #expect(sos + 2 + length == prefix.count - 2)
            let properties = try ImageCoders.shared.properties(of: prefix)
            #expect(properties.size == PixelSize(width: 640, height: 480) && properties.format == .jpeg)
            #expect(ImageMetadata.read(from: prefix)?.xmp == image.metadata?.xmp)
            // A prefix cut for a thumbnail's decode holds the header too; the header does not hold a thumbnail.
            #expect(EarlyStop.header.isSatisfied(by: prefix))
        }
    }

    @Test func otherFormatsAndDamagedHeadersAreReadWhole() throws {
        let pixels = try PixelBuffer(width: 64, height: 48, filledWith: RGBA(1, 2, 3))
        for format in [ImageFormat.png, .gif, .webp] {
            #expect(Self.watch(try ImageCoders.shared.encode(Image(pixels: pixels), as: format)) == nil)
        }
        let jpeg = try ImageCoders.shared.encode(Image(pixels: pixels), as: .jpeg)
        var damaged = jpeg
        damaged[2] = 0x00  // no marker after SOI
        #expect(Self.watch(damaged) == nil)
        #expect(Self.watch(jpeg.prefix(100)) == nil)  // the header never completes
    }
}
