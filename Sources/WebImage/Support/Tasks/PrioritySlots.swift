/// At most `width` pieces of work at once; the rest wait, the highest priority first, then in arrival order
/// (or the reverse, for LIFO). A waiter's priority may change while it waits, which moves it in the line.
final class PrioritySlots: Sendable {
    /// The order waiters of equal priority are let in.
    enum Order: Sendable {
        case fifo
        case lifo
    }

    private struct Waiter {
        let id: Int
        var priority: ImagePriority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var width: Int
        var running = 0
        var waiting: [Waiter] = []
        var nextID = 0

        /// Removes and returns the waiter to let in next.
        mutating func popBest(order: Order) -> Waiter? {
            guard let best = waiting.indices.max(by: { lhs, rhs in
                let (a, b) = (waiting[lhs], waiting[rhs])
                if a.priority != b.priority { return a.priority < b.priority }
                return order == .fifo ? a.id > b.id : a.id < b.id
            }) else { return nil }
            return waiting.remove(at: best)
        }
    }

    private let order: Order
    private let state: Locked<State>

    init(width: Int, order: Order = .fifo) {
        self.order = order
        state = Locked(State(width: max(1, width)))
    }

    /// How many may run at once; raising it lets waiters in at once.
    var width: Int {
        get { state.withLock { $0.width } }
        set {
            let admitted = state.withLock { state -> [Waiter] in
                state.width = max(1, newValue)
                var admitted: [Waiter] = []
                while state.running < state.width, let next = state.popBest(order: order) {
                    state.running += 1
                    admitted.append(next)
                }
                return admitted
            }
            for waiter in admitted { waiter.continuation.resume() }
        }
    }

    /// Running now.
    var running: Int { state.withLock { $0.running } }
    /// Waiting now.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` in a slot for `work`, waiting for one first at the work's priority, which it follows while it
    /// waits. A task cancelled while waiting throws ``ImageError/Code/cancelled`` and never runs `body`.
    func run<Value: Sendable, Update: Sendable, T: Sendable>(for work: SharedTask<Value, Update>,
                                         _ body: () async throws -> T) async throws -> T {
        try await acquire(for: work)
        defer { release() }
        return try await body()
    }

    private func acquire<Value: Sendable, Update: Sendable>(for work: SharedTask<Value, Update>) async throws {
        let id = state.withLock { state -> Int? in
            if state.running < state.width {
                state.running += 1
                return nil
            }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return }
        // Observers may run out of order on different threads: each reads the work's priority as it is now.
        work.observePriority { [weak self, weak work] _ in
            guard let self, let priority = work?.priority else { return }
            state.withLock { state in
                if let index = state.waiting.firstIndex(where: { $0.id == id }) { state.waiting[index].priority = priority }
            }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    // Read after the observer was registered, so no change is missed.
                    state.waiting.append(Waiter(id: id, priority: work.priority, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: ImageError(.cancelled, "cancelled while queued")) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(throwing: ImageError(.cancelled, "cancelled while queued"))
        }
    }

    /// Frees a slot, handing it straight to the best waiter.
    private func release() {
        let next = state.withLock { state -> Waiter? in
            if state.running <= state.width, let next = state.popBest(order: order) { return next }
            state.running -= 1
            return nil
        }
        next?.continuation.resume()
    }
}
