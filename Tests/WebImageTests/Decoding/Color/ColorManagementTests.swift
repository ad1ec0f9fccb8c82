import CTurboJPEG
import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// Decoding applies a file's colour description as Little CMS does, and writing keeps it only when asked.
@Suite struct ColorManagementTests {
    static let width = 64, height = 48
    static let chart = ColorReference.gamutChart(width: width, height: height)

    static func chartImage() throws -> Image {
        Image(pixels: try PixelBuffer(width: width, height: height, rgba: chart), hasAlpha: false)
    }

    static func encoded(_ format: ImageFormat, quality: Double = 1) throws -> Data {
        var options = EncodeOptions()
        options.quality = quality
        options.lossless = format == .webp
        return try ImageCoders.shared.encode(chartImage(), as: format, options: options)
    }

    /// Decodes `data` by default and as stored, and checks the default against lcms's transform of the stored
    /// samples from `icc`; returns the mean difference the conversion made, to show that it did something.
    @discardableResult
    static func expectConvertedLikeLittleCMS(_ data: Data, icc: Data, space: ColorSpace) throws -> Double {
        let stored = try ImageCoders.shared.decode(data, options: DecodeOptions(colorHandling: .original))
        #expect(stored.colorProfile?.space == space)
        let converted = try ImageCoders.shared.decode(data)
        #expect(converted.colorProfile == nil)
        let reference = ColorReference.toSRGB(stored.pixels.bytes, from: icc)
        let error = ColorReference.deltaE(converted.pixels.bytes, reference)
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "ΔE2000 against Little CMS: \(error)")
        let moved = ColorReference.deltaE(converted.pixels.bytes, stored.pixels.bytes).mean
        #expect(moved > 1, "the conversion should change a \(space) picture (mean ΔE \(moved))")
        #expect(try ImageCoders.shared.properties(of: data).colorSpace == space)
        return moved
    }

    @Test func aDisplayP3JPEGIsConvertedToSRGB() throws {
        let jpeg = ColorTaggedFiles.jpeg(try Self.encoded(.jpeg), icc: ColorReference.displayP3)
        try Self.expectConvertedLikeLittleCMS(jpeg, icc: ColorReference.displayP3, space: .displayP3)
    }

    /// An XYB JPEG as jpegli lays one out (`Fixtures/jpeg/make_xyb.py`): stored as they are, its samples are a
    /// green and purple travesty of the picture; through the profile's lookup table they are the picture, within
    /// what 8-bit XYB and JPEG keep, and converted as Little CMS converts them.
    @Test func anXYBJPEGIsReadThroughItsProfile() throws {
        let data = try Fixtures.data("jpeg/xyb.jpg")
        let stored = try ImageCoders.shared.decode(data, options: DecodeOptions(colorHandling: .original))
        let profile = try #require(stored.colorProfile)
        #expect(profile.space == .icc && profile.name == "XYB_Per")
        let icc = profile.iccData
        try Self.expectConvertedLikeLittleCMS(data, icc: icc, space: .icc)
        let picture = try ImageCoders.shared.decode(Fixtures.data("jpeg/xyb-source.png")).pixels.bytes
        let converted = try ImageCoders.shared.decode(data).pixels.bytes
        let error = ColorReference.deltaE(converted, picture)
        #expect(error.mean <= 2.5 && error.p95 <= 6, "ΔE2000 against the picture: \(error)")
        #expect(ColorReference.deltaE(stored.pixels.bytes, picture).mean > 10, "the stored samples are not the picture")
    }

    @Test func aProfileSplitAcrossSegmentsIsJoinedInOrder() throws {
        let icc = ColorReference.adobeRGB
        let jpeg = ColorTaggedFiles.jpeg(try Self.encoded(.jpeg), icc: icc, segmentSize: 100)
        try Self.expectConvertedLikeLittleCMS(jpeg, icc: icc, space: .adobeRGB)
        // Segments numbered wrongly (two called 1) do not make a profile: the file reads as untagged.
        let misnumbered = ColorTaggedFiles.jpeg(try Self.encoded(.jpeg), icc: icc, segmentSize: 100) { max(1, $0 - 1) }
        #expect(try ImageCoders.shared.properties(of: misnumbered).colorProfile == nil)
    }

    @Test func anAdobeRGBPNGIsConvertedToSRGB() throws {
        let png = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [("iCCP", ColorTaggedFiles.iCCP(ColorReference.adobeRGB))])
        try Self.expectConvertedLikeLittleCMS(png, icc: ColorReference.adobeRGB, space: .adobeRGB)
    }

    @Test func pngGammaAndChromaticitiesAreAppliedLikeTheProfileTheyDescribe() throws {
        // gAMA 1/1.8 with Display P3's chromaticities: the profile lcms builds from the same numbers.
        let png = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [
            ("gAMA", ColorTaggedFiles.gAMA(1 / 1.8)),
            ("cHRM", ColorTaggedFiles.cHRM(white: ColorReference.d65, primaries: ColorReference.displayP3Primaries)),
        ])
        let icc = ColorReference.rgbProfile(primaries: ColorReference.displayP3Primaries, curve: (1, [1.8]),
                                            description: "gamma 1.8 P3")
        try Self.expectConvertedLikeLittleCMS(png, icc: icc, space: .icc)
    }

    @Test func pngCodePointsComeBeforeItsICCProfile() throws {
        // cICP says Display P3; the iCCP (Adobe RGB) is the fallback for readers that do not know cICP.
        let png = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [
            ("cICP", [12, 13, 0, 1]), ("iCCP", ColorTaggedFiles.iCCP(ColorReference.adobeRGB)),
        ])
        try Self.expectConvertedLikeLittleCMS(png, icc: ColorReference.displayP3, space: .displayP3)
    }

    @Test func sRGBTaggedAndUntaggedFilesKeepEveryByte() throws {
        let jpeg = try Self.encoded(.jpeg)
        let untagged = try ImageCoders.shared.decode(jpeg).pixels.bytes
        let tagged = ColorTaggedFiles.jpeg(jpeg, icc: ColorReference.sRGBProfile())
        #expect(try ImageCoders.shared.decode(tagged).pixels.bytes == untagged)
        #expect(try ImageCoders.shared.properties(of: tagged).colorSpace == .sRGB)
        let png = try Self.encoded(.png)
        let taggedPNG = ColorTaggedFiles.png(png, chunks: [("iCCP", ColorTaggedFiles.iCCP(ColorReference.sRGBProfile()))])
        #expect(try ImageCoders.shared.decode(taggedPNG).pixels.bytes == Self.chart)
        let sRGBChunk = ColorTaggedFiles.png(png, chunks: [("sRGB", [0])])
        #expect(try ImageCoders.shared.decode(sRGBChunk).pixels.bytes == Self.chart)
    }

    @Test func displayP3IsATargetForWideColourCallers() throws {
        let jpeg = try Self.encoded(.jpeg)
        let p3 = try ImageCoders.shared.decode(jpeg, options: DecodeOptions(colorHandling: .displayP3))
        #expect(p3.colorProfile?.space == .displayP3)
        // sRGB's colours sit inside P3: expressed in P3 they are less saturated numbers, and back in sRGB the same.
        let back = ColorReference.toSRGB(p3.pixels.bytes, from: ColorReference.displayP3)
        let error = ColorReference.deltaE(back, try ImageCoders.shared.decode(jpeg).pixels.bytes)
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
    }

    @Test(arguments: [ImageFormat.png, .jpeg, .webp])
    func outputsCarryTheProfileOnlyWhenAsked(_ format: ImageFormat) throws {
        // One profile for the file and the comparison: lcms stamps each profile it makes with the time.
        let icc = ColorReference.displayP3
        let source = ColorTaggedFiles.jpeg(try Self.encoded(.jpeg), icc: icc)
        let kept = try ImageCoders.shared.decode(source, options: DecodeOptions(colorHandling: .original))
        let written = try ImageCoders.shared.encode(kept, as: format)
        let keptProperties = try ImageCoders.shared.properties(of: written)
        #expect(keptProperties.colorSpace == .displayP3)
        #expect(keptProperties.colorProfile?.name == "Display P3")
        // Read back, the written file converts like the source did.
        let rewritten = try ImageCoders.shared.decode(written, options: DecodeOptions(colorHandling: .original))
        #expect(rewritten.colorProfile?.iccData == icc)

        let converted = try ImageCoders.shared.decode(source)
        let plain = try ImageCoders.shared.encode(converted, as: format)
        let plainProperties = try ImageCoders.shared.properties(of: plain)
        #expect(plainProperties.colorSpace == .sRGB && plainProperties.colorProfile == nil)
    }

    @Test func brokenProfilesAreIgnoredAndTheImageStillDecodes() throws {
        let jpeg = try Self.encoded(.jpeg)
        let untagged = try ImageCoders.shared.decode(jpeg).pixels.bytes
        var random = SplitMix(seed: 28)
        let garbage = Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let truncated = ColorReference.displayP3.prefix(ColorReference.displayP3.count / 2)
        var lying = ColorReference.displayP3
        lying[0] = 0x7F  // declares a 2 GB profile
        for (name, icc) in [("garbage", garbage), ("truncated", Data(truncated)), ("lying", lying)] {
            let tagged = ColorTaggedFiles.jpeg(jpeg, icc: icc)
            #expect(try ImageCoders.shared.decode(tagged).pixels.bytes == untagged, "\(name)")
            #expect(try ImageCoders.shared.properties(of: tagged).colorProfile == nil, "\(name)")
        }
        // An iCCP that inflates past the profile limit (a zlib bomb) is not inflated to the end.
        let bomb = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [
            ("iCCP", Array("bomb".utf8) + [0, 0] + ColorTaggedFiles.storedZlib([UInt8](repeating: 0, count: ColorProfile.maximumICCSize + 1))),
        ])
        #expect(try ImageCoders.shared.decode(bomb).pixels.bytes == Self.chart)
        // A damaged zlib stream likewise.
        var damaged = ColorTaggedFiles.iCCP(ColorReference.displayP3)
        damaged[damaged.count - 2] ^= 0xFF
        let damagedPNG = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [("iCCP", damaged)])
        #expect(try ImageCoders.shared.decode(damagedPNG).pixels.bytes == Self.chart)
    }

    @Test func thumbnailsConvertAfterScalingWithinTheToleranceOfConvertingFirst() throws {
        let png = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [("iCCP", ColorTaggedFiles.iCCP(ColorReference.displayP3))])
        let size = PixelSize(width: 16, height: 12)
        let thumbnail = try ImageCoders.shared.decode(png, options: DecodeOptions(thumbnailPixelSize: size))
        #expect(thumbnail.size == size)
        let convertedFirst = try ImageCoders.shared.decode(png).pixels.resized(to: size, filter: .area)
        let error = ColorReference.deltaE(thumbnail.pixels.bytes, convertedFirst.bytes)
        #expect(error.mean <= 1.0, "\(error)")
    }

    @Test func hdrIsToneMappedFromTheContentPeakToSDRWhite() throws {
        // A gray ramp of PQ codes (BT.2020 primaries): 0 to 10 000 cd/m², with no content peak stated.
        var ramp: [UInt8] = []
        for code in 0..<256 { ramp += [UInt8(code), UInt8(code), UInt8(code), 255] }
        let png = ColorTaggedFiles.png(
            try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: 256, height: 1, rgba: ramp)), as: .png),
            chunks: [("cICP", [9, 16, 0, 1])])
        #expect(try ImageCoders.shared.properties(of: png).colorSpace == .bt2100PQ)
        let shown = try ImageCoders.shared.decode(png).pixels
        let levels = (0..<256).map { Int(shown[$0, 0].g) }
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 <= $1 }, "brighter codes never come out darker")
        // Every code as the reference written from the standards shows it from the assumed 1 000-nit peak.
        let expected = (0..<256).map { code -> Int in
            let signal = Double(code) / 255
            return Int(HDRReference.sRGB(pq: [signal, signal, signal], peak: 1_000)[1])
        }
        // Gray keeps its level through the BT.2020 → sRGB matrix (its rows sum to one) within its rounding.
        #expect(zip(levels, expected).allSatisfy { abs($0 - $1) <= 2 }, "\(levels) against \(expected)")
        // Darks and mid-tones pass unchanged (50 cd/m² shows at a quarter of SDR white's light: sRGB 137),
        // reference white (203 cd/m²) keeps headroom below SDR white, and the 1 000-nit peak reaches it: brighter
        // is clipped.
        let fifty = levels[Int((HDRReference.inverseEOTF(50) * 255).rounded())]
        #expect(abs(fifty - 137) <= 3, "50 cd/m² shows as \(fifty)")
        let referenceWhite = levels[Int((HDRReference.inverseEOTF(203) * 255).rounded())]
        #expect((220...240).contains(referenceWhite), "reference white shows as \(referenceWhite)")
        #expect(levels[Int((HDRReference.inverseEOTF(600) * 255).rounded())] < 255)
        #expect(levels[Int((HDRReference.inverseEOTF(1_000) * 255).rounded()) + 1] == 255)
    }

    /// A 16-bit PQ PNG (`pq-src.png`, lossless, so only the conversion differs) is shown as the reference written
    /// from the standards shows it: the one tone mapper, then BT.2020 to sRGB, colours outside sRGB clipped.
    @Test func a16BitPQImageMatchesTheReferenceFromTheStandards() throws {
        let png = try Fixtures.data("png/pq-src.png")
        #expect(try ImageCoders.shared.properties(of: png).colorSpace == .bt2100PQ)
        // A peak is told only for PQ: JPEG XL states an intensity target for every file, SDR ones included.
        #expect(ColorCodePoints(primaries: 9, transfer: 16, contentPeak: 2_182).contentPeak == 2_182)
        #expect(ColorCodePoints(primaries: 12, transfer: 13, contentPeak: 255).contentPeak == nil)
        let error = HDRReference.difference(try ImageCoders.shared.decode(png).pixels.bytes, peak: 1_000)
        #expect(error.mean <= 0.5 && error.max <= 2, "\(error)")
    }

    @Test func aBitmapAnotherImageSharesIsCopiedNotConvertedInPlace() throws {
        let jpeg = ColorTaggedFiles.jpeg(try Self.encoded(.jpeg), icc: ColorReference.displayP3)
        let stored = try ImageCoders.shared.decode(jpeg, options: DecodeOptions(colorHandling: .original))
        let before = stored.pixels.bytes
        var shared = stored
        try ColorConversion.apply(.sRGB, to: &shared)
        #expect(stored.pixels.bytes == before, "the other holder's pixels must not change")
        #expect(shared.pixels.bytes == (try ImageCoders.shared.decode(jpeg)).pixels.bytes)
    }

    @Test func incrementalDecodingConvertsLikeTheOneShotDecode() throws {
        let jpeg = ColorTaggedFiles.jpeg(try Self.encoded(.jpeg), icc: ColorReference.displayP3)
        let png = ColorTaggedFiles.png(try Self.encoded(.png), chunks: [("iCCP", ColorTaggedFiles.iCCP(ColorReference.displayP3))])
        for data in [jpeg, png] {
            let decoder = IncrementalDecoder()
            for start in stride(from: 0, to: data.count, by: 700) {
                try decoder.append(data[start..<min(data.count, start + 700)])
                _ = decoder.currentImage()
            }
            #expect(try decoder.finish().pixels.bytes == ImageCoders.shared.decode(data).pixels.bytes)
        }
    }
}

