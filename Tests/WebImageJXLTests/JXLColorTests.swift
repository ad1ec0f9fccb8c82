import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

/// JPEG XL files carry their colour as an ICC profile or a structured encoding; both are read and converted
/// like Little CMS converts them, and an image's profile is written back.
@Suite struct JXLColorTests {
    @Test func anICCProfileIsWrittenReadAndApplied() throws {
        let profile = try #require(ColorProfile(icc: ColorReference.displayP3))
        var options = EncodeOptions()
        options.lossless = true
        let jxl = try JXLCoder().encode(try ColorRoundTrip.chart(described: profile), as: .jxl, options: options)
        #expect(try JXLCoder().properties(of: jxl).colorSpace == .displayP3)
        let error = try ColorRoundTrip.errorAgainstLittleCMS(jxl, coder: JXLCoder())
        #expect(error.mean <= 1.0 && error.p95 <= 2.5, "\(error)")
        let kept = try ImageCoders(coders: [JXLCoder()]).decode(jxl, options: DecodeOptions(colorHandling: .original))
        #expect(kept.colorProfile?.space == .displayP3)
        #expect(kept.pixels.bytes == ColorReference.gamutChart())
    }

    @Test func untaggedImagesAreWrittenAsSRGB() throws {
        var options = EncodeOptions()
        options.lossless = true
        let image = Image(pixels: try PixelBuffer(width: 64, height: 48, rgba: ColorReference.gamutChart()))
        let jxl = try JXLCoder().encode(image, as: .jxl, options: options)
        let properties = try JXLCoder().properties(of: jxl)
        #expect(properties.colorSpace == .sRGB && properties.colorProfile == nil)
        #expect(try ImageCoders(coders: [JXLCoder()]).decode(jxl).pixels.bytes == ColorReference.gamutChart())
    }
}
