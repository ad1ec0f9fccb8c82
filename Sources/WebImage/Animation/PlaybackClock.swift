/// The time source of an ``AnimatedImagePlayer``: seconds on a monotonic scale whose origin does not matter.
/// Inject a clock of your own (`now` set by hand) to make playback deterministic: tests, frames at chosen times.
public protocol PlaybackClock: Sendable {
    /// The current time in seconds; never goes backwards.
    var now: Double { get }
}

/// The real time: seconds since the clock was made, from the system's monotonic `ContinuousClock`.
public struct SystemPlaybackClock: PlaybackClock {
    private let origin: ContinuousClock.Instant

    /// A clock reading 0 now.
    public init() {
        origin = ContinuousClock.now
    }

    /// Seconds since the clock was made.
    public var now: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}

/// A clock that moves only when told to: for tests and for rendering an animation at chosen times.
package final class ManualPlaybackClock: PlaybackClock {
    private let time: Locked<Double>

    /// A clock reading `now` seconds.
    package init(now: Double = 0) {
        time = Locked(now)
    }

    /// The time the clock was set to.
    package var now: Double { time.withLock { $0 } }

    /// Moves the clock forward by `seconds` (negative or non-finite amounts are ignored: time never goes back).
    package func advance(by seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        time.withLock { $0 += seconds }
    }

    /// Sets the clock to `seconds` if that is later than now.
    package func set(to seconds: Double) {
        guard seconds.isFinite else { return }
        time.withLock { $0 = max($0, seconds) }
    }
}
