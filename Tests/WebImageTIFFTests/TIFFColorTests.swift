import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageTIFF

/// TIFF pages carry their colour as an ICC profile (tag 34675): RGB pages are converted like Little CMS converts
/// them, 16-bit ones from their 16 bits, and CMYK pages through their CMYK profile rather than the naive formula.
@Suite struct TIFFColorTests {
    static let width = 64, height = 48
    let coders = ImageCoders(coders: [TIFFCoder()])

    @Test func anEightBitDisplayP3PageIsConvertedLikeLittleCMS() throws {
        let icc = ColorReference.displayP3
        let chart = ColorReference.gamutChart(width: Self.width, height: Self.height)
        let rgb = (0..<(chart.count / 4)).flatMap { chart[($0 * 4)..<($0 * 4 + 3)].map(UInt16.init) }
        let tiff = TIFFTestFile(width: Self.width, height: Self.height, photometric: .rgb, bitsPerSample: 8,
                                samplesPerPixel: 3, icc: icc, samples: rgb).data
        #expect(try TIFFCoder().properties(of: tiff).colorSpace == .displayP3)
        let converted = try coders.decode(tiff)
        #expect(converted.colorProfile == nil)
        let error = ColorReference.deltaE(converted.pixels.bytes, ColorReference.toSRGB(chart, from: icc))
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
        let kept = try coders.decode(tiff, options: DecodeOptions(colorHandling: .original))
        #expect(kept.colorProfile?.space == .displayP3 && kept.pixels.bytes == chart)
    }

    /// 16-bit values whose low bytes rounding would lose, and a straight alpha that varies.
    static let sixteenBitRGBA: [UInt16] = (0..<(width * height)).flatMap { index -> [UInt16] in
        let x = index % width, y = index / width
        return [UInt16(x * 1000 + y * 37), UInt16(65_535 - x * 997), UInt16(y * 1361 + x * 7), UInt16(65_535 - y * 700)]
    }

    /// A 16-bit RGBA page (unassociated alpha) of ``sixteenBitRGBA`` carrying `icc`.
    static func sixteenBitPage(icc: Data) -> Data {
        TIFFTestFile(width: width, height: height, photometric: .rgb, bitsPerSample: 16, samplesPerPixel: 4,
                     unassociatedAlpha: true, icc: icc, samples: sixteenBitRGBA).data
    }

    @Test func aSixteenBitDisplayP3PageIsConvertedFromItsSixteenBits() throws {
        let icc = ColorReference.displayP3
        let rgba = Self.sixteenBitRGBA
        let tiff = Self.sixteenBitPage(icc: icc)
        let converted = try coders.decode(tiff)
        #expect(converted.colorProfile == nil && converted.hasAlpha)
        let reference = ColorReference.toSRGB(sixteenBit: rgba, from: icc)
        let largest = ColorReference.largestDifference(converted.pixels.bytes, reference)
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")
        // Converting the samples rounded to 8 bits gives other values for many of them: the test can tell.
        let stored = try coders.decode(tiff, options: DecodeOptions(colorHandling: .original))
        #expect(stored.colorProfile?.space == .displayP3)
        let (differing, ours) = ColorReference.differingSamples(
            converted: converted.pixels.bytes, stored: stored.pixels.bytes, icc: icc, reference: reference)
        #expect(differing > 100 && ours * 10 < differing,
                "\(ours) samples differ from the 16-bit conversion, \(differing) from the 8-bit one")
        // A thumbnail converts after its scale-down and still comes out in sRGB.
        let thumbnail = try coders.decode(tiff, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 24)))
        #expect(thumbnail.colorProfile == nil && thumbnail.pixels.size == PixelSize(width: 32, height: 24))
    }

    /// Inks that cover the range, with black on a gradient.
    static func inks() -> [UInt8] {
        (0..<(width * height)).flatMap { index -> [UInt8] in
            let x = index % width, y = index / width
            return [UInt8(x * 4), UInt8(y * 5), UInt8((x + y) * 2), UInt8(y < 24 ? 0 : (x * 3) % 256)]
        }
    }

    /// With `keepsHighBitDepth` a 16-bit page keeps every sample (converted in 16 bits when asked); gray stays gray.
    @Test func sixteenBitRGBAndGrayPagesKeptDeepHoldTheirSamples() throws {
        let icc = ColorReference.displayP3
        let rgba = Self.sixteenBitRGBA
        let tiff = Self.sixteenBitPage(icc: icc)
        let kept = try coders.decode(tiff, options: DecodeOptions(colorHandling: .original, keepsHighBitDepth: true))
        #expect(kept.frames[0].deepPixels?.samples == rgba && kept.hasAlpha)
        #expect(kept.colorProfile?.space == .displayP3)
        let converted = try coders.decode(tiff, options: DecodeOptions(keepsHighBitDepth: true))
        #expect(converted.colorProfile == nil)
        let rounded = try #require(converted.frames[0].deepPixels).eightBitPixels().bytes
        let largest = ColorReference.largestDifference(rounded, ColorReference.toSRGB(sixteenBit: rgba, from: icc))
        #expect(largest <= 1, "off by \(largest) from Little CMS's 16-bit conversion")

        let levels = (0..<(Self.width * Self.height)).map { UInt16($0 * 21 + 5) }
        let gray = TIFFTestFile(width: Self.width, height: Self.height, photometric: .minIsBlack, bitsPerSample: 16,
                                samplesPerPixel: 1, icc: nil, samples: levels).data
        let grayKept = try coders.decode(gray, options: DecodeOptions(keepsHighBitDepth: true))
        #expect(grayKept.frames[0].deepPixels?.samples == levels.flatMap { [$0, $0, $0, 65_535] })
        #expect(!grayKept.hasAlpha)
        // Without asking, 8 bits as before.
        #expect(try coders.decode(gray).frames[0].deepPixels == nil)
    }

    @Test(arguments: [8, 16])
    func aCMYKPageIsConvertedThroughItsProfile(bits: Int) throws {
        let icc = ColorReference.cmykProfile()
        let inks = Self.inks()
        let samples = inks.map { bits == 8 ? UInt16($0) : UInt16($0) * 257 }
        let tiff = TIFFTestFile(width: Self.width, height: Self.height, photometric: .separated, bitsPerSample: bits,
                                samplesPerPixel: 4, icc: icc, samples: samples).data
        #expect(try TIFFCoder().properties(of: tiff).colorSpace == .cmyk)
        let reference = ColorReference.cmykToSRGB(inks, from: icc, inverted: false)
        let converted = try coders.decode(tiff)
        #expect(converted.colorProfile == nil && !converted.hasAlpha)
        let error = ColorReference.deltaE(converted.pixels.bytes, reference)
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
        // The same inks without the profile take the naive formula, which this profile's dot gain moves far off.
        let untagged = TIFFTestFile(width: Self.width, height: Self.height, photometric: .separated,
                                    bitsPerSample: bits, samplesPerPixel: 4, icc: nil, samples: samples).data
        let naive = ColorReference.deltaE(try coders.decode(untagged).pixels.bytes, reference)
        #expect(naive.mean > 3, "\(naive)")
        // RGBA cannot hold inks: a decode that keeps the original colour converts them too.
        let kept = try coders.decode(tiff, options: DecodeOptions(colorHandling: .original))
        #expect(kept.pixels.bytes == converted.pixels.bytes)
    }
}
