import CJXL
import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

/// A 16-bit JPEG XL's colour is converted from its 16-bit samples, not from samples already rounded to 8 bits.
@Suite struct JXLDeepColorTests {
    static let width = 64, height = 32

    /// RGB samples of 16 bits that are not 8-bit values scaled (low bytes that rounding would lose).
    static let samples: [UInt16] = (0..<(width * height)).flatMap { index -> [UInt16] in
        let x = index % width, y = index / width
        return [UInt16(x * 1021 + y * 37), UInt16(65_535 - x * 997), UInt16(y * 2039 + x * 7)]
    }

    /// A lossless 16-bit JPEG XL of `samples` carrying `icc` as its original profile, written by libjxl.
    static func file(icc: Data) throws -> Data {
        let encoder = try #require(JxlEncoderCreate(nil))
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = 16
        info.num_color_channels = 3
        info.uses_original_profile = JXL_TRUE
        #expect(JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS)
        let profileSet = icc.withUnsafeBytes {
            JxlEncoderSetICCProfile(encoder, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
        }
        #expect(profileSet == JXL_ENC_SUCCESS)
        let settings = try #require(JxlEncoderFrameSettingsCreate(encoder, nil))
        #expect(JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS)
        _ = JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, 1)
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN,
                                    align: 0)
        let added = samples.withUnsafeBytes {
            JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count)
        }
        #expect(added == JXL_ENC_SUCCESS)
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + written
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { break }
            #expect(status == JXL_ENC_NEED_MORE_OUTPUT)
            if status != JXL_ENC_NEED_MORE_OUTPUT { break }
            output += [UInt8](repeating: 0, count: output.count)
        }
        return Data(output.prefix(written))
    }

    @Test func aSixteenBitDisplayP3FileIsConvertedFromItsSixteenBitSamples() throws {
        let icc = ColorReference.displayP3
        let jxl = try Self.file(icc: icc)
        let coders = ImageCoders(coders: [JXLCoder()])
        let stored = try coders.decode(jxl, options: DecodeOptions(colorHandling: .original))
        #expect(stored.colorProfile?.space == .displayP3)
        let converted = try coders.decode(jxl)
        #expect(converted.colorProfile == nil)
        let rgba16 = (0..<(Self.width * Self.height)).flatMap { pixel -> [UInt16] in
            Array(Self.samples[(pixel * 3)..<(pixel * 3 + 3)]) + [65_535]
        }
        let reference = ColorReference.toSRGB(sixteenBit: rgba16, from: icc)
        let largest = ColorReference.largestDifference(converted.pixels.bytes, reference)
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
        // Converting the samples rounded to 8 bits gives other values for many of them: the test can tell.
        let (differing, ours) = ColorReference.differingSamples(
            converted: converted.pixels.bytes, stored: stored.pixels.bytes, icc: icc, reference: reference)
        #expect(differing > 100 && ours * 10 < differing,
                "\(ours) samples differ from the 16-bit conversion, \(differing) from the 8-bit one")
        let p3 = try coders.decode(jxl, options: DecodeOptions(colorHandling: .displayP3))
        #expect(p3.colorProfile?.space == .displayP3 && p3.pixels.bytes == stored.pixels.bytes)
    }

    /// With `keepsHighBitDepth` every sixteen-bit sample is kept (converted in 16 bits when asked), and the
    /// encoder writes them back: the same samples after a lossless round trip.
    @Test func aSixteenBitFileKeptDeepHoldsItsSamplesAndIsWrittenBackWithThem() throws {
        let icc = ColorReference.displayP3
        let jxl = try Self.file(icc: icc)
        let coders = ImageCoders(coders: [JXLCoder()])
        let rgba16 = (0..<(Self.width * Self.height)).flatMap { pixel -> [UInt16] in
            Array(Self.samples[(pixel * 3)..<(pixel * 3 + 3)]) + [65_535]
        }
        let keeping = DecodeOptions(colorHandling: .original, keepsHighBitDepth: true)
        let kept = try coders.decode(jxl, options: keeping)
        let deep = try #require(kept.frames[0].deepPixels)
        #expect(deep.significantBits == 16 && deep.samples == rgba16)
        #expect(kept.pixels.bytes == (try deep.eightBitPixels()).bytes)

        let written = try coders.encode(kept, as: .jxl, options: EncodeOptions(lossless: true))
        let again = try coders.decode(written, options: keeping)
        #expect(again.frames[0].deepPixels?.samples == rgba16)
        #expect(again.colorProfile?.space == .displayP3)

        let converted = try coders.decode(jxl, options: DecodeOptions(keepsHighBitDepth: true))
        #expect(converted.colorProfile == nil)
        let rounded = try #require(converted.frames[0].deepPixels).eightBitPixels().bytes
        let largest = ColorReference.largestDifference(rounded, ColorReference.toSRGB(sixteenBit: rgba16, from: icc))
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
    }
}
