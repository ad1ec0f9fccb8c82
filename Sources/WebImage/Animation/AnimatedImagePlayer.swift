/// Plays an ``AnimatedImage``: which frame is current at each moment (SDWebImage's SDAnimatedImagePlayer role).
///
/// **Time, not ticks.** The current frame follows from the time read from ``clock``: animation time advances
/// at ``playbackRate`` while playing, and each frame is shown for its duration, in ``mode`` order, for
/// ``loopCount`` loops. A slow caller therefore skips frames rather than slowing the animation down, like video.
/// With a clock that advances only when told (see ``PlaybackClock``) everything is deterministic.
///
/// **Driving it.** The player has no timer. Whoever shows the frames (a display link, a render loop, a task that
/// sleeps until ``nextFrameChangeTime``) calls ``update()`` when it wants to draw, then draws ``currentFrame()``
/// (or ``cachedCurrentFrame()`` to never wait for a decode). For example:
///
/// ```swift
/// let player = AnimatedImagePlayer(image: animation)
/// player.play()
/// while !Task.isCancelled, player.update().isPlaying {
///     show(try player.currentFrame())
///     guard let next = player.nextFrameChangeTime else { break }
///     try await Task.sleep(for: .seconds(next - player.clock.now))
/// }
/// ```
///
/// **Rate.** 1 is normal speed, 2 twice as fast, 0.5 half; 0 holds the current frame while staying "playing".
/// Negative rates are not supported (use ``PlaybackMode/reverse``): rates below 0 and NaN are taken as 0, and
/// rates above 100 as 100.
///
/// **Loops.** With a finite ``loopCount`` the player stops after that many loops on the last frame it showed
/// (the last frame of the last loop in ``mode`` order), reports ``State/isFinished`` and sends
/// ``Event/finished(frameIndex:)`` once. ``play()`` after that starts over.
///
/// **Prefetching.** While playing, ``update()`` asks the image, in a background task, to decode the current frame
/// and the next ``prefetchCount`` frames in play order, so they are usually buffered before they are due.
///
/// All methods may be called from any thread or task.
public final class AnimatedImagePlayer: Sendable {
    /// A snapshot of the playback.
    public struct State: Sendable, Equatable {
        /// The frame to show now.
        public var frameIndex: Int
        /// The loop being played, from 0 (the last loop once finished).
        public var loop: Int
        /// Seconds of animation played since the start, at rate 1, counting earlier loops.
        public var time: Double
        /// Whether time is running (false when paused, stopped or finished).
        public var isPlaying: Bool
        /// Whether the last loop has ended.
        public var isFinished: Bool
    }

    /// What ``events()`` reports.
    public enum Event: Sendable, Equatable {
        /// The frame to show changed (or a new loop began on the same frame).
        case frameChanged(frameIndex: Int, loop: Int)
        /// The last loop ended; `frameIndex` stays shown.
        case finished(frameIndex: Int)
    }

    /// The highest accepted ``playbackRate``.
    public static let maximumPlaybackRate = 100.0

    /// The animation played.
    public let image: AnimatedImage
    /// Where time comes from.
    public let clock: any PlaybackClock
    /// Loops to play; 0 means forever.
    public let loopCount: Int
    /// Frames after the current one decoded ahead of time while playing (0 turns prefetching off).
    public let prefetchCount: Int

    let core: Locked<PlayerCore>

    /// Creates a stopped player at the start of the first loop.
    ///
    /// - Parameters:
    ///   - loopCount: loops to play; `nil` takes the image's own loop count (0 = forever).
    ///   - prefetchCount: frames decoded ahead of the current one while playing.
    public init(
        image: AnimatedImage, clock: any PlaybackClock = SystemPlaybackClock(), mode: PlaybackMode = .normal,
        playbackRate: Double = 1, loopCount: Int? = nil, prefetchCount: Int = 2
    ) {
        self.image = image
        self.clock = clock
        self.loopCount = max(loopCount ?? image.loopCount, 0)
        self.prefetchCount = max(prefetchCount, 0)
        let timeline = PlaybackTimeline(durations: image.frameDurations, mode: mode, loopCount: self.loopCount)
        core = Locked(PlayerCore(timeline: timeline, mode: mode, rate: Self.clamped(playbackRate), now: clock.now))
    }

    // MARK: - Reading the playback

    /// The playback now (reads the clock; sends no events).
    public var state: State {
        let now = clock.now
        return core.withLock { $0.state(at: now) }
    }

    /// The frame to show now.
    public var currentFrameIndex: Int { state.frameIndex }

    /// The order frames are shown in.
    public var mode: PlaybackMode {
        get { core.withLock { $0.mode } }
        set { command { core, now in core.setMode(newValue, durations: image.frameDurations, at: now) } }
    }

