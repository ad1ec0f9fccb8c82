import Foundation

/// A token-bucket limit on how fast network requests start: up to `burst` at once, then `perSecond` on
/// average.
public struct RateLimit: Sendable, Equatable {
    /// Requests that may start back to back after a quiet period.
    public var burst: Int
    /// Requests per second sustained.
    public var perSecond: Double

    /// Creates a limit; `burst` is at least 1 and `perSecond` above 0.
    public init(burst: Int, perSecond: Double) {
        self.burst = max(1, burst)
        self.perSecond = max(0.001, perSecond)
    }
}

/// The bucket behind ``RateLimit``. Each request takes a token; when none is left it reserves the next one,
/// so waiters are served in arrival order and the balance may go negative by the number waiting.
final class TokenBucket: Sendable {
    private struct State {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let limit: RateLimit
    private let state: Locked<State>

    init(limit: RateLimit, now: ContinuousClock.Instant = .now) {
        self.limit = limit
        state = Locked(State(tokens: Double(limit.burst), updated: now))
    }

    /// Takes a token at `now` and returns how long to wait before using it (zero when one was available).
    func reserve(now: ContinuousClock.Instant) -> Duration {
        state.withLock { state in
            let elapsed = RetryPolicy.seconds(now - state.updated)
            if elapsed > 0 {
                state.tokens = min(Double(limit.burst), state.tokens + elapsed * limit.perSecond)
                state.updated = now
            }
            state.tokens -= 1
            return state.tokens >= 0 ? .zero : .seconds(-state.tokens / limit.perSecond)
        }
    }

    /// Gives back a token reserved by a request that was cancelled before it used it.
    func refund() {
        state.withLock { $0.tokens = min(Double(limit.burst), $0.tokens + 1) }
    }

    /// Waits for a token; throws `CancellationError` (and refunds the token) when the task is cancelled.
    func acquire() async throws {
        let wait = reserve(now: .now)
        guard wait > .zero else { return }
        do {
            try await Task.sleep(for: wait)
        } catch {
            refund()
            throw error
        }
    }
}
