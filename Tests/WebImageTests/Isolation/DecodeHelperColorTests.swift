import CoderTestSupport
import Foundation
import Testing
@testable import WebImage
import WebImageServer

/// A colour profile crosses the helpers' pipe both ways: the colour choice goes to the helper, the profile of
/// an image decoded as stored comes back, and the properties' colour fields too.
@Suite struct DecodeHelperColorTests {
    @Test func theColourChoiceAndTheProfileCrossThePipe() throws {
        let pool = try DecodeHelperPoolTests.pool(size: 1)
        let coders = ImageCoders.isolating([.jpeg], in: pool, behind: ImageCoders(coders: ImageCoders.builtIn))
        var image = Image(pixels: try PixelBuffer(width: 64, height: 48, rgba: ColorReference.gamutChart()))
        image.colorProfile = ColorProfile(icc: ColorReference.displayP3)
        let jpeg = try ImageCoders.shared.encode(image, as: .jpeg)

        let kept = try coders.decode(jpeg, options: DecodeOptions(colorHandling: .original))
        let keptHere = try ImageCoders.shared.decode(jpeg, options: DecodeOptions(colorHandling: .original))
        #expect(kept.colorProfile == keptHere.colorProfile && kept.colorProfile?.space == .displayP3)
        #expect(kept.pixels.bytes == keptHere.pixels.bytes)
        let converted = try coders.decode(jpeg)
        #expect(converted.colorProfile == nil)
        #expect(converted.pixels.bytes == (try ImageCoders.shared.decode(jpeg)).pixels.bytes)
        #expect(converted.pixels.bytes != kept.pixels.bytes)
        let p3 = try coders.decode(jpeg, options: DecodeOptions(colorHandling: .displayP3))
        #expect(p3.colorProfile?.space == .displayP3)
        let properties = try coders.properties(of: jpeg)
        #expect(properties.colorSpace == .displayP3 && properties.colorProfile == keptHere.colorProfile)
        #expect(pool.restartCount == 0)
    }
}

/// An HDR content peak crosses the pipe with its code points: a HEIC decoded in a helper is tone-mapped from
/// its mastering display's peak, as in the process.
@Suite struct DecodeHelperHDRTests {
    @Test func theContentPeakCrossesThePipe() throws {
        let pool = try DecodeHelperPoolTests.pool(size: 1)
        let coders = ImageCoders.isolating([.heic], in: pool, behind: DecodeHelperPoolTests.inProcess)
        let heic = try IsolationFixtures.file("Tests/WebImageHEIFTests/Fixtures/pq-mdcv.heic")
        #expect(try coders.properties(of: heic).colorProfile?.codePoints?.contentPeak == 1_500)
        let kept = try coders.decode(heic, options: DecodeOptions(colorHandling: .original))
        #expect(kept.colorProfile?.codePoints?.contentPeak == 1_500)
        #expect(try coders.decode(heic).pixels.bytes == DecodeHelperPoolTests.inProcess.decode(heic).pixels.bytes)
        #expect(pool.restartCount == 0)
    }
}

/// Metadata crosses the pipe too: asked for by the parent, read and turned upright in the helper.
@Suite struct DecodeHelperMetadataTests {
    @Test func theMetadataChoiceAndTheBlocksCrossThePipe() throws {
        let pool = try DecodeHelperPoolTests.pool(size: 1)
        let coders = ImageCoders.isolating([.jpeg], in: pool, behind: ImageCoders(coders: ImageCoders.builtIn))
        var image = Image(pixels: try PixelBuffer(width: 64, height: 48, rgba: ColorReference.gamutChart()))
        image.metadata = MetadataSamples.all
        let jpeg = try ImageCoders.shared.encode(image, as: .jpeg)

        let read = try coders.decode(jpeg, options: DecodeOptions(readsMetadata: true))
        #expect(read.metadata == MetadataSamples.all.withOrientationUp())
        #expect(read.metadata?.iptc == MetadataSamples.iptc)
        #expect(try coders.decode(jpeg).metadata == nil)
        #expect(pool.restartCount == 0)
    }
}
