import Foundation
import Testing
@testable import WebImage

/// The 1/8-scale reader of progressive JPEGs cut after their first scans, against libjpeg's decode of the whole
/// file, and against itself on the same coefficients sent in other progressions.
@Suite struct JPEGEighthScaleDecoderTests {
    static let eighth = JPEGScaleFactor(numerator: 1, denominator: 8)

    /// `data` cut after its first `scans` scans and closed with an end-of-image marker.
    static func cut(_ data: Data, scans: Int) -> Data {
        JPEGPrefixScanner.prefix(of: data, length: JPEGPrefixScannerTests.scanEnds(data)[scans - 1])
    }

    /// libjpeg's (TurboJPEG's) 1/8-scale pixels of `data`.
    static func libjpeg(_ data: Data) throws -> PixelBuffer {
        try data.withUnsafeBytes { bytes in
            try JPEGDecoder.decodePixels(bytes, markers: try JPEGMarkerScanner.scan(bytes), factor: eighth,
                                         cmyk: CMYKColorConversion(profile: nil, handling: .sRGB),
                                         readingPrefixes: false)
        }
    }

    static func ours(_ data: Data) -> PixelBuffer? {
        data.withUnsafeBytes { JPEGEighthScaleDecoder.decode($0) }
    }

    static func largestDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test(arguments: ["progressive-photo-gray.jpg", "progressive-photo-444.jpg"])
    func withoutSubsamplingTheFirstScanGivesLibjpegsEighthToWithinItsLastBit(name: String) throws {
        // Every component uses libjpeg's 1×1 IDCT at 1/8: DC alone, here known to all but its last bit.
        let data = try Fixtures.data("prefix/" + name)
        let pixels = try #require(Self.ours(Self.cut(data, scans: 1)))
        let whole = try Self.libjpeg(data)
        #expect(pixels.width == whole.width && pixels.height == whole.height)
        #expect(Self.largestDifference(pixels, whole) <= 3)
        #expect(PixelComparison.psnr(pixels.bytes, whole.bytes) >= 45)
    }

