import CAVIF
import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// A 10-bit AVIF's colour is converted from its 10-bit samples, not from samples already rounded to 8 bits.
@Suite struct AVIFDeepColorTests {
    static let width = 64, height = 32

    /// 10-bit RGB values that 8 bits cannot hold, and the 16-bit samples libavif gives them back as.
    static let tenBit: [UInt16] = (0..<(width * height)).flatMap { index -> [UInt16] in
        let x = index % width, y = index / width
        return [UInt16(x * 15 + y), UInt16(1023 - x * 13), UInt16(y * 31 + x % 7)]
    }

    /// A lossless 10-bit 4:4:4 AVIF (identity matrix, so the samples come back exactly) labelled Display P3 by
    /// its code points.
    static func file(frames: Int = 1) throws -> Data {
        let image = try #require(avifImageCreate(UInt32(width), UInt32(height), 10, AVIF_PIXEL_FORMAT_YUV444))
        defer { avifImageDestroy(image) }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = 12
        image.pointee.transferCharacteristics = 13
        image.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
        var samples = [UInt16](repeating: 0, count: width * height * 4)
        for pixel in 0..<(width * height) {
            for channel in 0..<3 { samples[pixel * 4 + channel] = tenBit[pixel * 3 + channel] }
            samples[pixel * 4 + 3] = 1023
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 10
        rgb.format = AVIF_RGB_FORMAT_RGBA
        samples.withUnsafeMutableBytes { bytes in
            rgb.pixels = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(width * 8)
            #expect(avifImageRGBToYUV(image, &rgb) == AVIF_RESULT_OK)
        }
        let encoder = try #require(avifEncoderCreate())
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = 0
        encoder.pointee.maxQuantizer = 0
        encoder.pointee.speed = 10
        var output = avifRWData(data: nil, size: 0)
        defer { avifRWDataFree(&output) }
        if frames == 1 {
            #expect(avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK)
        } else {
            encoder.pointee.timescale = 10
            for _ in 0..<frames {
                #expect(avifEncoderAddImage(encoder, image, 1, avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue))
                        == AVIF_RESULT_OK)
            }
            #expect(avifEncoderFinish(encoder, &output) == AVIF_RESULT_OK)
        }
        return Data(bytes: try #require(output.data), count: output.size)
    }

    /// Little CMS's conversion of the 10-bit samples (as 16-bit ones) from `icc` to 8-bit sRGB.
    static func reference(icc: Data) -> [UInt8] {
        var wide = [UInt16](repeating: 65_535, count: width * height * 4)
        for pixel in 0..<(width * height) {
            for channel in 0..<3 {
                wide[pixel * 4 + channel] = UInt16((Double(tenBit[pixel * 3 + channel]) * 65_535 / 1023).rounded())
            }
        }
        return ColorReference.toSRGB(sixteenBit: wide, from: icc)
    }

    @Test func aTenBitDisplayP3AVIFIsConvertedFromItsTenBitSamples() throws {
        let avif = try Self.file()
        let coders = ImageCoders(coders: [AVIFCoder()])
        let stored = try coders.decode(avif, options: DecodeOptions(colorHandling: .original))
        let profile = try #require(stored.colorProfile)
        #expect(profile.space == .displayP3)
        let converted = try coders.decode(avif)
        #expect(converted.colorProfile == nil)
        let reference = Self.reference(icc: profile.iccData)
        let largest = ColorReference.largestDifference(converted.pixels.bytes, reference)
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
        let (differing, ours) = ColorReference.differingSamples(
            converted: converted.pixels.bytes, stored: stored.pixels.bytes, icc: profile.iccData, reference: reference)
        #expect(differing > 100 && ours * 10 < differing,
                "\(ours) samples differ from the 16-bit conversion, \(differing) from the 8-bit one")
    }

    @Test func eachFrameOfATenBitSequenceIsConvertedFromItsTenBitSamples() throws {
        let avif = try Self.file(frames: 3)
        let coders = ImageCoders(coders: [AVIFCoder()])
        let stored = try coders.decode(avif, options: DecodeOptions(colorHandling: .original))
        let profile = try #require(stored.colorProfile)
        let converted = try coders.decode(avif)
        #expect(converted.frames.count == 3 && converted.colorProfile == nil)
        let reference = Self.reference(icc: profile.iccData)
        for frame in converted.frames {
            let largest = ColorReference.largestDifference(frame.pixels.bytes, reference)
            #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
        }
    }

    /// With `keepsHighBitDepth` the ten-bit samples are kept (as sixteen-bit ones, ten bits significant), written
    /// back as a ten-bit AVIF, and converted in sixteen bits when asked.
    @Test func aTenBitAVIFKeptDeepHoldsItsSamplesAndIsWrittenBackWithTenBits() throws {
        let avif = try Self.file()
        let coders = ImageCoders(coders: [AVIFCoder()])
        let keeping = DecodeOptions(colorHandling: .original, keepsHighBitDepth: true)
        let kept = try coders.decode(avif, options: keeping)
        let deep = try #require(kept.frames[0].deepPixels)
        #expect(deep.significantBits == 10)
        var largest = 0
        for pixel in 0..<(Self.width * Self.height) {
            for channel in 0..<3 {
                let expected = (Double(Self.tenBit[pixel * 3 + channel]) * 65_535 / 1023).rounded()
                largest = max(largest, Int(abs(Double(deep.samples[pixel * 4 + channel]) - expected)))
            }
        }
        #expect(largest <= 1, "off by \(largest) of 65 535")

        let written = try coders.encode(kept, as: .avif, options: EncodeOptions(lossless: true))
        #expect(try coders.decode(written, options: keeping).frames[0].deepPixels == deep)

        let profile = try #require(kept.colorProfile)
        let converted = try coders.decode(avif, options: DecodeOptions(keepsHighBitDepth: true))
        #expect(converted.colorProfile == nil)
        let rounded = try #require(converted.frames[0].deepPixels).eightBitPixels().bytes
        let off = ColorReference.largestDifference(rounded, Self.reference(icc: profile.iccData))
        #expect(off <= 1, "off by \(off) from Little CMS's 16-bit conversion")
        // A sequence decodes to 8 bits even when asked to keep them.
        let sequence = try coders.decode(Self.file(frames: 3), options: keeping)
        #expect(sequence.frames.count == 3 && sequence.frames.allSatisfy { $0.deepPixels == nil })
    }
}
