/// A time limit that counts only the time its owner was awake: each call to ``remains()`` adds the time since the
/// previous call, but at most ``longestStep``, so a stretch in which the owner could not run at all (every thread
/// busy elsewhere) costs no more than one ordinary step.
///
/// Tests wait for conditions with it instead of with a wall-clock deadline, so that a slow neighbour on a loaded
/// machine delays a test without failing it, while a condition that never holds still fails after `limit`.
public struct AwakeTimeBudget: Sendable {
    /// The most one step may count: a waiter that looks every few milliseconds is starved if a step takes longer.
    public static let longestStep: Duration = .milliseconds(100)

    private let limit: Duration
    private let clock = ContinuousClock()
    private var spent: Duration = .zero
    private var lastLook: ContinuousClock.Instant

    /// A budget of `limit`, starting now.
    public init(limit: Duration) {
        self.limit = limit
        self.lastLook = clock.now
    }

    /// Counts the time since the last look (capped at ``longestStep``) and says whether any budget is left.
    public mutating func remains() -> Bool {
        let now = clock.now
        spent += min(now - lastLook, Self.longestStep)
        lastLook = now
        return spent < limit
    }
}
