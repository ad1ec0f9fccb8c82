import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// AVIF files carry their colour as an ICC profile or as code points (nclx); both are read, converted like
/// Little CMS converts them, and written back when the image carries them.
@Suite struct AVIFColorTests {
    static func lossless(_ image: Image) throws -> Data {
        var options = EncodeOptions()
        options.lossless = true
        return try AVIFCoder().encode(image, as: .avif, options: options)
    }

    @Test func anICCProfileIsWrittenReadAndApplied() throws {
        // One profile for the file and the comparison: lcms stamps each profile it makes with the time.
        let icc = ColorReference.displayP3
        let profile = try #require(ColorProfile(icc: icc))
        let avif = try Self.lossless(try ColorRoundTrip.chart(described: profile))
        let properties = try AVIFCoder().properties(of: avif)
        #expect(properties.colorSpace == .displayP3 && properties.colorProfile?.iccData == icc)
        let error = try ColorRoundTrip.errorAgainstLittleCMS(avif, coder: AVIFCoder())
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
        let kept = try ImageCoders(coders: [AVIFCoder()]).decode(avif, options: DecodeOptions(colorHandling: .original))
        #expect(kept.pixels.bytes == ColorReference.gamutChart())
    }

    @Test func codePointsAreWrittenReadAndApplied() throws {
        let profile = try #require(ColorProfile(codePoints: .displayP3))
        let avif = try Self.lossless(try ColorRoundTrip.chart(described: profile))
        let properties = try AVIFCoder().properties(of: avif)
        #expect(properties.colorSpace == .displayP3 && properties.colorProfile?.codePoints?.primaries == 12)
        let error = try ColorRoundTrip.errorAgainstLittleCMS(avif, coder: AVIFCoder())
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
    }

    @Test func untaggedImagesAreWrittenAsSRGBAndDecodeUnchanged() throws {
        let avif = try Self.lossless(Image(pixels: try PixelBuffer(width: 64, height: 48, rgba: ColorReference.gamutChart())))
        let properties = try AVIFCoder().properties(of: avif)
        #expect(properties.colorSpace == .sRGB && properties.colorProfile == nil)
        #expect(try ImageCoders(coders: [AVIFCoder()]).decode(avif).pixels.bytes == ColorReference.gamutChart())
    }
}
