import Foundation
import Testing
@testable import WebImage

/// The frame buffer's limit, preloading, first-frame-only, key frames and the cost of seeking.
@Suite struct AnimatedImageBufferTests {
    @Test(arguments: ["gif/anim-pillow-40.gif", "gif/anim-magick.gif", "webp/anim-lossless-40.webp"])
    func memoryCostStaysWithinTheLimit(path: String) throws {
        let probe = try AnimationTesting.lazy(path)
        let frameBytes = AnimationTesting.frameBytes(probe)
        let limit = 3 * frameBytes
        let lazy = try AnimationTesting.lazy(path, AnimatedImage.Options(maxBufferSize: limit))
        #expect(lazy.maxBufferSize == limit)
        let count = lazy.frameCount
        var highest = 0
        for index in Array(0..<count) + Array(0..<count) + AnimationTesting.shuffled(count, seed: 5) {
            _ = try lazy.frame(at: index)
            highest = max(highest, lazy.memoryCost)
            #expect(lazy.memoryCost <= limit + frameBytes, "after frame \(index): \(lazy.memoryCost)")
            #expect(lazy.bufferedFrameCount <= 3)
        }
        #expect(highest >= 2 * frameBytes)  // the budget is used, not left empty
        #expect(lazy.bufferedFrameCount >= 1)
    }

    @Test func automaticBudgetHoldsAtLeastTwoFramesAndAtMost64MiB() {
        #expect(AnimatedImage.automaticBufferSize(frameByteCount: 1000) <= 64 << 20)
        #expect(AnimatedImage.automaticBufferSize(frameByteCount: 1000) >= 2000)
        #expect(AnimatedImage.automaticBufferSize(frameByteCount: 100 << 20) == 200 << 20)
        #expect(AnimatedImage.automaticBufferSize(frameByteCount: .max) == .max)
    }

    @Test func aSmallAnimationStaysBufferedAndDropsItsCanvas() throws {
        let lazy = try AnimationTesting.lazy("gif/anim-pillow-40.gif")  // automatic budget: all 40 frames fit
        let frameBytes = AnimationTesting.frameBytes(lazy)
        for index in 0..<40 { _ = try lazy.frame(at: index) }
        #expect(lazy.bufferedFrameCount == 40)
        #expect(lazy.memoryCost == 40 * frameBytes)  // the canvas and key frames went when the last frame came
        let drawn = lazy.framesDrawn
        for index in AnimationTesting.shuffled(40, seed: 1) { _ = try lazy.frame(at: index) }
        #expect(lazy.framesDrawn == drawn)
    }

    @Test(arguments: ["gif/anim-pillow-40.gif", "webp/anim-lossy-40.webp"])
    func preloadDecodesEverythingOnceAndKeepsIt(path: String) throws {
        let eager = try AnimationTesting.eager(path)
        let frameBytes = eager.pixels.byteCount
        let options = AnimatedImage.Options(maxBufferSize: frameBytes, preloadAllFrames: true)
        let lazy = try AnimationTesting.lazy(path, options)
        #expect(lazy.framesDrawn == 40)
        #expect(lazy.bufferedFrameCount == 40)
        #expect(lazy.memoryCost == 40 * frameBytes)
        for index in AnimationTesting.shuffled(40, seed: 11) {
            #expect(AnimationTesting.same(lazy.cachedFrame(at: index)?.pixels, eager.frames[index].pixels))
        }
        #expect(lazy.framesDrawn == 40)
    }

