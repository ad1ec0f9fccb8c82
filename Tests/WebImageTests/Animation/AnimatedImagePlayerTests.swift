import Foundation
import Testing
@testable import WebImage

/// Player timing with a manual clock: no sleeps, no real timers. The test animation has four frames shown for
/// 0.25, 0.5, 0.125 and 0.125 s (binary fractions, so times add up exactly): one normal loop lasts 1 s.
@Suite struct AnimatedImagePlayerTests {
    static let durations = [0.25, 0.5, 0.125, 0.125]

    private func makePlayer(
        mode: PlaybackMode = .normal, rate: Double = 1, loopCount: Int = 0, prefetchCount: Int = 0
    ) throws -> (AnimatedImagePlayer, ManualPlaybackClock) {
        let image = try AnimationTesting.solidAnimation(durations: Self.durations, loopCount: loopCount)
        let clock = ManualPlaybackClock()
        let player = AnimatedImagePlayer(image: AnimatedImage(image: image), clock: clock, mode: mode,
                                         playbackRate: rate, prefetchCount: prefetchCount)
        return (player, clock)
    }

    /// (clock time, expected frame, expected loop) for one mode, checked in order from a fresh player.
    static let schedules: [(PlaybackMode, [(Double, Int, Int)])] = [
        (.normal, [(0, 0, 0), (0.24, 0, 0), (0.25, 1, 0), (0.74, 1, 0), (0.75, 2, 0), (0.875, 3, 0), (0.99, 3, 0),
                   (1.0, 0, 1), (1.25, 1, 1), (10.875, 3, 10)]),
        (.reverse, [(0, 3, 0), (0.125, 2, 0), (0.25, 1, 0), (0.75, 0, 0), (0.99, 0, 0), (1.0, 3, 1)]),
        // 0, 1, 2, 3, 2, 1: starts 0, 0.25, 0.75, 0.875, 1.0, 1.125; a loop is 1.625 s.
        (.bounce, [(0, 0, 0), (0.25, 1, 0), (0.75, 2, 0), (0.875, 3, 0), (1.0, 2, 0), (1.125, 1, 0), (1.6, 1, 0),
                   (1.625, 0, 1), (1.875, 1, 1)]),
        // 3, 2, 1, 0, 1, 2: starts 0, 0.125, 0.25, 0.75, 1.0, 1.5; a loop is 1.625 s.
        (.reversedBounce, [(0, 3, 0), (0.125, 2, 0), (0.25, 1, 0), (0.75, 0, 0), (1.0, 1, 0), (1.5, 2, 0),
                           (1.625, 3, 1)]),
    ]

    @Test(arguments: 0..<4)
    func frameFollowsElapsedTimeInEveryMode(schedule: Int) throws {
        let (mode, expectations) = Self.schedules[schedule]
        let (player, clock) = try makePlayer(mode: mode)
        player.play()
        for (time, frame, loop) in expectations {
            clock.set(to: time)
            let state = player.update()
            #expect(state.frameIndex == frame, "\(mode) at \(time)")
            #expect(state.loop == loop, "\(mode) at \(time)")
            #expect(state.isPlaying && !state.isFinished)
        }
    }

    @Test func rateScalesTime() throws {
        let (fast, fastClock) = try makePlayer(rate: 2)
        fast.play()
        fastClock.set(to: 0.125)
        #expect(fast.update().frameIndex == 1)  // 0.25 s of animation
        fastClock.set(to: 0.5)
        #expect(fast.update().frameIndex == 0 && fast.state.loop == 1)  // 1 s: the second loop

        let (slow, slowClock) = try makePlayer(rate: 0.5)
        slow.play()
        slowClock.set(to: 0.49)
        #expect(slow.update().frameIndex == 0)
        slowClock.set(to: 0.5)
        #expect(slow.update().frameIndex == 1)
        slowClock.set(to: 1.75)
        #expect(slow.update().frameIndex == 3)  // 0.875 s
    }

