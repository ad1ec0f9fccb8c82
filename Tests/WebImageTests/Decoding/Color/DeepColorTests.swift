import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// A 16-bit file's colour is converted from its 16-bit samples, not from samples already rounded to 8 bits.
@Suite struct DeepColorTests {
    static let width = 64, height = 32

    /// RGBA samples of 16 bits that are not 8-bit values scaled (low bytes that rounding would lose).
    static let samples: [UInt16] = (0..<(width * height)).flatMap { index -> [UInt16] in
        let x = index % width, y = index / width
        return [UInt16(x * 1021 + y * 37), UInt16(65_535 - x * 997), UInt16(y * 2039 + x * 7), 65_535]
    }

    /// A non-interlaced RGBA PNG of 16 bits a sample holding `samples`, tagged with `icc`.
    static func png(icc: Data) -> Data {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)  // no filter
            for value in samples[(y * width * 4)..<((y + 1) * width * 4)] { raw += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        }
        func chunk(_ type: String, _ data: [UInt8]) -> Data {
            let typeAndData = Array(type.utf8) + data
            return Data(ColorTaggedFiles.bigEndian(UInt32(data.count)) + typeAndData
                        + ColorTaggedFiles.bigEndian(typeAndData.withUnsafeBytes { CRC32.checksum($0) }))
        }
        let header = ColorTaggedFiles.bigEndian(UInt32(width)) + ColorTaggedFiles.bigEndian(UInt32(height)) + [16, 6, 0, 0, 0]
        return Data(PNGChunkReader.signature) + chunk("IHDR", header) + chunk("iCCP", ColorTaggedFiles.iCCP(icc))
            + chunk("IDAT", ColorTaggedFiles.storedZlib(raw)) + chunk("IEND", [])
    }

    @Test func aSixteenBitDisplayP3PNGIsConvertedFromItsSixteenBitSamples() throws {
        let icc = ColorReference.displayP3
        let file = Self.png(icc: icc)
        let converted = try ImageCoders.shared.decode(file)
        #expect(converted.colorProfile == nil)
        let reference = ColorReference.toSRGB(sixteenBit: Self.samples, from: icc)
        let largest = ColorReference.largestDifference(converted.pixels.bytes, reference)
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
        // Converting the rounded 8-bit samples instead gives other values for some pixels: the test can tell.
        let stored = try ImageCoders.shared.decode(file, options: DecodeOptions(colorHandling: .original))
        #expect(stored.colorProfile?.space == .displayP3)
        let (differing, ours) = ColorReference.differingSamples(
            converted: converted.pixels.bytes, stored: stored.pixels.bytes, icc: icc, reference: reference)
        #expect(differing > 100, "8-bit and 16-bit conversions agree on all but \(differing) samples")
        #expect(ours * 10 < differing, "\(ours) samples differ from the 16-bit conversion, \(differing) from the 8-bit one")
        // A Display P3 target leaves Display P3 samples alone, rounded as usual.
        let p3 = try ImageCoders.shared.decode(file, options: DecodeOptions(colorHandling: .displayP3))
        #expect(p3.colorProfile?.space == .displayP3 && p3.pixels.bytes == stored.pixels.bytes)
    }
}
