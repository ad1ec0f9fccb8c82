import Foundation
import Testing
@testable import WebImage

/// The lazy animated image decodes exactly what the eager coders decode (giflib compositing, libwebp's
/// WebPAnimDecoder), frame by frame, in any order.
@Suite struct AnimatedImageDecodingTests {
    @Test(arguments: AnimationTesting.animatedFixtures)
    func framesInOrderEqualTheEagerDecode(path: String) throws {
        let eager = try AnimationTesting.eager(path)
        let lazy = try AnimationTesting.lazy(path)
        #expect(lazy.source is GIFAnimationSource || lazy.source is WebPAnimationSource)
        #expect(lazy.frameCount == eager.frames.count)
        #expect(lazy.frameDurations == eager.frames.map(\.duration))
        #expect(lazy.loopCount == eager.loopCount)
        #expect(lazy.size == eager.size)
        #expect(lazy.format == eager.format)
        #expect(lazy.isAnimated)
        for index in 0..<eager.frames.count {
            try AnimationTesting.expectSameFrame(lazy, eager, index, path)
        }
    }

    @Test(arguments: AnimationTesting.animatedFixtures)
    func framesInRandomOrderEqualTheEagerDecode(path: String) throws {
        let eager = try AnimationTesting.eager(path)
        // A buffer of two frames and key frames every 3 frames: most requests composite again from a key frame,
        // an independent frame or the live canvas.
        let lazy = try AnimationTesting.lazy(path, AnimatedImage.Options(
            maxBufferSize: 2 * eager.pixels.byteCount, keyframeInterval: 3))
        let count = eager.frames.count
        let order = AnimationTesting.shuffled(count, seed: 7) + Array((0..<count).reversed())
            + AnimationTesting.shuffled(count, seed: 99)
        for index in order {
            try AnimationTesting.expectSameFrame(lazy, eager, index, path)
        }
    }

    @Test(arguments: ["gif/anim-pillow-40.gif", "webp/anim-blend.webp", "webp/anim-lossy-40.webp"])
    func thumbnailFramesEqualTheEagerThumbnailDecode(path: String) throws {
        let decodeOptions = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        let eager = try AnimationTesting.eager(path, decodeOptions)
        let lazy = try AnimationTesting.lazy(path, AnimatedImage.Options(decodeOptions: decodeOptions))
        #expect(lazy.size == eager.size)
        #expect(lazy.size.width <= 20 && lazy.size.height <= 20)
        for index in AnimationTesting.shuffled(eager.frames.count, seed: 3) {
            try AnimationTesting.expectSameFrame(lazy, eager, index, path)
        }
        #expect(try lazy.makeImage().flags.contains(.thumbnail))
    }