    @Test func fourTwoZeroChromaComesFromItsFirstACScansAsLibjpegsTwoByTwoIDCTWould() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        guard let prefix = JPEGPrefixScannerTests.earlyStopPrefix(data) else { return }
        let pixels = try #require(Self.ours(prefix))
        let whole = try Self.libjpeg(data)
        #expect(PixelComparison.psnr(pixels.bytes, whole.bytes) >= 40)
        // Chroma predicted from DC (the cut after the first scan, also read here) is far from it on this photo's
        // colour detail: the AC counts, and the early stop waits for it.
        let dcOnly = try #require(Self.ours(Self.cut(data, scans: 1)))
        #expect(PixelComparison.psnr(dcOnly.bytes, whole.bytes) < PixelComparison.psnr(pixels.bytes, whole.bytes) - 6)
    }

    @Test func fourTwoZeroChromaFromDCAloneIsPredictedFromLuma() throws {
        // The soft scene cut after its DC scan: chroma's quarters predicted from luma and the neighbours, close
        // to libjpeg's 2×2 IDCT over the whole file's coefficients; and closer than libjpeg itself gets from the
        // same prefix (its block smoothing guesses the AC from the DC gradient alone).
        let data = try Fixtures.data("prefix/progressive-soft.jpg")
        let prefix = Self.cut(data, scans: 1)
        let pixels = try #require(Self.ours(prefix))
        let whole = try Self.libjpeg(data)
        let ours = PixelComparison.psnr(pixels.bytes, whole.bytes)
        #expect(ours >= 42)
        #expect(ours > PixelComparison.psnr(try Self.libjpeg(prefix).bytes, whole.bytes) + 2)
    }

    @Test func theSameCoefficientsInOtherProgressionsGiveTheSamePixels() throws {
        let plain = try Fixtures.data("prefix/progressive-photo.jpg")
        let dcOnly = try #require(Self.ours(Self.cut(plain, scans: 1)))
        // DC one component a scan (each scan walks that component's own block grid).
        let apart = try #require(Self.ours(Self.cut(try Fixtures.data("prefix/progressive-photo-dc-apart.jpg"), scans: 3)))
        #expect(apart.bytes == dcOnly.bytes)
        // DC to within two bits, then a refinement scan to within one.
        let refined = try #require(Self.ours(Self.cut(try Fixtures.data("prefix/progressive-photo-dc-refined.jpg"),
                                                      scans: 2)))
        #expect(refined.bytes == dcOnly.bytes)
        // A restart marker every three MCUs (every three blocks in the AC scans): predictors and end-of-band runs
        // reset, and RST0…RST7 come in turn.
        let restart = try Fixtures.data("prefix/progressive-photo-restart.jpg")
        #expect(try #require(Self.ours(Self.cut(restart, scans: 4))).bytes
            == (try #require(Self.ours(Self.cut(plain, scans: 4)))).bytes)
    }

    @Test(arguments: ["progressive-photo-gray.jpg", "progressive-photo-444.jpg"])
    func aWholeFileWithoutSubsamplingIsReadToLibjpegsEighthExactly(name: String) throws {
        // At 1/8 every component reads DC alone: the AC scans are skipped and the DC refinement completes it.
        let data = try Fixtures.data("prefix/" + name)
        let pixels = try #require(Self.ours(data))
        #expect(pixels.bytes == (try Self.libjpeg(data)).bytes)
    }

    @Test func wholeFilesAndOtherProcessesAreLeftToLibjpeg() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        #expect(Self.ours(data) == nil)  // chroma AC is refined further on
        #expect(Self.ours(try Fixtures.data("jpeg/baseline.jpg")) == nil)
        // A full-size decode of a cut file goes through libjpeg, which fills in the missing coefficients.
        let full = try JPEGCoder().decode(Self.cut(data, scans: 4), options: DecodeOptions())
        #expect(full.size == PixelSize(width: 1000, height: 750))
    }

    @Test func truncatedOrDamagedScansAreRefusedNotGuessed() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        let ends = JPEGPrefixScannerTests.scanEnds(data)
        // Cut inside the DC scan's data, or inside a chroma AC scan's, then closed: the data runs out early.
        for end in [ends[0] - 2000, ends[3] - 500] {
            var short = data.prefix(end)
            short.append(contentsOf: [0xFF, 0xD9])
            #expect(Self.ours(short) == nil, "cut at \(end)")
        }
        #expect(Self.ours(data.prefix(ends[0])) == nil)  // no end-of-image marker at all
        // A scan header naming table 15 (four exist), and one that ends the data with no room for its count.
        let sos = try #require(JPEGPrefixScannerTests.offset(of: 0xDA, in: data))
        var table15 = Self.cut(data, scans: 4)
        table15[sos + 6] = 0xFF
        #expect(Self.ours(table15) == nil)
        #expect(Self.ours(data.prefix(sos) + Data([0xFF, 0xDA, 0x00, 0x02])) == nil)
        // Random damage anywhere in the header or the scans: a result or nil, never a crash or an overrun.
        var generator = SystemRandomNumberGenerator()
        let prefix = Self.cut(data, scans: 4)
        for _ in 0..<300 {
            var damaged = prefix
            for _ in 0..<4 {
                let offset = Int.random(in: 2..<(damaged.count - 2), using: &generator)
                damaged[offset] = UInt8.random(in: 0...255, using: &generator)
            }
            if let pixels = Self.ours(damaged) { #expect(pixels.width > 0 && pixels.height > 0) }
        }
    }

    @Test func anRGBFileIsNotConvertedFromYCbCr() throws {
        // Component ids 'R', 'G', 'B' without a JFIF segment: libjpeg reads the samples as RGB, and so does this.
        let prefix = Self.cut(try Fixtures.data("prefix/progressive-photo-444.jpg"), scans: 1)
        var bytes = [UInt8](prefix)
        if bytes[2] == 0xFF, bytes[3] == 0xE0 {  // the JFIF APP0 segment
            let length = Int(bytes[4]) << 8 | Int(bytes[5])
            bytes.removeSubrange(2..<(4 + length))
        }
        let rename: [UInt8: UInt8] = [1: 0x52, 2: 0x47, 3: 0x42]
        let sof = try #require(JPEGPrefixScannerTests.offset(of: 0xC2, in: Data(bytes)))
        for index in 0..<3 { bytes[sof + 10 + 3 * index] = rename[bytes[sof + 10 + 3 * index]] ?? 0 }
        let sos = try #require(JPEGPrefixScannerTests.offset(of: 0xDA, in: Data(bytes)))
        for index in 0..<3 { bytes[sos + 5 + 2 * index] = rename[bytes[sos + 5 + 2 * index]] ?? 0 }
        let renamed = Data(bytes)
        // libjpeg smooths a DC-only file's DC a little; read as YCbCr instead, the colours would be far off.
        let reference = try Self.libjpeg(renamed)
        let asRGB = try #require(Self.ours(renamed))
        let asYCbCr = try #require(Self.ours(prefix))
        #expect(PixelComparison.psnr(asRGB.bytes, reference.bytes) >= 30)
        #expect(PixelComparison.psnr(asYCbCr.bytes, reference.bytes) < 20)
    }
}
