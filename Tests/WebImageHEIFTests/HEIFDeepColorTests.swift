import CHeif
import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageHEIF

/// A 10-bit HEIC's colour is converted from its 10-bit samples, not from samples already rounded to 8 bits.
@Suite struct HEIFDeepColorTests {
    static let width = 64, height = 32

    /// 10-bit RGB values that 8 bits cannot hold (dark ones too, where Display P3's curve is steep).
    static func tenBit(_ x: Int, _ y: Int) -> [UInt16] {
        [UInt16(x * 15 + y), UInt16(1023 - x * 13), UInt16(y * 31 + x % 7)]
    }

    /// A 10-bit HEVC HEIC written by libheif's encoder, tagged Display P3 by an ICC profile (`colr` `prof`), as
    /// an iPhone tags its photos.
    static func file(icc: Data) throws -> Data {
        var image: OpaquePointer?
        #expect(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_BE,
                                  &image).code == heif_error_Ok)
        let created = try #require(image)
        defer { heif_image_release(created) }
        #expect(heif_image_add_plane(created, heif_channel_interleaved, Int32(width), Int32(height), 10).code
                == heif_error_Ok)
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(created, heif_channel_interleaved, &stride))
        for y in 0..<height {
            for x in 0..<width {
                for (channel, value) in tenBit(x, y).enumerated() {
                    let offset = y * Int(stride) + (x * 3 + channel) * 2
                    plane[offset] = UInt8(value >> 8)
                    plane[offset + 1] = UInt8(value & 0xFF)
                }
            }
        }
        _ = icc.withUnsafeBytes { heif_image_set_raw_color_profile(created, "prof", $0.baseAddress, $0.count) }

        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        #expect(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code == heif_error_Ok)
        let hevc = try #require(encoder)
        defer { heif_encoder_release(hevc) }
        _ = heif_encoder_set_lossy_quality(hevc, 95)
        #expect(heif_context_encode_image(context, created, hevc, nil, nil).code == heif_error_Ok)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("deep-\(UUID().uuidString).heic").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(heif_context_write_to_file(context, path).code == heif_error_Ok)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The file's own decoded samples, from libheif at their 10 bits, widened to 16 bits for Little CMS.
    static func decodedSamples(_ file: Data) throws -> [UInt16] {
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        var samples: [UInt16] = []
        try file.withUnsafeBytes { bytes in
            #expect(heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil).code
                    == heif_error_Ok)
            var handle: OpaquePointer?
            #expect(heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok)
            let primary = try #require(handle)
            defer { heif_image_handle_release(primary) }
            #expect(heif_image_handle_get_luma_bits_per_pixel(primary) == 10)
            var image: OpaquePointer?
            #expect(heif_decode_image(primary, &image, heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_LE, nil).code
                    == heif_error_Ok)
            let decoded = try #require(image)
            defer { heif_image_release(decoded) }
            var stride: Int32 = 0
            let plane = try #require(heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride))
            for y in 0..<height {
                for x in 0..<width {
                    for channel in 0..<3 {
                        let offset = y * Int(stride) + (x * 3 + channel) * 2
                        let value = UInt32(plane[offset]) | UInt32(plane[offset + 1]) << 8
                        samples.append(UInt16((value * 65_535 + 511) / 1023))
                    }
                    samples.append(65_535)
                }
            }
        }
        return samples
    }

    @Test func aTenBitDisplayP3HEICIsConvertedFromItsTenBitSamples() throws {
        let icc = ColorReference.displayP3
        let heic = try Self.file(icc: icc)
        let coders = ImageCoders(coders: [HEIFCoder()])
        let stored = try coders.decode(heic, options: DecodeOptions(colorHandling: .original))
        #expect(stored.colorProfile?.space == .displayP3)
        let converted = try coders.decode(heic)
        #expect(converted.colorProfile == nil)
        let reference = ColorReference.toSRGB(sixteenBit: try Self.decodedSamples(heic), from: icc)
        let largest = ColorReference.largestDifference(converted.pixels.bytes, reference)
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
        // Converting the samples rounded to 8 bits gives other values for many of them: the test can tell.
        let (differing, ours) = ColorReference.differingSamples(
            converted: converted.pixels.bytes, stored: stored.pixels.bytes, icc: icc, reference: reference)
        #expect(differing > 100 && ours * 10 < differing,
                "\(ours) samples differ from the 16-bit conversion, \(differing) from the 8-bit one")
        // Display P3 asked of a Display P3 file: the samples as stored, rounded as usual, and the tag.
        let p3 = try coders.decode(heic, options: DecodeOptions(colorHandling: .displayP3))
        #expect(p3.colorProfile?.space == .displayP3 && p3.pixels.bytes == stored.pixels.bytes)
    }

    /// With `keepsHighBitDepth` the ten-bit samples are kept as the frame's deep bitmap (ten bits significant),
    /// converted in sixteen bits when asked, and reduced in sixteen bits for a thumbnail.
    @Test func aTenBitHEICKeptDeepHoldsItsOwnSamples() throws {
        let icc = ColorReference.displayP3
        let heic = try Self.file(icc: icc)
        let coders = ImageCoders(coders: [HEIFCoder()])
        let samples = try Self.decodedSamples(heic)
        let kept = try coders.decode(heic, options: DecodeOptions(colorHandling: .original, keepsHighBitDepth: true))
        let deep = try #require(kept.frames[0].deepPixels)
        #expect(deep.significantBits == 10 && deep.samples == samples)
        #expect(kept.colorProfile?.space == .displayP3)

        let converted = try coders.decode(heic, options: DecodeOptions(keepsHighBitDepth: true))
        #expect(converted.colorProfile == nil)
        let rounded = try #require(converted.frames[0].deepPixels).eightBitPixels().bytes
        let largest = ColorReference.largestDifference(rounded, ColorReference.toSRGB(sixteenBit: samples, from: icc))
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")

        let small = try coders.decode(heic, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 8),
                                                                   keepsHighBitDepth: true))
        #expect(small.frames[0].deepPixels?.size == PixelSize(width: 16, height: 8))
        #expect(small.flags.contains(.thumbnail))
    }
}
