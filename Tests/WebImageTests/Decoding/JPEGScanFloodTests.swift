import CJPEGIncremental
import CTurboJPEG
import CoderTestSupport
import Foundation
import Testing

@testable import WebImage

/// A progressive JPEG costs its pixel count once per scan, however few bytes a scan has: a flat file whose last
/// refinement scan is repeated hundreds of times is small and costs seconds per megapixel to decode. Such a file
/// is refused at its first repeated scan, while decoding, and no file may have more than ``WI_JPEG_MAX_SCANS``.
@Suite struct JPEGScanFloodTests {
    /// A flat progressive JPEG (libjpeg's ten-scan script, whose last scan refines luma AC to full precision) with
    /// that last scan repeated `copies` more times before the end-of-image marker.
    static func flooded(copies: Int, side: Int = 256) throws -> Data {
        let flat = Image(pixels: try PixelBuffer(width: side, height: side, filledWith: RGBA(120, 130, 140)))
        let bytes = [UInt8](try ImageCoders.shared.encode(flat, as: .jpeg, options: EncodeOptions(progressive: true)))
        // 0xFF 0xDA cannot occur inside entropy-coded data (0xFF is stuffed there), so the last one starts the last scan.
        let lastScan = try #require((0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        #expect(bytes.suffix(2) == [0xFF, 0xD9])
        let scan = bytes[lastScan..<(bytes.count - 2)]
        var flood = Array(bytes.dropLast(2))
        for _ in 0..<copies { flood += scan }
        return Data(flood + [0xFF, 0xD9])
    }

    /// Consumes `data` in one go with libjpeg; the scan it was reading when it stopped, and whether it failed.
    private static func consume(_ data: Data, strict: Bool) throws -> (scan: Int32, failed: Bool, message: String) {
        let decoder = try #require(wi_jpeg_create())
        defer { wi_jpeg_destroy(decoder) }
        if strict { wi_jpeg_set_strict(decoder) }
        let appended = data.withUnsafeBytes { wi_jpeg_append(decoder, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
        #expect(appended == 0)
        var header = wi_jpeg_header()
        #expect(wi_jpeg_read_header(decoder, &header) == WI_JPEG_OK)
        var width: UInt32 = 0, height: UInt32 = 0
        #expect(wi_jpeg_start(decoder, 8, &width, &height) == WI_JPEG_OK)
        let status = wi_jpeg_consume(decoder)
        return (wi_jpeg_input_scan(decoder), status == WI_JPEG_ERROR, String(cString: wi_jpeg_message(decoder)))
    }

    @Test func aRepeatedRefinementScanIsRefusedWhereItStarts() throws {
        let data = try Self.flooded(copies: 300)
        #expect(throws: ImageError.self) { try ImageCoders.shared.decode(data) }
        do {
            _ = try ImageCoders.shared.decode(data)
        } catch let error as ImageError {
            #expect(error.code == .badImageData)
        }
        // The whole-file decoder is strict: it stops in the first repeat (scan 11 of 310), not after the flood.
        let strict = try Self.consume(data, strict: true)
        #expect(strict.failed && strict.scan == 11)
        #expect(strict.message.contains("progression"))
    }

    @Test func noDecoderReadsMoreScansThanTheLimit() throws {
        // The push decoder (progressive previews) only notes warnings; the scan limit still stops it.
        let data = try Self.flooded(copies: 150)
        let lenient = try Self.consume(data, strict: false)
        #expect(lenient.failed && lenient.scan == WI_JPEG_MAX_SCANS + 1)
        #expect(lenient.message.contains("more than \(WI_JPEG_MAX_SCANS) scans"))
        // An intact progressive file has ten scans and decodes.
        let intact = try Self.consume(try Self.flooded(copies: 0), strict: true)
        #expect(!intact.failed && intact.scan == 10)
    }

    /// The progressive path (libjpeg's API) gives TurboJPEG's pixels, at full size and scaled while decoding.
    @Test(arguments: [1, 2, 4]) func progressiveFilesDecodeToTurboJPEGsPixels(denominator: Int) throws {
        let data = try GrainyPhoto.jpeg(width: 640, height: 480, progressive: true)
        let target = PixelSize(width: 640 / denominator, height: 480 / denominator)
        let ours = try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: target)).pixels
        #expect(ours.width == target.width && ours.height == target.height)
        let handle = try #require(tjInitDecompress())
        defer { tjDestroy(handle) }
        var reference = [UInt8](repeating: 0, count: target.width * target.height * 4)
        let status = data.withUnsafeBytes { source in
            tjDecompress2(handle, source.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(source.count),
                          &reference, Int32(target.width), 0, Int32(target.height), Int32(TJPF_RGBA.rawValue), 0)
        }
        #expect(status == 0)
        #expect(ours.bytes == reference)
    }
}
