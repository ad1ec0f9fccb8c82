import Foundation
import Testing
@testable import WebImage

/// Many tasks at once on one lazy image and one player: every frame still equals the eager decode, and the
/// bookkeeping stays consistent (the suite also runs under ThreadSanitizer in CI).
@Suite struct AnimatedImageConcurrencyTests {
    @Test(arguments: ["gif/anim-pillow-40.gif", "webp/anim-lossless-40.webp"])
    func manyTasksReadFramesAtOnce(path: String) async throws {
        let eager = try AnimationTesting.eager(path)
        let expected = eager.frames.map(\.pixels.bytes)
        let frameBytes = eager.pixels.byteCount
        let limit = 4 * frameBytes
        let lazy = try AnimationTesting.lazy(path, AnimatedImage.Options(maxBufferSize: limit, keyframeInterval: 4))
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for index in AnimationTesting.shuffled(40, seed: UInt64(task + 1)) {
                        if try lazy.frame(at: index).pixels.bytes != expected[index] { wrong += 1 }
                        _ = lazy.memoryCost
                        _ = lazy.cachedFrame(at: (index + 1) % 40)
                        if task == 0 && index % 10 == 0 { lazy.clearBuffer() }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(lazy.memoryCost <= limit + frameBytes)
    }

    @Test func playersAndReadersShareOneImage() async throws {
        let lazy = try AnimationTesting.lazy("gif/anim-magick.gif",
                                             AnimatedImage.Options(maxBufferSize: 6 * 48 * 36 * 4))
        let expected = try AnimationTesting.eager("gif/anim-magick.gif").frames.map(\.pixels.bytes)
        let clock = ManualPlaybackClock()
        let player = AnimatedImagePlayer(image: lazy, clock: clock, prefetchCount: 3)
        player.play()
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<50 {
                        if task == 0 { clock.advance(by: 0.03) }
                        let state = player.update()
                        if step % 7 == task { player.seek(toFrame: (step * 5) % 43) }
                        if try player.image.frame(at: state.frameIndex).pixels.bytes != expected[state.frameIndex] {
                            wrong += 1
                        }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        await player.waitForPrefetch()
        #expect(mismatches == 0)
    }
}