/// CMYK JPEGs with a CMYK profile: the inks go through the profile, not the naive formula.
@Suite struct CMYKColorTests {
    /// The raw CMYK samples TurboJPEG decodes from `jpeg`.
    static func inks(_ jpeg: Data) throws -> (bytes: [UInt8], size: PixelSize) {
        try jpeg.withUnsafeBytes { bytes -> ([UInt8], PixelSize) in
            let handle = try #require(tjInitDecompress())
            defer { tjDestroy(handle) }
            let source = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            #expect(tjDecompressHeader3(handle, source, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0)
            var output = [UInt8](repeating: 0, count: Int(width * height * 4))
            #expect(tjDecompress2(handle, source, UInt(bytes.count), &output, width, width * 4, height,
                                  Int32(TJPF_CMYK.rawValue), 0) == 0)
            return (output, PixelSize(width: Int(width), height: Int(height)))
        }
    }

    @Test func anAdobeCMYKJPEGIsConvertedThroughItsProfile() throws {
        let icc = ColorReference.cmykProfile()
        let jpeg = ColorTaggedFiles.jpeg(try Fixtures.data("jpeg/ycck.jpg"), icc: icc)
        #expect(try ImageCoders.shared.properties(of: jpeg).colorSpace == .cmyk)
        let name = try ImageCoders.shared.properties(of: jpeg).colorProfile?.name
        #expect(name == "Test CMYK", "\(String(describing: name))")
        let decoded = try ImageCoders.shared.decode(jpeg)
        #expect(decoded.colorProfile == nil)
        let reference = ColorReference.cmykToSRGB(try Self.inks(jpeg).bytes, from: icc, inverted: true)
        let error = ColorReference.deltaE(decoded.pixels.bytes, reference)
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
        let naive = try ImageCoders.shared.decode(try Fixtures.data("jpeg/ycck.jpg")).pixels.bytes
        #expect(ColorReference.deltaE(decoded.pixels.bytes, naive).mean > 1, "the profile should change the colours")
        // Kept colour cannot be CMYK: the decode that keeps the original still converts the inks, to sRGB.
        let kept = try ImageCoders.shared.decode(jpeg, options: DecodeOptions(colorHandling: .original))
        #expect(kept.pixels.bytes == decoded.pixels.bytes && kept.colorProfile == nil)
    }
}
