/// The running ``SharedTask``s of one stage by their typed key: a subscriber with the key of a running task joins
/// it, anyone else starts a new one. A task leaves the pool when it closes (result delivered or last subscriber
/// gone), so a later subscriber starts afresh.
package final class TaskPool<Key: Hashable & Sendable, Value: Sendable, Update: Sendable>: Sendable {
    package typealias PooledTask = SharedTask<Value, Update>

    /// Shared tasks by key; tasks without a key by identity (they are listed so they can be cancelled).
    private enum Slot: Hashable {
        case shared(Key)
        case unique(ObjectIdentifier)
    }

    private let tasks = Locked<[Slot: PooledTask]>([:])

    package init() {}

    /// Subscribes to the task for `key`, making it with `work` when none runs. A `nil` key never shares.
    /// `joined` tells whether a running task was joined.
    package func subscribe(
        _ key: Key?, priority: ImagePriority,
        onUpdate: @escaping @Sendable (Update) -> Void = { _ in },
        onCompletion: @escaping @Sendable (Result<Value, ImageError>) -> Void,
        work: @escaping PooledTask.Work
    ) -> (subscription: SharedTaskSubscription, joined: Bool) {
        let subscriber = PooledTask.Subscriber(priority: priority, onUpdate: onUpdate, onCompletion: onCompletion)
        while true {
            let (task, slot, isNew) = tasks.withLock { tasks -> (PooledTask, Slot, Bool) in
                if let key, let running = tasks[.shared(key)] { return (running, .shared(key), false) }
                let task = PooledTask(work: work) { [weak self] closed in
                    let slot = key.map(Slot.shared) ?? .unique(ObjectIdentifier(closed))
                    self?.forget(slot, ifItIs: closed)
                }
                let slot = key.map(Slot.shared) ?? .unique(ObjectIdentifier(task))
                tasks[slot] = task
                return (task, slot, true)
            }
            // A task found closing between the lookup and the join is not joined: the loop makes a new one.
            if let subscription = task.subscribe(subscriber) { return (subscription, !isNew) }
            forget(slot, ifItIs: task)
        }
    }

    /// Every running task (for cancelling them all).
    var all: [PooledTask] { tasks.withLock { Array($0.values) } }

    /// How many tasks run.
    package var count: Int { tasks.withLock { $0.count } }

    private func forget(_ slot: Slot, ifItIs task: PooledTask) {
        tasks.withLock { tasks in
            if tasks[slot] === task { tasks.removeValue(forKey: slot) }
        }
    }
}

extension TaskPool {
    /// The value of the task for `key` (joined when one runs, else made with `work`). Cancelling the calling
    /// task leaves it at once with `ImageError.Code.cancelled`; the work stops when nobody else waits for it.
    package func value(forKey key: Key?, priority: ImagePriority = .normal,
                      work: @escaping PooledTask.Work) async throws -> Value {
        let waiter = SharedTaskWaiter<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                waiter.wait(with: continuation)
                let (subscription, _) = subscribe(key, priority: priority, onCompletion: { waiter.resume(with: $0) },
                                                  work: work)
                waiter.attach(subscription)
            }
        } onCancel: {
            waiter.resume(with: .failure(ImageError(.cancelled, "the wait was cancelled")))
        }
    }
}