    @Test func preloadRespectsTheTotalPixelLimitButLazyPlaybackDoesNot() throws {
        let limits = DecodeLimits(maxTotalPixels: 10 * 48 * 36)  // ten of the forty frames
        let decodeOptions = DecodeOptions(limits: limits)
        let error = #expect(throws: ImageError.self) {
            try AnimationTesting.lazy("gif/anim-pillow-40.gif",
                                      AnimatedImage.Options(preloadAllFrames: true, decodeOptions: decodeOptions))
        }
        #expect(error?.code == .imageTooLarge)
        let lazy = try AnimationTesting.lazy("gif/anim-pillow-40.gif",
                                             AnimatedImage.Options(decodeOptions: decodeOptions))
        for index in 0..<40 { _ = try lazy.frame(at: index) }
        #expect(throws: ImageError.self) { try lazy.makeImage() }
    }

    @Test(arguments: ["gif/anim-pillow-40.gif", "webp/anim-blend.webp"])
    func firstFrameOnlyIsAStillOfTheFirstFrame(path: String) throws {
        let eager = try AnimationTesting.eager(path)
        for options in [AnimatedImage.Options(decodeFirstFrameOnly: true),
                        AnimatedImage.Options(decodeOptions: DecodeOptions(firstFrameOnly: true))] {
            let lazy = try AnimationTesting.lazy(path, options)
            #expect(lazy.frameCount == 1)
            #expect(!lazy.isAnimated)
            #expect(lazy.loopCount == 1)
            #expect(lazy.frameDurations == [0])
            #expect(AnimationTesting.same(try lazy.frame(at: 0).pixels, eager.pixels))
            #expect(throws: ImageError.self) { try lazy.frame(at: 1) }
        }
    }

    @Test func firstFrameOnlyDoesNotReadPastTheFirstFrame() throws {
        let data = try Fixtures.data("gif/anim-pillow-40.gif")
        let cut = data.prefix(data.count / 2)
        let error = #expect(throws: ImageError.self) { try AnimatedImage(data: cut) }
        #expect(error?.code == .badImageData)
        let first = try AnimatedImage(data: cut, options: AnimatedImage.Options(decodeFirstFrameOnly: true))
        let eager = try AnimationTesting.eager("gif/anim-pillow-40.gif")
        #expect(AnimationTesting.same(try first.frame(at: 0).pixels, eager.pixels))
    }

    @Test(arguments: ["gif/anim-pillow-40.gif", "gif/anim-magick.gif", "webp/anim-lossless-40.webp",
                      "webp/anim-lossy-40.webp"])
    func seeksAfterAFirstPassReplayAtMostTheKeyframeInterval(path: String) throws {
        let probe = try AnimationTesting.lazy(path)
        let frameBytes = AnimationTesting.frameBytes(probe)
        let interval = 4
        // Room for every key frame (half the budget) but only a few buffered frames.
        let options = AnimatedImage.Options(maxBufferSize: 40 * frameBytes, keyframeInterval: interval)
        let lazy = try AnimationTesting.lazy(path, options)
        let count = lazy.frameCount
        for index in 0..<count { _ = try lazy.frame(at: index) }
        #expect(lazy.framesDrawn == count)  // playing forward draws each frame once
        #expect(!lazy.keyframeIndices.isEmpty)
        lazy.removeBufferedFrames()  // keep key frames and the canvas
        for index in AnimationTesting.shuffled(count, seed: 42) + Array((0..<count).reversed()) {
            let before = lazy.framesDrawn
            _ = try lazy.frame(at: index)
            #expect(lazy.framesDrawn - before <= interval, "frame \(index) replayed \(lazy.framesDrawn - before)")
        }
    }

    @Test func aJumpReplaysFromTheNearestIndependentFrameOrKeyframe() throws {
        // In anim-pillow-40.gif frames 8, 18, 28 and 38 clear the whole canvas to the background (disposal 2), so
        // frames 0, 9, 19, 29 and 39 can be drawn alone (also 14, 24, 34, which cover the canvas opaquely).
        let frameBytes = 48 * 36 * 4
        let lazy = try AnimationTesting.lazy("gif/anim-pillow-40.gif",
                                             AnimatedImage.Options(maxBufferSize: 40 * frameBytes, keyframeInterval: 8))
        _ = try lazy.frame(at: 39)
        #expect(lazy.framesDrawn == 1)
        _ = try lazy.frame(at: 20)  // from 19
        #expect(lazy.framesDrawn == 1 + 2)
        _ = try lazy.frame(at: 8)  // from 0, saving a key frame before frame 8
        #expect(lazy.framesDrawn == 3 + 9)
        #expect(lazy.keyframeIndices == [8])
        _ = try lazy.frame(at: 7)  // from 0 again (only the target frame is buffered): the key frame is past 7
        #expect(lazy.framesDrawn == 12 + 8)
        _ = try lazy.frame(at: 12)  // from 9, nearer than the key frame at 8
        #expect(lazy.framesDrawn == 20 + 4)
        _ = try lazy.frame(at: 13)  // the live canvas goes on
        #expect(lazy.framesDrawn == 24 + 1)
        _ = try lazy.frame(at: 8)  // buffered
        _ = try lazy.frame(at: 9)  // drawn alone
        #expect(lazy.framesDrawn == 25 + 1)
    }

    @Test func independentFramesNeedNoReplay() throws {
        // Our GIF encoder writes opaque frames as changed rectangles; solid frames change everywhere, so every frame
        // covers the canvas and can be drawn alone.
        let image = try AnimationTesting.solidAnimation(durations: Array(repeating: 0.1, count: 12))
        let data = try GIFCoder().encode(image, as: .gif, options: EncodeOptions())
        let lazy = try AnimatedImage(data: data, options: AnimatedImage.Options(maxBufferSize: 0))
        for (step, index) in AnimationTesting.shuffled(12, seed: 8).enumerated() {
            #expect(AnimationTesting.same(try lazy.frame(at: index).pixels, image.frames[index].pixels))
            #expect(lazy.framesDrawn == step + 1)
        }
        #expect(lazy.keyframeIndices.isEmpty)
    }

    @Test func keyframesShareTheBudgetByWideningTheirInterval() throws {
        let probe = try AnimationTesting.lazy("webp/anim-lossless-40.webp")
        let frameBytes = AnimationTesting.frameBytes(probe)
        // Half of 8 frames is room for 4 key frames; interval 2 would want up to 19 of them.
        let lazy = try AnimationTesting.lazy("webp/anim-lossless-40.webp",
                                             AnimatedImage.Options(maxBufferSize: 8 * frameBytes, keyframeInterval: 2))
        for index in 0..<40 { _ = try lazy.frame(at: index) }
        let keyframes = lazy.keyframeIndices
        #expect(keyframes.count <= 4)
        #expect(!keyframes.isEmpty)
        #expect(lazy.memoryCost <= 8 * frameBytes)
    }

    @Test func clearBufferDropsEverythingDecoded() throws {
        let lazy = try AnimationTesting.lazy("gif/anim-magick.gif", AnimatedImage.Options(keyframeInterval: 4))
        for index in 0..<20 { _ = try lazy.frame(at: index) }
        #expect(lazy.memoryCost > 0)
        lazy.clearBuffer()
        #expect(lazy.memoryCost == 0)
        #expect(lazy.bufferedFrameCount == 0)
        #expect(lazy.keyframeIndices.isEmpty)
        #expect(lazy.cachedFrame(at: 5) == nil)
        let eager = try AnimationTesting.eager("gif/anim-magick.gif")
        #expect(AnimationTesting.same(try lazy.frame(at: 5).pixels, eager.frames[5].pixels))
    }

    @Test func aDamagedFrameFailsAloneWhileIndependentFramesStillDecode() throws {
        // corrupt-middle.gif: frame 1 of 3 ends its pixel data early; frames 0 and 2 cover the canvas opaquely.
        let lazy = try AnimationTesting.lazy("gif/corrupt-middle.gif")
        #expect(lazy.frameCount == 3)
        #expect(try lazy.frame(at: 0).pixels[0, 0] == RGBA(200, 30, 30))
        let error = #expect(throws: ImageError.self) { try lazy.frame(at: 1) }
        #expect(error?.code == .badImageData)
        #expect(try lazy.frame(at: 2).pixels[3, 3] == RGBA(30, 30, 200))
    }

    @Test(arguments: ["gif/anim-pillow-40.gif", "webp/anim-lossless-40.webp"])
    func truncatedFilesAreRefusedAtCreation(path: String) throws {
        for cut in Fixtures.truncations(of: try Fixtures.data(path)) {
            #expect(throws: ImageError.self, "\(cut.count) bytes") { try AnimatedImage(data: cut) }
        }
    }

    @Test func bombsAreRefusedByTheLimits() throws {
        for path in ["gif/bomb-canvas-60000.gif", "webp/bomb_canvas60000.webp"] {
            let error = #expect(throws: ImageError.self) { try AnimationTesting.lazy(path) }
            #expect(error?.code == .imageTooLarge)
        }
        let limited = AnimatedImage.Options(decodeOptions: DecodeOptions(limits: DecodeLimits(maxFrames: 1000)))
        let error = #expect(throws: ImageError.self) { try AnimationTesting.lazy("gif/bomb-4000-frames.gif", limited) }
        #expect(error?.code == .imageTooLarge)
        #expect(try AnimationTesting.lazy("gif/bomb-4000-frames.gif").frameCount == 4000)
    }
}
