import Foundation
import Testing
@testable import WebImage

/// An APNG fed to the incremental decoder decodes as the whole animation (with its frame limits), not as the
/// default image alone.
@Suite("Incremental APNG")
struct APNGIncrementalTests {
    @Test("every chunking gives the fixture script's composited frames", arguments: IncrementalFeeding.chunkSizes)
    func animationIsKept(chunkSize: Int) throws {
        let data = try Fixtures.data("apng/dispose-none.png")
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        let expected = try APNGTesting.expectedFrames("dispose-none", size: PixelSize(width: 8, height: 8))
        #expect(expected.count == 3)
        #expect(run.final.frames.map { Array($0.pixels.bytes) } == expected)
        #expect(run.final.format == .png)
        #expect(run.partials.isEmpty, "an animation has no partial images")
    }

    @Test("an acTL after the image data is not an animation: the still decodes row by row")
    func lateAnimationControlIsIgnored() throws {
        let data = try Fixtures.data("apng/actl-after-idat.png")
        let run = try IncrementalFeeding.feed(data, chunkSize: 7)
        #expect(run.final.frames.count == 1)
        #expect(GIFTesting.mismatch(run.final.pixels) { _, _ in APNGColors.magenta } == nil)
    }

    @Test("the frame limit holds for an APNG fed in pieces")
    func frameLimitHolds() throws {
        let data = try Fixtures.data("apng/dispose-none.png")
        let limited = DecodeOptions(limits: DecodeLimits(maxFrames: 2))
        #expect(IncrementalFeeding.errorCode { _ = try IncrementalFeeding.feed(data, chunkSize: 7, options: limited) }
                == .imageTooLarge)
    }
}