    /// Speed of animation time relative to the clock; see the type's documentation for the accepted range.
    public var playbackRate: Double {
        get { core.withLock { $0.rate } }
        set { command { core, now in core.setRate(Self.clamped(newValue), at: now) } }
    }

    /// The clock time at which the shown frame will change, or `nil` when it will not (paused, rate 0, finished).
    public var nextFrameChangeTime: Double? {
        let now = clock.now
        return core.withLock { $0.nextChangeTime(at: now) }
    }

    // MARK: - Controlling playback

    /// Starts or resumes playing; after the last loop ended, starts over from the beginning.
    public func play() { command { core, now in core.play(at: now) } }

    /// Stops time where it is; ``play()`` resumes from the same point.
    public func pause() { command { core, now in core.pause(at: now) } }

    /// Stops and goes back to the start of the first loop.
    public func stop() { command { core, now in core.stop(at: now) } }

    /// Jumps to the start of frame `frameIndex` (clamped to the frames) in `loop` (the current loop when `nil`,
    /// clamped to the loops). In the bounce modes, the first time the loop shows that frame. Playing or paused
    /// stays as it was.
    public func seek(toFrame frameIndex: Int, loop: Int? = nil) {
        let frame = min(max(frameIndex, 0), image.frameCount - 1)
        command { core, now in core.seek(toFrame: frame, loop: loop, at: now) }
    }

    /// Jumps to `time` seconds of animation from the start (loop `k` starts at `k` times one loop's length),
    /// clamped to the playback's length. Playing or paused stays as it was.
    public func seek(toTime time: Double) { command { core, now in core.seek(toTime: time, at: now) } }

    /// Reads the clock and brings the playback up to date: sends ``Event/frameChanged(frameIndex:loop:)`` and
    /// ``Event/finished(frameIndex:)`` as they happen, starts prefetching, and returns the state.
    @discardableResult
    public func update() -> State {
        command { _, _ in }
    }

    // MARK: - Frames

    /// The current frame's pixels, decoded now if they are not buffered.
    public func currentFrame() throws -> ImageFrame {
        try image.frame(at: currentFrameIndex)
    }

    /// The current frame if it is ready without decoding, else `nil` (keep showing the previous one).
    public func cachedCurrentFrame() -> ImageFrame? {
        image.cachedFrame(at: currentFrameIndex)
    }

    /// Drops the image's decoded frames (SDWebImage's `clearFrameBuffer`); they are decoded again when needed.
    public func clearBuffer() {
        image.clearBuffer()
    }

    // MARK: - Events

    /// A stream of ``Event``s from now on, sent as ``update()`` and the commands find changes (the first one says
    /// which frame is current). Each call makes a new stream; it keeps the newest 64 events if not read.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let id = core.withLock { core in
            let id = core.nextSubscriberID
            core.nextSubscriberID += 1
            core.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.core.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Waits until every prefetch started so far has finished (for tests, and for callers that want frames ready).
    public func waitForPrefetch() async {
        await core.withLock { $0.prefetchTask }?.value
    }

    deinit {
        let subscribers = core.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: - Internals

    /// Runs `change` on the state at the clock's time, then sends the events it caused (under the lock, so every
    /// subscriber sees them in order) and starts prefetching.
    @discardableResult
    private func command(_ change: (inout PlayerCore, Double) -> Void) -> State {
        let now = clock.now
        return core.withLock { core in
            change(&core, now)
            let (state, position) = core.advance(to: now)
            core.takeEvents(for: state).send()
            if core.isPlaying, let frames = upcomingFrames(after: position, in: core.timeline),
               frames != core.lastPrefetch {
                core.lastPrefetch = frames
                // Each prefetch waits for the one before: decodes take turns anyway, and waiting for the latest
                // task then means waiting for all of them.
                let image = self.image, previous = core.prefetchTask
                core.prefetchTask = Task.detached(priority: .utility) {
                    await previous?.value
                    image.prefetchFrames(frames)
                }
            }
            return state
        }
    }

    /// The frame at `position` and the next ``prefetchCount`` frames in play order (not past the last loop).
    private func upcomingFrames(after position: PlaybackTimeline.Position, in timeline: PlaybackTimeline) -> [Int]? {
        guard prefetchCount > 0 else { return nil }
        var frames = [position.frameIndex]
        var step = position.step, loop = position.loop
        while frames.count <= prefetchCount {
            step += 1
            if step == timeline.steps.count {
                step = 0
                loop += 1
                if timeline.loopCount > 0 && loop >= timeline.loopCount { break }
            }
            let frame = timeline.steps[step]
            if frames.contains(frame) { break }
            frames.append(frame)
        }
        return frames
    }

    private static func clamped(_ rate: Double) -> Double {
        rate > 0 ? min(rate, maximumPlaybackRate) : 0
    }
}
