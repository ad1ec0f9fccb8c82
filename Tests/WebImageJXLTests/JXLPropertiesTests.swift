import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

@Suite struct JXLPropertiesTests {
    @Test(arguments: JXLFixtures.all)
    func propertiesAgreeWithAFullDecode(name: String) throws {
        let data = try JXLFixtures.data(name)
        var properties = try JXLCoder().properties(of: data)
        #expect(properties.colorSpace == (name.hasPrefix("gray") ? .gray : .sRGB))
        // The colour fields describe the file's samples, not the decoded (sRGB) image.
        properties.describeColor(nil)
        #expect(properties == ImageProperties(of: try JXLCoder().decode(data, options: DecodeOptions())))
    }

    @Test func propertiesOfEachKind() throws {
        let animation = try JXLCoder().properties(of: try JXLFixtures.data("anim"))
        #expect(animation.frameCount == 3 && animation.frameDurations == [0.1, 0.2, 0.3] && animation.loopCount == 0)
        #expect(animation.hasAlpha && animation.isAnimated)
        let oriented = try JXLCoder().properties(of: try JXLFixtures.data("oriented"))
        #expect(oriented.orientation == .right && oriented.size == PixelSize(width: 24, height: 40))
        let still = try JXLCoder().properties(of: try JXLFixtures.data("still-lossless"))
        #expect(still == ImageProperties(format: .jxl, size: PixelSize(width: 64, height: 48)))
    }

    @Test func propertiesReadAHugeHeaderWithoutAllocating() throws {
        // Declares 1 048 576² pixels (4 TiB of RGBA): the header is read, nothing is decoded, no frame follows.
        let code = errorCode { _ = try JXLCoder().properties(of: hugeCodestreamHeader(side: 1 << 20)) }
        #expect(code == .badImageData)
    }

    @Test func emptyDataIsBadImageData() {
        #expect(errorCode { _ = try JXLCoder().properties(of: Data()) } == .badImageData)
        #expect(errorCode { _ = try JXLCoder().decode(Data(), options: DecodeOptions()) } == .badImageData)
    }
}
