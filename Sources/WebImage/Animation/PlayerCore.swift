/// The state of an ``AnimatedImagePlayer`` and the rules that change it, kept under the player's lock.
///
/// Animation time is kept as an anchor: at clock time ``anchorClock`` it was ``anchorTime``, and while playing it
/// runs at ``rate`` from there. Every change (pause, rate, seek) first re-anchors at the present, so time is
/// continuous and nothing accumulates rounding from one update to the next.
struct PlayerCore {
    var timeline: PlaybackTimeline
    var mode: PlaybackMode
    var rate: Double
    var isPlaying = false
    var anchorClock: Double
    var anchorTime = 0.0

    /// The last frame and loop sent to subscribers, and whether the end was.
    private var reported: (frameIndex: Int, loop: Int)?
    private var finishedReported = false
    var subscribers: [Int: AsyncStream<AnimatedImagePlayer.Event>.Continuation] = [:]
    var nextSubscriberID = 0

    /// The frames the latest prefetch asked for, and its task.
    var lastPrefetch: [Int] = []
    var prefetchTask: Task<Void, Never>?

    init(timeline: PlaybackTimeline, mode: PlaybackMode, rate: Double, now: Double) {
        self.timeline = timeline
        self.mode = mode
        self.rate = rate
        anchorClock = now
    }

    /// Animation time at clock time `now`.
    func time(at now: Double) -> Double {
        guard isPlaying else { return anchorTime }
        return anchorTime + max(now - anchorClock, 0) * rate
    }

    func state(at now: Double) -> AnimatedImagePlayer.State {
        let time = self.time(at: now)
        return state(time: time, position: timeline.position(at: time))
    }

    private func state(time: Double, position: PlaybackTimeline.Position) -> AnimatedImagePlayer.State {
        AnimatedImagePlayer.State(
            frameIndex: position.frameIndex, loop: position.loop, time: min(time, timeline.totalDuration ?? time),
            isPlaying: isPlaying && !position.isFinished, isFinished: position.isFinished)
    }

    /// The state at `now`; playing past the end stops there.
    mutating func advance(to now: Double) -> (state: AnimatedImagePlayer.State, position: PlaybackTimeline.Position) {
        let time = self.time(at: now)
        let position = timeline.position(at: time)
        if position.isFinished && isPlaying, let total = timeline.totalDuration {
            isPlaying = false
            anchorTime = total
            anchorClock = now
        }
        return (state(time: time, position: position), position)
    }

    // MARK: - Commands

    mutating func play(at now: Double) {
        if timeline.position(at: time(at: now)).isFinished {
            anchorTime = 0
        } else {
            anchorTime = time(at: now)
        }
        anchorClock = now
        isPlaying = true
    }

    mutating func pause(at now: Double) {
        reanchor(at: now)
        isPlaying = false
    }

    mutating func stop(at now: Double) {
        isPlaying = false
        anchorTime = 0
        anchorClock = now
    }

    mutating func setRate(_ newRate: Double, at now: Double) {
        reanchor(at: now)
        rate = newRate
    }

    mutating func seek(toFrame frameIndex: Int, loop: Int?, at now: Double) {
        let current = timeline.position(at: time(at: now))
        let lastLoop = timeline.loopCount > 0 ? timeline.loopCount - 1 : Int.max / 2
        let targetLoop = min(max(loop ?? current.loop, 0), lastLoop)
        guard let step = timeline.firstStep(showing: frameIndex) else { return }
        anchorTime = timeline.time(ofStep: step, loop: targetLoop)
        anchorClock = now
    }

    mutating func seek(toTime time: Double, at now: Double) {
        var target = time > 0 ? time : 0  // NaN and negative times go to the start
        if let total = timeline.totalDuration { target = min(target, total) }
        if !target.isFinite { target = 0 }
        anchorTime = target
        anchorClock = now
    }

    /// Changes the order of frames, keeping the frame shown (at its first step in the new order) and the loop.
    mutating func setMode(_ newMode: PlaybackMode, durations: [Double], at now: Double) {
        let current = timeline.position(at: time(at: now))
        timeline = PlaybackTimeline(durations: durations, mode: newMode, loopCount: timeline.loopCount)
        mode = newMode
        seek(toFrame: current.frameIndex, loop: current.loop, at: now)
    }

    /// When the shown frame changes next, in clock time.
    func nextChangeTime(at now: Double) -> Double? {
        guard isPlaying, rate > 0 else { return nil }
        let time = self.time(at: now)
        let position = timeline.position(at: time)
        guard !position.isFinished else { return nil }
        let boundary = Double(position.loop) * timeline.loopDuration + timeline.stepStarts[position.step + 1]
        return now + max(boundary - time, 0) / rate
    }

    private mutating func reanchor(at now: Double) {
        anchorTime = time(at: now)
        anchorClock = now
    }

    // MARK: - Events

    /// The events `state` calls for since the last report, with the subscribers to send them to.
    mutating func takeEvents(for state: AnimatedImagePlayer.State) -> EventDelivery {
        var events: [AnimatedImagePlayer.Event] = []
        if reported?.frameIndex != state.frameIndex || reported?.loop != state.loop {
            events.append(.frameChanged(frameIndex: state.frameIndex, loop: state.loop))
            reported = (state.frameIndex, state.loop)
        }
        if state.isFinished && !finishedReported {
            events.append(.finished(frameIndex: state.frameIndex))
        }
        finishedReported = state.isFinished
        return EventDelivery(events: events, subscribers: events.isEmpty ? [] : Array(subscribers.values))
    }
}

/// The events one change caused, with the subscribers to send them to (sent under the player's lock, so every
/// subscriber sees them in order; yielding to an AsyncStream never blocks).
struct EventDelivery {
    let events: [AnimatedImagePlayer.Event]
    let subscribers: [AsyncStream<AnimatedImagePlayer.Event>.Continuation]

    func send() {
        for subscriber in subscribers {
            for event in events { subscriber.yield(event) }
        }
    }
}
