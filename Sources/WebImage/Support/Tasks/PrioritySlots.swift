/// At most `width` pieces of work at once; the rest wait, the highest priority first, then in the order their
/// places were reserved (or the reverse, for LIFO). A waiter's priority may change while it waits, which moves it
/// in the line. With a `queueLimit`, work that would wait behind that many others is refused at once.
///
/// With a `widthPerGroup`, work whose place names a group (a download's origin) runs at most that many of its
/// group at once. A waiter whose group is at its width is passed over, keeping its place, until one of its group
/// ends: the next free slot goes to the best waiter whose group has room, so a group at its width never holds up
/// the line behind it. Work without a group counts only against `width`.
///
/// The line is decided when a place is reserved (``reserve(_:priority:)``, synchronously, in the order callers
/// asked), not when the work's task first runs: tasks start in no particular order, and a queue that admitted
/// them as they happened to arrive would be neither FIFO nor LIFO.
///
/// A place goes through its stages once: new, in line (waiting or holding a slot), done. The stage lives in the
/// place itself, so a reservation that comes late (after the work already ran and gave its slot back, which
/// happens when the work's task outruns the caller that reserved for it) finds the place done and takes nothing:
/// were it to take a slot then, nobody would ever give that slot back.
package final class PrioritySlots: Sendable {
    /// The order waiters of equal priority are let in.
    package enum Order: Sendable {
        case fifo
        case lifo
    }

    /// One piece of work's place in line. Reserve it when the work is created; the work then runs in it.
    package final class Place: Sendable {
        fileprivate enum Stage { case new, inLine, done }
        /// Read and written only under the slots' lock; its own lock makes the class safely shareable.
        fileprivate let stage = Locked(Stage.new)
        /// The group whose work shares ``PrioritySlots/widthPerGroup`` slots; `nil` for work of no group.
        let group: String?

        /// A place for work of `group` (`nil`: no group, bound by the width alone).
        package init(group: String? = nil) {
            self.group = group
        }
    }

    private struct Waiter {
        let place: Place
        let number: Int
        var priority: ImagePriority
        /// Set when the work's task arrives to wait; until then an admitted waiter keeps its slot for it.
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var width: Int
        var widthPerGroup: Int?
        let queueLimit: Int
        var running = 0
        /// Running work by group (groups with none running are absent).
        var runningByGroup: [String: Int] = [:]
        var waiting: [Waiter] = []
        /// Places let in before their work arrived: each holds a running slot.
        var admitted: [ObjectIdentifier: Place] = [:]
        var nextNumber = 0

        /// Whether work of `group` may take a free slot: no group, no width per group, or room under it.
        func hasRoom(for group: String?) -> Bool {
            guard let group, let widthPerGroup else { return true }
            return runningByGroup[group, default: 0] < widthPerGroup
        }

        /// Removes and returns the waiter to let in next: the best of those whose group has room.
        mutating func popBest(order: Order) -> Waiter? {
            var best: Int?
            for index in waiting.indices where hasRoom(for: waiting[index].place.group) {
                guard let current = best else {
                    best = index
                    continue
                }
                let (candidate, leader) = (waiting[index], waiting[current])
                let goesFirst = candidate.priority != leader.priority
                    ? candidate.priority > leader.priority
                    : (order == .fifo ? candidate.number < leader.number : candidate.number > leader.number)
                if goesFirst { best = index }
            }
            guard let best else { return nil }
            return waiting.remove(at: best)
        }

        /// Counts `place`'s work as running.
        mutating func start(_ place: Place) {
            running += 1
            if let group = place.group { runningByGroup[group, default: 0] += 1 }
        }

        /// Counts `place`'s work as ended.
        mutating func end(_ place: Place) {
            running -= 1
            guard let group = place.group, let count = runningByGroup[group] else { return }
            runningByGroup[group] = count > 1 ? count - 1 : nil
        }

        /// Lets waiters in while slots are free; returns the continuations to resume.
        mutating func admit(order: Order) -> [CheckedContinuation<Void, any Error>] {
            var resumed: [CheckedContinuation<Void, any Error>] = []
            while running < width, let next = popBest(order: order) {
                start(next.place)
                if let continuation = next.continuation {
                    resumed.append(continuation)
                } else {
                    admitted[ObjectIdentifier(next.place)] = next.place
                }
            }
            return resumed
        }

        /// Takes a new `place` in line: straight into a free slot when its group has room and no waiter that
        /// could take the slot is ahead of it (waiters whose group is at its width cannot), else behind the others.
        /// Does nothing for a place already in line or done. Throws when the line is full and `limited`.
        mutating func reserve(_ place: Place, priority: ImagePriority, limited: Bool) throws(SlotQueueFull) {
            guard place.stage.withLock({ $0 }) == .new else { return }
            if running < width && hasRoom(for: place.group)
                && !waiting.contains(where: { hasRoom(for: $0.place.group) }) {
                start(place)
                admitted[ObjectIdentifier(place)] = place
            } else {
                if limited && waiting.count >= queueLimit {
                    place.stage.withLock { $0 = .done }
                    throw SlotQueueFull(running: running, waiting: waiting.count)
                }
                waiting.append(Waiter(place: place, number: nextNumber, priority: priority))
            }
            nextNumber += 1
            place.stage.withLock { $0 = .inLine }
        }

        /// Takes `place` out of the line (it never ran); `true` when it was waiting there.
        mutating func leave(_ place: Place) -> Waiter? {
            guard let index = waiting.firstIndex(where: { $0.place === place }) else { return nil }
            place.stage.withLock { $0 = .done }
            return waiting.remove(at: index)
        }
    }

    private let order: Order
    private let state: Locked<State>

    /// Slots for `width` pieces of work at once, at most `widthPerGroup` of one group (no bound by default);
    /// past that, at most `queueLimit` wait (unlimited by default).
    package init(width: Int, widthPerGroup: Int? = nil, order: Order = .fifo, queueLimit: Int = .max) {
        self.order = order
        state = Locked(State(width: max(1, width), widthPerGroup: widthPerGroup.map { max(1, $0) },
                             queueLimit: max(0, queueLimit)))
    }

    /// How many may run at once; raising it lets waiters in at once.
    package var width: Int {
        get { state.withLock { $0.width } }
        set {
            let resumed = state.withLock { state in
                state.width = max(1, newValue)
                return state.admit(order: order)
            }
            for continuation in resumed { continuation.resume() }
        }
    }

    /// How many of one group may run at once (`nil`: no bound but ``width``); raising or removing it lets
    /// waiters in at once, lowering it lets running work finish.
    package var widthPerGroup: Int? {
        get { state.withLock { $0.widthPerGroup } }
        set {
            let resumed = state.withLock { state in
                state.widthPerGroup = newValue.map { max(1, $0) }
                return state.admit(order: order)
            }
            for continuation in resumed { continuation.resume() }
        }
    }

    /// Running now (including places admitted whose work has not arrived yet).
    package var running: Int { state.withLock { $0.running } }
    /// Waiting now.
    package var waiting: Int { state.withLock { $0.waiting.count } }

    /// Takes `place` in line at `priority`. Call it when the work is created, in the order callers asked; calling
    /// it again, after the work arrived, or after it finished does nothing. The queue limit does not apply: the
    /// caller has already accepted the work.
    func reserve(_ place: Place, priority: ImagePriority) {
        state.withLock { state in try? state.reserve(place, priority: priority, limited: false) }
    }

    /// Runs `body` in a slot for `work`, waiting in `place` first at the work's priority, which it follows while it
    /// waits. A task cancelled before its turn throws `ImageError.Code.cancelled` and never runs `body`.
    /// - Throws: ``SlotQueueFull`` when the place was not reserved and `queueLimit` others already wait.
    package func run<Value: Sendable, Update: Sendable, T: Sendable>(
        in place: Place, for work: SharedTask<Value, Update>, _ body: () async throws -> T
    ) async throws -> T {
        try await acquire(place, priority: work.priority) { [weak work] update in
            work?.observePriority { [weak work] _ in
                if let priority = work?.priority { update(priority) }
            }
            return work?.priority
        }
        defer { release(place) }
        return try await body()
    }

    /// Runs `body` in a slot for `work`, taking a place in line when it gets here (for work whose tasks are
    /// already ordered by the stages above it).
    package func run<Value: Sendable, Update: Sendable, T: Sendable>(
        for work: SharedTask<Value, Update>, _ body: () async throws -> T
    ) async throws -> T {
        try await run(in: Place(), for: work, body)
    }

    /// Runs `body` in a slot at a fixed `priority`, taking a place in line when it gets here.
    package func run<T: Sendable>(priority: ImagePriority = .normal, _ body: () async throws -> T) async throws -> T {
        let place = Place()
        try await acquire(place, priority: priority, follow: nil)
        defer { release(place) }
        return try await body()
    }

    /// Waits until `place` holds a slot. `follow`, when given, registers a callback for later priority changes
    /// and returns the priority as it is after registering (so no change is missed).
    private func acquire(
        _ place: Place, priority: ImagePriority,
        follow: ((@escaping @Sendable (ImagePriority) -> Void) -> ImagePriority?)?
    ) async throws {
        let id = ObjectIdentifier(place)
        let admitted = try state.withLock { state throws -> Bool in
            if place.stage.withLock({ $0 }) == .done { throw ImageError(.cancelled, "cancelled while queued") }
            try state.reserve(place, priority: priority, limited: true)
            return state.admitted.removeValue(forKey: id) != nil
        }
        if admitted {
            if Task.isCancelled {
                release(place)
                throw ImageError(.cancelled, "cancelled while queued")
            }
            return
        }
        // Observers may run out of order on different threads: each passes on the priority as it is now.
        let current = follow? { [weak self] priority in
            self?.state.withLock { state in
                if let index = state.waiting.firstIndex(where: { $0.place === place }) {
                    state.waiting[index].priority = priority
                }
            }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool? in
                    if state.admitted.removeValue(forKey: id) != nil { return true }
                    guard let index = state.waiting.firstIndex(where: { $0.place === place }), !Task.isCancelled else {
                        _ = state.leave(place)
                        return false
                    }
                    if let current { state.waiting[index].priority = current }
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
                guard state.waiting.contains(where: { $0.place === place && $0.continuation != nil }) else { return nil }
                return state.leave(place)
            }
            waiter?.continuation?.resume(throwing: ImageError(.cancelled, "cancelled while queued"))
        }
    }

    /// Frees the slot `place` held and lets the best waiter in.
    private func release(_ place: Place) {
        let resumed = state.withLock { state in
            place.stage.withLock { $0 = .done }
            state.end(place)
            return state.admit(order: order)
        }
        for continuation in resumed { continuation.resume() }
    }
}

/// Work refused because every slot was busy and the line was at its limit (a server answers it with 429 or 503).
public struct SlotQueueFull: Error, Sendable {
    /// Work running when it was refused.
    public let running: Int
    /// Work waiting when it was refused.
    public let waiting: Int
}