    @Test func changingTheRateKeepsThePosition() throws {
        let (player, clock) = try makePlayer()
        player.play()
        clock.set(to: 0.5)  // 0.5 s: frame 1
        player.playbackRate = 2
        #expect(player.update().time == 0.5)
        clock.set(to: 0.625)  // + 0.125 s at rate 2 = 0.75 s: frame 2
        #expect(player.update().frameIndex == 2)
        player.playbackRate = 0  // holds the frame while "playing"
        clock.set(to: 100)
        #expect(player.update().frameIndex == 2)
        #expect(player.state.isPlaying)
        #expect(player.nextFrameChangeTime == nil)
        player.playbackRate = -3
        #expect(player.playbackRate == 0)
        player.playbackRate = .nan
        #expect(player.playbackRate == 0)
        player.playbackRate = 1e9
        #expect(player.playbackRate == AnimatedImagePlayer.maximumPlaybackRate)
    }

    @Test func finiteLoopsFinishOnTheLastFrameShown() throws {
        let expectedLastFrame: [PlaybackMode: (frame: Int, end: Double)] = [
            .normal: (3, 2.0), .reverse: (0, 2.0), .bounce: (1, 3.25), .reversedBounce: (2, 3.25),
        ]
        for (mode, expected) in expectedLastFrame {
            let (player, clock) = try makePlayer(mode: mode, loopCount: 2)
            #expect(player.loopCount == 2)
            player.play()
            clock.set(to: expected.end - 0.01)
            #expect(!player.update().isFinished, "\(mode)")
            clock.set(to: expected.end)
            let state = player.update()
            #expect(state.isFinished, "\(mode)")
            #expect(!state.isPlaying, "\(mode)")
            #expect(state.frameIndex == expected.frame, "\(mode)")
            #expect(state.loop == 1, "\(mode)")
            clock.set(to: 50)
            #expect(player.update() == state, "\(mode) stays on its last frame")
            player.play()  // starts over
            #expect(player.update().frameIndex == (mode == .normal || mode == .bounce ? 0 : 3), "\(mode)")
            #expect(player.state.isPlaying)
        }
    }

    @Test func pauseAndResumeKeepThePosition() throws {
        let (player, clock) = try makePlayer()
        #expect(!player.state.isPlaying)  // stopped until play()
        clock.set(to: 5)
        #expect(player.update().frameIndex == 0)
        player.play()
        clock.set(to: 5.375)
        #expect(player.update().frameIndex == 1)
        player.pause()
        clock.set(to: 60)
        let paused = player.update()
        #expect(paused.frameIndex == 1 && paused.time == 0.375 && !paused.isPlaying)
        #expect(player.nextFrameChangeTime == nil)
        player.play()
        clock.set(to: 60.375)  // 0.75 s
        #expect(player.update().frameIndex == 2)
        player.stop()
        #expect(player.update().frameIndex == 0)
        #expect(player.state.time == 0 && !player.state.isPlaying)
    }

    @Test func seekingMovesToTheFrameOrTime() throws {
        let (player, clock) = try makePlayer(loopCount: 3)
        player.seek(toFrame: 2)
        #expect(player.state.time == 0.75 && player.state.frameIndex == 2 && !player.state.isPlaying)
        player.seek(toFrame: 1, loop: 1)
        #expect(player.state.time == 1.25 && player.state.loop == 1)
        player.seek(toFrame: 99)  // clamped to the last frame, in the current loop
        #expect(player.state.frameIndex == 3 && player.state.loop == 1)
        player.seek(toTime: 2.3)
        #expect(player.state.frameIndex == 1 && player.state.loop == 2)
        player.seek(toTime: 50)  // clamped to the end
        #expect(player.state.isFinished && player.state.frameIndex == 3)
        player.seek(toTime: -1)
        #expect(player.state.time == 0)
        player.play()
        player.seek(toFrame: 3, loop: 0)
        clock.advance(by: 0.125)
        #expect(player.update().frameIndex == 0 && player.state.loop == 1)  // kept playing from the seek

        let (bounce, _) = try makePlayer(mode: .bounce)
        bounce.seek(toFrame: 2)
        #expect(bounce.state.time == 0.75)  // the first time the loop shows frame 2
    }

    @Test func changingTheModeKeepsTheFrame() throws {
        let (player, clock) = try makePlayer()
        player.play()
        clock.set(to: 0.8)  // frame 2
        player.mode = .reverse  // 3, 2, 1, 0: frame 2 starts at 0.125
        #expect(player.mode == .reverse)
        #expect(player.update().frameIndex == 2 && player.state.time == 0.125)
        clock.advance(by: 0.125)
        #expect(player.update().frameIndex == 1)
    }

