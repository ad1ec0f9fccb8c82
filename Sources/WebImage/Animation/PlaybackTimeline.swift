/// The order in which an ``AnimatedImagePlayer`` shows frames. One loop of each mode, for frames 0…n−1:
///
/// - ``normal``: 0, 1, …, n−1
/// - ``reverse``: n−1, …, 1, 0
/// - ``bounce``: 0, 1, …, n−1, n−2, …, 1 (the next loop starts again at 0, so no frame shows twice in a row)
/// - ``reversedBounce``: n−1, …, 0, 1, …, n−2
///
/// A loop of a bounce mode is the whole way there and back: it lasts nearly twice as long as a normal loop.
public enum PlaybackMode: Sendable, Hashable, CaseIterable {
    case normal, reverse, bounce, reversedBounce
}

/// Where an animation is at a given time: the arithmetic of ``AnimatedImagePlayer``, without clock or state.
///
/// One loop is a sequence of steps (frame indices in ``PlaybackMode`` order), each shown for its frame's duration.
/// A time `t` (seconds of animation, at rate 1, from the start of the first loop) falls in loop `⌊t / L⌋` for a
/// loop of length `L`, and within it in the step whose span `[start, start + duration)` contains the remainder.
/// With a finite loop count, times at or past the end show the last step of the last loop, finished.
struct PlaybackTimeline: Sendable {
    /// A time's place in the timeline.
    struct Position: Equatable {
        var loop: Int
        var step: Int
        var frameIndex: Int
        var isFinished: Bool
    }

    /// The frame shown at each step of one loop.
    let steps: [Int]
    /// When each step starts within a loop; one more entry than ``steps``, the last being the loop's length.
    let stepStarts: [Double]
    /// Loops to play; 0 means forever.
    let loopCount: Int

    /// Durations that are not positive and finite play for 0.1 s, so that every loop has a length.
    static let fallbackDuration = 0.1

    init(durations: [Double], mode: PlaybackMode, loopCount: Int) {
        let count = max(durations.count, 1)
        let forward = Array(0..<count), backward = Array(forward.reversed())
        switch mode {
        case .normal: steps = forward
        case .reverse: steps = backward
        case .bounce: steps = count > 2 ? forward + backward.dropFirst().dropLast() : forward
        case .reversedBounce: steps = count > 2 ? backward + forward.dropFirst().dropLast() : backward
        }
        var starts = [0.0]
        starts.reserveCapacity(steps.count + 1)
        for frame in steps {
            let duration = durations.indices.contains(frame) ? durations[frame] : 0
            let shown = duration.isFinite && duration > 0 ? duration : Self.fallbackDuration
            starts.append(starts[starts.count - 1] + shown)
        }
        stepStarts = starts
        self.loopCount = max(loopCount, 0)
    }

    /// The length of one loop in seconds.
    var loopDuration: Double { stepStarts[stepStarts.count - 1] }

    /// The length of the whole playback, or `nil` when it loops forever.
    var totalDuration: Double? { loopCount > 0 ? Double(loopCount) * loopDuration : nil }

    /// Where the animation is `time` seconds after it started (negative or NaN times count as 0).
    func position(at time: Double) -> Position {
        let time = time > 0 ? time : 0
        let lastStep = steps.count - 1
        if let total = totalDuration, time >= total {
            return Position(loop: loopCount - 1, step: lastStep, frameIndex: steps[lastStep], isFinished: true)
        }
        let loops = (time / loopDuration).rounded(.down)
        var loop = loops < Double(Int.max / 2) ? Int(loops) : Int.max / 2
        var within = time - Double(loop) * loopDuration
        if !within.isFinite || within < 0 || within >= loopDuration {
            within = time.truncatingRemainder(dividingBy: loopDuration)
            if within < 0 { within = 0 }
            if loopCount > 0 { loop = min(loop, loopCount - 1) }
        }
        let step = self.step(containing: within)
        return Position(loop: loop, step: step, frameIndex: steps[step], isFinished: false)
    }

    /// The time at which `step` of `loop` starts.
    func time(ofStep step: Int, loop: Int) -> Double {
        Double(max(loop, 0)) * loopDuration + stepStarts[min(max(step, 0), steps.count - 1)]
    }

    /// The first step of a loop that shows `frameIndex`.
    func firstStep(showing frameIndex: Int) -> Int? {
        steps.firstIndex(of: frameIndex)
    }

    /// The last step whose start is at or before `offset` within a loop (binary search).
    private func step(containing offset: Double) -> Int {
        var low = 0, high = steps.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if stepStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