    @Test func webPBlendFixtureTakesEveryCompositingPath() throws {
        let data = try Fixtures.data("webp/anim-blend.webp")
        let source = try WebPAnimationSource(data: data, decodeOptions: DecodeOptions(), firstFrameOnly: false)
        // libwebp's key frames, as the fixture script lays them out: the first; full frames without blending or
        // alpha (4, 7); after a full frame cleared to the background (8); after a cleared key frame (9).
        #expect(source.records.map(\.isKeyFrame) == [true, false, false, false, true, false, false, true, true, true,
                                                     false, false])
        #expect(source.frameDurations == [0.07, 0.09, 0.11, 0.1, 0.13, 0.06, 0.1, 0.08, 0.05, 0.05, 0.05, 0.2])
        #expect(source.loopCount == 4)
        #expect(source.records[2].disposesToBackground && source.records[3].blends)
    }

    @Test func blendFollowsLibwebpIntegerArithmetic() {
        func word(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) -> UInt32 {
            (r | g << 8 | b << 16 | a << 24).littleEndian
        }
        // Opaque replaces, transparent keeps.
        #expect(WebPAnimationCursor.blend(word(1, 2, 3, 255), over: word(9, 9, 9, 9)) == word(1, 2, 3, 255))
        #expect(WebPAnimationCursor.blend(word(1, 2, 3, 0), over: word(9, 8, 7, 6)) == word(9, 8, 7, 6))
        // 50% red over opaque blue: destination weight (255 * 128) >> 8 = 127, alpha 255, scale 2^24 / 255 = 65793;
        // red 255 * 128 * 65793 >> 24 = 127 (the approximation rounds down), blue 255 * 127 * 65793 >> 24 = 126.
        #expect(WebPAnimationCursor.blend(word(255, 0, 0, 128), over: word(0, 0, 255, 255)) == word(127, 0, 126, 255))
        // Over a transparent destination the colour survives except for rounding: 200 * 100 * (2^24 / 100) >> 24.
        #expect(WebPAnimationCursor.blend(word(200, 50, 0, 100), over: 0) == word(199, 49, 0, 100))
    }

    @Test func creationReadsHeadersOnly() throws {
        for path in ["gif/anim-pillow-40.gif", "webp/anim-lossless-40.webp"] {
            let lazy = try AnimationTesting.lazy(path)
            #expect(lazy.frameCount == 40)
            #expect(lazy.framesDrawn == 0)
            #expect(lazy.memoryCost == 0)
        }
    }

    @Test func makeImageEqualsTheEagerDecode() throws {
        for path in ["gif/anim-magick.gif", "webp/anim-blend.webp"] {
            let eager = try AnimationTesting.eager(path)
            let made = try AnimationTesting.lazy(path).makeImage()
            #expect(made.frames.count == eager.frames.count)
            #expect(AnimationTesting.same(made.frames, eager.frames))
            #expect(made.frames.map(\.duration) == eager.frames.map(\.duration))
            #expect(made.loopCount == eager.loopCount)
            #expect(made.flags == eager.flags)
            #expect(made.format == eager.format)
        }
    }

    @Test func imageAtIndexIsAStillOfThatFrame() throws {
        let eager = try AnimationTesting.eager("gif/dispose-previous.gif")
        let still = try AnimationTesting.lazy("gif/dispose-previous.gif").image(at: 2)
        #expect(still.frames.count == 1)
        #expect(!still.isAnimated)
        #expect(still.loopCount == 1)
        #expect(still.format == .gif)
        #expect(AnimationTesting.same(still.pixels, eager.frames[2].pixels))
    }

    @Test func stillAndOtherFormatsArePlayedFromAnEagerDecode() throws {
        for path in ["png/rgba8.png", "jpeg/baseline.jpg", "webp/lossless.webp", "gif/static-opaque.gif"] {
            let eager = try AnimationTesting.eager(path)
            let lazy = try AnimationTesting.lazy(path)
            #expect(lazy.frameCount == 1)
            #expect(!lazy.isAnimated)
            #expect(lazy.loopCount == 1)
            #expect(lazy.frameDurations == [0])
            #expect(AnimationTesting.same(try lazy.frame(at: 0).pixels, eager.pixels))
        }
    }

    @Test func anEagerImageCanBePlayedWithoutCopies() throws {
        let image = try AnimationTesting.solidAnimation(durations: [0.1, 0.2, 0.3])
        let lazy = AnimatedImage(image: image)
        #expect(lazy.frameCount == 3)
        #expect(lazy.memoryCost == image.memoryCost)
        #expect(try lazy.frame(at: 2).pixels.storage === image.frames[2].pixels.storage)
        #expect(lazy.cachedFrame(at: 1)?.duration == 0.2)
        #expect(lazy.bufferedFrameCount == 0)
    }

    @Test func framesOutsideTheRangeAreErrors() throws {
        let lazy = try AnimationTesting.lazy("gif/dispose-none.gif")
        for index in [-1, 3, Int.max] {
            let error = #expect(throws: ImageError.self) { try lazy.frame(at: index) }
            #expect(error?.code == .badImageData)
            #expect(lazy.cachedFrame(at: index) == nil)
        }
    }
}