    @Test func nextFrameChangeTimeAccountsForTheRate() throws {
        let (player, clock) = try makePlayer(rate: 2)
        #expect(player.nextFrameChangeTime == nil)
        player.play()
        clock.set(to: 0.0625)  // 0.125 s of animation; frame 1 starts at 0.25, 0.0625 s of clock away
        #expect(player.nextFrameChangeTime == 0.125)
    }

    @Test func eventsReportFrameChangesAndTheEndOnce() async throws {
        let image = try AnimationTesting.solidAnimation(durations: Self.durations, loopCount: 1)
        let clock = ManualPlaybackClock()
        var player: AnimatedImagePlayer? = AnimatedImagePlayer(image: AnimatedImage(image: image), clock: clock)
        let stream = try #require(player).events()
        player?.play()
        for time in [0.1, 0.3, 0.31, 0.8, 0.9, 1.5, 2.0] {
            clock.set(to: time)
            player?.update()
        }
        player?.play()  // starts over: frame 0 again
        player = nil  // the streams end with the player
        var events: [AnimatedImagePlayer.Event] = []
        for await event in stream { events.append(event) }
        #expect(events == [
            .frameChanged(frameIndex: 0, loop: 0), .frameChanged(frameIndex: 1, loop: 0),
            .frameChanged(frameIndex: 2, loop: 0), .frameChanged(frameIndex: 3, loop: 0), .finished(frameIndex: 3),
            .frameChanged(frameIndex: 0, loop: 0),
        ])
    }

    @Test func playingPrefetchesTheUpcomingFrames() async throws {
        let lazy = try AnimationTesting.lazy("gif/anim-pillow-40.gif",
                                             AnimatedImage.Options(maxBufferSize: 10 * 48 * 36 * 4))
        let clock = ManualPlaybackClock()
        let player = AnimatedImagePlayer(image: lazy, clock: clock, prefetchCount: 3)
        player.update()
        await player.waitForPrefetch()
        #expect(lazy.framesDrawn == 0)  // not playing: nothing fetched
        player.play()
        clock.set(to: 0.1)  // durations 30, 40, 50, 60 ms: frame 2 (0.07 ..< 0.12)
        #expect(player.update().frameIndex == 2)
        await player.waitForPrefetch()
        for index in 2...5 { #expect(lazy.cachedFrame(at: index) != nil, "frame \(index)") }
        #expect(lazy.cachedFrame(at: 6) == nil)
        #expect(AnimationTesting.same(player.cachedCurrentFrame()?.pixels, (try lazy.frame(at: 2)).pixels))
        player.clearBuffer()
        #expect(lazy.memoryCost == 0)
        let eager = try AnimationTesting.eager("gif/anim-pillow-40.gif")
        #expect(AnimationTesting.same(try player.currentFrame().pixels, eager.frames[2].pixels))
    }

    @Test func aPlayerWithoutPrefetchDecodesOnlyWhatIsAsked() async throws {
        let lazy = try AnimationTesting.lazy("webp/anim-blend.webp")
        let clock = ManualPlaybackClock()
        let player = AnimatedImagePlayer(image: lazy, clock: clock, prefetchCount: 0)
        player.play()
        clock.set(to: 0.2)
        player.update()
        await player.waitForPrefetch()
        #expect(lazy.framesDrawn == 0)
        #expect(player.currentFrameIndex == 2)  // 70 + 90 ms, then frame 2
        _ = try player.currentFrame()
        #expect(lazy.framesDrawn == 3)
    }

    @Test func timelineHandlesEdgeCases() {
        let single = PlaybackTimeline(durations: [0], mode: .bounce, loopCount: 0)
        #expect(single.steps == [0])
        #expect(single.loopDuration == PlaybackTimeline.fallbackDuration)
        #expect(single.position(at: 0.35).loop == 3)
        let two = PlaybackTimeline(durations: [1, 1], mode: .bounce, loopCount: 0)
        #expect(two.steps == [0, 1])
        let bounce = PlaybackTimeline(durations: [1, 1, 1, 1], mode: .reversedBounce, loopCount: 0)
        #expect(bounce.steps == [3, 2, 1, 0, 1, 2])
        let forever = PlaybackTimeline(durations: [0.5, 0.5], mode: .normal, loopCount: 0)
        #expect(forever.position(at: .nan).frameIndex == 0)
        #expect(forever.position(at: -3).frameIndex == 0)
        #expect(forever.position(at: 1e300).isFinished == false)
        #expect(forever.totalDuration == nil)
    }
}
