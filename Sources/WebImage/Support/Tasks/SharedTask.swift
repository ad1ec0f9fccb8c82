/// Work that several subscribers wait for at once: one download, one decode, one transform, however many callers
/// ask for the same thing. The work starts with its first subscriber and is cancelled when its last one leaves;
/// its priority is the highest of its subscribers' and follows them as they join, leave or change theirs.
///
/// State is one enum of phases; every transition is computed under the lock and returns the action to take
/// outside it (start the work, cancel it, deliver a result, announce a new priority), so no callback ever runs
/// with the lock held.
package final class SharedTask<Value: Sendable, Update: Sendable>: Sendable {
    /// The work: reads ``priority``, reports updates with ``report(_:)``, returns the value or throws.
    package typealias Work = @Sendable (SharedTask<Value, Update>) async throws -> Value

    struct Subscriber: Sendable {
        var priority: ImagePriority
        let onUpdate: @Sendable (Update) -> Void
        let onCompletion: @Sendable (Result<Value, ImageError>) -> Void
    }

    private enum Phase {
        /// Made, but the work has not been started yet.
        case idle
        /// The work runs in this task.
        case running(Task<Void, Never>?)
        /// Delivered a result or lost its last subscriber: nobody may join any more.
        case closed
    }

    private struct State {
        var phase = Phase.idle
        private(set) var subscribers: [Int: Subscriber] = [:]
        /// How many subscribers are at each priority (indexed by raw value): the highest is found without
        /// visiting every subscriber, so a thousand callers joining one task cost a thousand steps, not a million.
        private var countsByPriority = [Int](repeating: 0, count: ImagePriority.allCases.count)
        var nextSubscriberID = 0
        var priority = ImagePriority.low
        var priorityObservers: [@Sendable (ImagePriority) -> Void] = []

        mutating func add(_ subscriber: Subscriber, id: Int) {
            subscribers[id] = subscriber
            countsByPriority[subscriber.priority.rawValue] += 1
        }

        /// Removes subscriber `id`; `false` when it was not there.
        mutating func remove(_ id: Int) -> Bool {
            guard let removed = subscribers.removeValue(forKey: id) else { return false }
            countsByPriority[removed.priority.rawValue] -= 1
            return true
        }

        mutating func setPriority(_ priority: ImagePriority, of id: Int) {
            guard let old = subscribers[id]?.priority else { return }
            countsByPriority[old.rawValue] -= 1
            countsByPriority[priority.rawValue] += 1
            subscribers[id]?.priority = priority
        }

        mutating func removeAll() -> [Subscriber] {
            defer {
                subscribers = [:]
                countsByPriority = countsByPriority.map { _ in 0 }
            }
            return Array(subscribers.values)
        }

        /// The highest subscriber priority when it changed, or `nil` (also when nobody is left: a closing task
        /// keeps its priority).
        mutating func recomputePriority() -> ImagePriority? {
            guard let highest = ImagePriority.allCases.last(where: { countsByPriority[$0.rawValue] > 0 }),
                  highest != priority else { return nil }
            priority = highest
            return highest
        }
    }

    /// What to do after a subscriber joined.
    enum JoinAction {
        case start
        case announce(ImagePriority)
        case nothing
    }

    /// What to do after a subscriber left or changed its priority.
    private enum LeaveAction {
        case cancel(Task<Void, Never>?)
        case announce(ImagePriority, [@Sendable (ImagePriority) -> Void])
        case nothing
    }

    private let state = Locked(State())
    private let work: Work
    /// Called once when the task closes, so its pool forgets it.
    private let onClose: @Sendable (SharedTask<Value, Update>) -> Void

    init(work: @escaping Work, onClose: @escaping @Sendable (SharedTask<Value, Update>) -> Void) {
        self.work = work
        self.onClose = onClose
    }

    // MARK: Subscribers

    /// Adds a subscriber; `nil` when the task has closed (the caller then makes a new one).
    func subscribe(_ subscriber: Subscriber) -> SharedTaskSubscription? {
        let joined = state.withLock { state -> (id: Int, action: JoinAction, observers: [@Sendable (ImagePriority) -> Void])? in
            if case .closed = state.phase { return nil }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.add(subscriber, id: id)
            if case .idle = state.phase {
                state.phase = .running(nil)
                state.priority = subscriber.priority
                return (id, .start, [])
            }
            guard let raised = state.recomputePriority() else { return (id, .nothing, []) }
            return (id, .announce(raised), state.priorityObservers)
        }
        guard let joined else { return nil }
        switch joined.action {
        case .start: start()
        case .announce(let priority): for observer in joined.observers { observer(priority) }
        case .nothing: break
        }
        let id = joined.id
        return SharedTaskSubscription(
            setPriority: { [weak self] priority in self?.setPriority(priority, of: id) },
            cancel: { [weak self] in self?.unsubscribe(id) })
    }

    private func start() {
        let task = Task { [self] in
            let result: Result<Value, ImageError>
            do {
                result = .success(try await work(self))
            } catch {
                result = .failure(Task.isCancelled ? ImageError(.cancelled, "the work was cancelled")
                                                   : ImageError.fromTransport(error))
            }
            finish(result)
        }
        let cancelled = state.withLock { state -> Bool in
            guard case .running = state.phase else { return true }
            state.phase = .running(task)
            return false
        }
        if cancelled { task.cancel() }
    }

    private func unsubscribe(_ id: Int) {
        let action = state.withLock { state -> LeaveAction in
            guard case .running(let task) = state.phase, state.remove(id) else { return .nothing }
            if state.subscribers.isEmpty {
                state.phase = .closed
                state.priorityObservers = []
                return .cancel(task)
            }
            guard let lowered = state.recomputePriority() else { return .nothing }
            return .announce(lowered, state.priorityObservers)
        }
        perform(action)
    }

    private func setPriority(_ priority: ImagePriority, of id: Int) {
        let action = state.withLock { state -> LeaveAction in
            guard case .running = state.phase, state.subscribers[id] != nil else { return .nothing }
            state.setPriority(priority, of: id)
            guard let changed = state.recomputePriority() else { return .nothing }
            return .announce(changed, state.priorityObservers)
        }
        perform(action)
    }

    private func perform(_ action: LeaveAction) {
        switch action {
        case .cancel(let task):
            onClose(self)
            task?.cancel()
        case .announce(let priority, let observers):
            for observer in observers { observer(priority) }
        case .nothing:
            break
        }
    }

    // MARK: For the work

    /// The highest priority among the subscribers now.
    package var priority: ImagePriority { state.withLock { $0.priority } }

    /// Calls `observer` with every later priority change (dependencies and queue slots follow it this way).
    package func observePriority(_ observer: @escaping @Sendable (ImagePriority) -> Void) {
        state.withLock { $0.priorityObservers.append(observer) }
    }

    /// Hands `update` to every subscriber still here.
    package func report(_ update: Update) {
        let handlers = state.withLock { state -> [@Sendable (Update) -> Void] in
            guard case .running = state.phase else { return [] }
            return state.subscribers.values.map { $0.onUpdate }
        }
        for handler in handlers { handler(update) }
    }

    /// Whether anybody still waits (the work may skip what only they would see).
    package var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// How many wait now (tests check that callers joined one piece of work).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Delivers `result` to every subscriber still here and closes the task; later calls do nothing.
    func finish(_ result: Result<Value, ImageError>) {
        let subscribers = state.withLock { state -> [Subscriber]? in
            guard case .running = state.phase else { return nil }
            state.phase = .closed
            state.priorityObservers = []
            return state.removeAll()
        }
        guard let subscribers else { return }
        onClose(self)
        for subscriber in subscribers { subscriber.onCompletion(result) }
    }

    /// Ends the task for everyone with `error` and cancels its work.
    func cancel(with error: ImageError) {
        let task = state.withLock { state -> Task<Void, Never>? in
            if case .running(let task) = state.phase { return task }
            return nil
        }
        finish(.failure(error))
        task?.cancel()
    }
}

/// One subscriber's hold on a ``SharedTask``: change its priority, or leave (silently: the caller reports its own
/// cancellation).
package struct SharedTaskSubscription: Sendable {
    /// Changes this subscriber's priority (the task follows the highest).
    package let setPriority: @Sendable (ImagePriority) -> Void
    /// Leaves the task; the last subscriber to leave cancels its work.
    package let cancel: @Sendable () -> Void
}
