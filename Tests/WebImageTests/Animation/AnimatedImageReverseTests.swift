import Foundation
import Testing
@testable import WebImage

/// Stepping backwards keeps the frames drawn on the way, so reverse playback does not replay for every frame.
@Suite struct AnimatedImageReverseTests {
    @Test(arguments: ["gif/anim-magick.gif", "webp/anim-lossy-40.webp"])
    func reversePlaybackReplaysLittle(path: String) throws {
        let eager = try AnimationTesting.eager(path)
        let count = eager.frames.count
        let options = AnimatedImage.Options(maxBufferSize: 10 * eager.pixels.byteCount, keyframeInterval: 8)
        let lazy = try AnimationTesting.lazy(path, options)
        for index in 0..<count { _ = try lazy.frame(at: index) }  // a first pass saves key frames
        let forward = lazy.framesDrawn
        for index in (0..<count).reversed() {
            try AnimationTesting.expectSameFrame(lazy, eager, index, path)
            #expect(lazy.memoryCost <= 10 * eager.pixels.byteCount + eager.pixels.byteCount)
        }
        // Each replay from a key frame (at most 8 frames) now serves the next several frames backwards: 47 and 58
        // frames drawn here, against 150 and 282 when every backward step replays from its key frame.
        #expect(lazy.framesDrawn - forward <= count + count / 2, "\(lazy.framesDrawn - forward) frames drawn")
    }
}
