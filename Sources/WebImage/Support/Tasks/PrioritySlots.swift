/// At most `width` pieces of work at once; the rest wait, the highest priority first, then in the order their
/// places were reserved (or the reverse, for LIFO). A waiter's priority may change while it waits, which moves it
/// in the line.
///
/// The line is decided when a place is reserved (``reserve(_:priority:)``, synchronously, in the order callers
/// asked), not when the work's task first runs: tasks start in no particular order, and a queue that admitted
/// them as they happened to arrive would be neither FIFO nor LIFO.
final class PrioritySlots: Sendable {
    /// The order waiters of equal priority are let in.
    enum Order: Sendable {
        case fifo
        case lifo
    }

    /// One piece of work's place in line. Reserve it when the work is created; the work then runs in it.
    final class Place: Sendable {
        init() {}
    }

    private struct Waiter {
        let place: ObjectIdentifier
        let number: Int
        var priority: ImagePriority
        /// Set when the work's task arrives to wait; until then an admitted waiter keeps its slot for it.
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var width: Int
        var running = 0
        var waiting: [Waiter] = []
        /// Places let in before their work arrived: each holds a running slot.
        var admitted: Set<ObjectIdentifier> = []
        /// Places reserved so far, with their number in line (for work that arrives before its reservation).
        var reserved: Set<ObjectIdentifier> = []
        var nextNumber = 0

        /// Removes and returns the waiter to let in next.
        mutating func popBest(order: Order) -> Waiter? {
            guard let best = waiting.indices.max(by: { lhs, rhs in
                let (a, b) = (waiting[lhs], waiting[rhs])
                if a.priority != b.priority { return a.priority < b.priority }
                return order == .fifo ? a.number > b.number : a.number < b.number
            }) else { return nil }
            return waiting.remove(at: best)
        }

        /// Lets waiters in while slots are free; returns the continuations to resume.
        mutating func admit(order: Order) -> [CheckedContinuation<Void, any Error>] {
            var resumed: [CheckedContinuation<Void, any Error>] = []
            while running < width, let next = popBest(order: order) {
                running += 1
                if let continuation = next.continuation { resumed.append(continuation) } else { admitted.insert(next.place) }
            }
            return resumed
        }

        /// Takes `place` in line (once): straight into a free slot when nobody waits, else behind the others.
        mutating func reserve(_ place: ObjectIdentifier, priority: ImagePriority) {
            guard reserved.insert(place).inserted else { return }
            defer { nextNumber += 1 }
            if running < width && waiting.isEmpty {
                running += 1
                admitted.insert(place)
            } else {
                waiting.append(Waiter(place: place, number: nextNumber, priority: priority))
            }
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
            let resumed = state.withLock { state in
                state.width = max(1, newValue)
                return state.admit(order: order)
            }
            for continuation in resumed { continuation.resume() }
        }
    }

    /// Running now (including places admitted whose work has not arrived yet).
    var running: Int { state.withLock { $0.running } }
    /// Waiting now.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Takes `place` in line at `priority`. Call it when the work is created, in the order callers asked; calling
    /// it again (or after the work arrived) does nothing.
    func reserve(_ place: Place, priority: ImagePriority) {
        state.withLock { $0.reserve(ObjectIdentifier(place), priority: priority) }
    }

    /// Runs `body` in a slot for `work`, waiting in `place` first at the work's priority, which it follows while it
    /// waits. A task cancelled while waiting throws ``ImageError/Code/cancelled`` and never runs `body`.
    func run<Value: Sendable, Update: Sendable, T: Sendable>(in place: Place, for work: SharedTask<Value, Update>,
                                                            _ body: () async throws -> T) async throws -> T {
        try await acquire(place, for: work)
        defer { release(place) }
        return try await body()
    }

    /// Runs `body` in a slot for `work`, taking a place in line when it gets here (for work whose tasks are
    /// already ordered by the stages above it).
    func run<Value: Sendable, Update: Sendable, T: Sendable>(for work: SharedTask<Value, Update>,
                                                            _ body: () async throws -> T) async throws -> T {
        try await run(in: Place(), for: work, body)
    }

    private func acquire<Value: Sendable, Update: Sendable>(_ place: Place, for work: SharedTask<Value, Update>)
        async throws {
        let id = ObjectIdentifier(place)
        let admitted = state.withLock { state -> Bool in
            state.reserve(id, priority: work.priority)
            return state.admitted.remove(id) != nil
        }
        if admitted { return }
        // Observers may run out of order on different threads: each reads the work's priority as it is now.
        work.observePriority { [weak self, weak work] _ in
            guard let self, let priority = work?.priority else { return }
            state.withLock { state in
                if let index = state.waiting.firstIndex(where: { $0.place == id }) { state.waiting[index].priority = priority }
            }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool? in
                    if state.admitted.remove(id) != nil { return true }
                    guard let index = state.waiting.firstIndex(where: { $0.place == id }), !Task.isCancelled else {
                        state.waiting.removeAll { $0.place == id }
                        state.reserved.remove(id)
                        return false
                    }
                    // Read after the observer was registered, so no change is missed.
                    state.waiting[index].priority = work.priority
                    state.waiting[index].continuation = continuation
                    return nil
                }
                switch ready {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: ImageError(.cancelled, "cancelled while queued"))
                case nil: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.place == id && $0.continuation != nil })
                else { return nil }
                state.reserved.remove(id)
                return state.waiting.remove(at: index)
            }
            waiter?.continuation?.resume(throwing: ImageError(.cancelled, "cancelled while queued"))
        }
    }

    /// Frees the slot `place` held and lets the best waiter in.
    private func release(_ place: Place) {
        let resumed = state.withLock { state in
            state.reserved.remove(ObjectIdentifier(place))
            state.running -= 1
            return state.admit(order: order)
        }
        for continuation in resumed { continuation.resume() }
    }
}
