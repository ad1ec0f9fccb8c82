import Foundation
import Testing
import WebImage
import WebImageAVIF

/// `properties(of:)` parses boxes only, and must say what a default decode says.
@Suite struct AVIFPropertiesTests {
    let coder = AVIFCoder()

    @Test(arguments: AVIFFixtures.allAVIF) func agreesWithAFullDecode(name: String) throws {
        let data = try AVIFFixtures.data(name)
        let properties = try coder.properties(of: data)
        let decoded = ImageProperties(of: try coder.decode(data, options: DecodeOptions()))
        #expect(properties == decoded)
    }

    @Test func sequence() throws {
        let properties = try coder.properties(of: try AVIFFixtures.data("sequence.avif"))
        #expect(properties.format == .avif && properties.frameCount == 3 && properties.loopCount == 0)
        #expect(properties.frameDurations == [0.1, 0.25, 0.04])
        #expect(properties.isAnimated)
    }

    @Test func stillWithTransformations() throws {
        let properties = try coder.properties(of: try AVIFFixtures.data("irot3-imir0.avif"))
        #expect(properties == ImageProperties(format: .avif, size: PixelSize(width: 32, height: 48),
                                              orientation: .rightMirrored))
        let alpha = try coder.properties(of: try AVIFFixtures.data("rgba12.avif"))
        #expect(alpha.hasAlpha && alpha.frameDurations.isEmpty && alpha.frameCount == 1)
    }

    /// A header that declares 10 000² pixels over data for 48×32: read without decoding anything.
    @Test func hugeDeclaredSizeIsReadNotDecoded() throws {
        let data = try AVIFFixtures.withImageSpatialExtents(
            try AVIFFixtures.data("rgb8-lossless.avif"), width: 10_000, height: 10_000)
        #expect(try coder.properties(of: data).size == PixelSize(width: 10_000, height: 10_000))
    }
}
