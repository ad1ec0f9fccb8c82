import WebImage

/// Stops asking a server that keeps failing. Closed, every request goes through; after `threshold` failures in a
/// row it opens and refuses requests for `openTime`; then it lets one request through (half-open): a success
/// closes it, a failure opens it again. A cache behind it answers "miss" at once while it is open, instead of
/// making every request wait for a timeout.
final class CircuitBreaker: Sendable {
    enum State: Equatable {
        case closed(failures: Int)
        case open(until: ContinuousClock.Instant)
        /// One trial request is out.
        case halfOpen
    }

    private let state = Locked(State.closed(failures: 0))
    let threshold: Int
    let openTime: Duration

    init(threshold: Int = 3, openTime: Duration = .seconds(1)) {
        self.threshold = max(1, threshold)
        self.openTime = openTime
    }

    /// Whether a request may go to the server now. In the open state, the first call after `openTime` is let
    /// through as the trial and moves the breaker to half-open.
    func allowsRequest(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            switch state {
            case .closed: return true
            case .halfOpen: return false
            case .open(let until):
                guard now >= until else { return false }
                state = .halfOpen
                return true
            }
        }
    }

    func recordSuccess() {
        state.withLock { $0 = .closed(failures: 0) }
    }

    func recordFailure(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            switch state {
            case .closed(let failures) where failures + 1 < threshold:
                state = .closed(failures: failures + 1)
            case .closed, .halfOpen:
                state = .open(until: now + openTime)
            case .open:
                break  // answers to requests sent before it opened
            }
        }
    }

    /// Whether requests are being refused or tried one at a time: the tier is degraded.
    var isOpen: Bool {
        state.withLock { state in
            if case .closed = state { return false }
            return true
        }
    }
}
